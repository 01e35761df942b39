"""Recognise a full disk behind any exception (SQLite's "database or disk is full" through SQLAlchemy or
not, an OSError with ENOSPC or EDQUOT, anywhere in the cause chain) and name it as a domain error.

    try:
        ...
    except Exception as exc:
        full = disk_full_error(exc)
        if full is not None:
            raise full from exc
        raise
"""

from __future__ import annotations

import errno
import sqlite3

from rabbithole.core.errors import StorageFullError

#: errno values of a full disk (no space left; the user's quota used up).
FULL_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT})
#: What SQLite says when a write does not fit (the disk, or ``PRAGMA max_page_count``).
SQLITE_FULL = "database or disk is full"


def _is_full(exc: BaseException) -> bool:
    if isinstance(exc, OSError) and exc.errno in FULL_ERRNOS:
        return True
    if isinstance(exc, sqlite3.Error) and SQLITE_FULL in str(exc):
        return True
    orig = getattr(exc, "orig", None)  # SQLAlchemy's DBAPIError wraps the driver's error
    return isinstance(orig, BaseException) and _is_full(orig)


def disk_full_error(exc: BaseException) -> StorageFullError | None:
    """A ``StorageFullError`` when ``exc`` (or what caused it) is a full disk; otherwise None."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, StorageFullError):
            return current
        if _is_full(current):
            detail = getattr(current, "orig", None) or current
            return StorageFullError(f"the disk is full ({detail}); free space and try again")
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return None
