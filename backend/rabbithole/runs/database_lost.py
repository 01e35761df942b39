"""Recognise a lost PostgreSQL connection behind any exception (psycopg's ``OperationalError``, raw from the
checkpointer's pool or wrapped by SQLAlchemy, anywhere in the cause chain: the server restarted under a
statement, or stayed away longer than a connection waits for it) and name it as a domain error, so a run it
stopped ends with a message that says what happened and how to go on, not as an internal error. SQLite's
errors are never taken for it.

    known = disk_full_error(exc) or database_lost_error(exc)
"""

from __future__ import annotations

from rabbithole.core.errors import StoreError


def _is_lost(exc: BaseException) -> bool:
    import psycopg

    if isinstance(exc, psycopg.OperationalError):
        return True
    orig = getattr(exc, "orig", None)  # SQLAlchemy's DBAPIError wraps the driver's error
    return isinstance(orig, psycopg.OperationalError)


def database_lost_error(exc: BaseException) -> StoreError | None:
    """A ``StoreError`` naming the lost connection when ``exc`` (or what caused it) is one; otherwise None."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if _is_lost(current):
            detail = getattr(current, "orig", None) or current
            lines = [line.strip() for line in str(detail).splitlines() if line.strip()]
            reason = lines[0] if lines else type(detail).__name__
            return StoreError(f"the connection to the database was lost (PostgreSQL restarted?): {reason}")
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return None
