"""The account tables' engine: the catalog's database (``database.url``, or the SQLite catalog file), the
tables prepared as the other stores prepare theirs (catalog/db.py)."""

from __future__ import annotations

import hashlib
import secrets
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy.orm import Session, sessionmaker

from rabbithole.accounts.tables import AccountsBase
from rabbithole.catalog.db import create_engine_for, prepare_tables


def aware(value: datetime) -> datetime:
    """A timestamp read back (SQLite and PostgreSQL columns hold UTC without a zone) as UTC."""
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


def new_secret() -> tuple[str, str]:
    """A new random secret (32 bytes, URL-safe) and the SHA-256 digest under which it is stored."""
    secret = secrets.token_urlsafe(32)
    return secret, digest(secret)


def digest(secret: str) -> str:
    """The stored form of a token or session id: SHA-256 (they are 256 random bits: no slow hash needed)."""
    return hashlib.sha256(secret.encode("utf-8", "replace")).hexdigest()


class AccountDatabase:
    """One engine and its sessions for the account stores (users, tokens, sessions, memberships, audit)."""

    def __init__(self, path: Path, busy_timeout_ms: int = 30_000, *, url: str = "") -> None:
        self.engine = create_engine_for(url, path, busy_timeout_ms)
        prepare_tables(self.engine, AccountsBase.metadata)
        self.sessions: sessionmaker[Session] = sessionmaker(self.engine, expire_on_commit=False)

    def close(self) -> None:
        self.engine.dispose()
