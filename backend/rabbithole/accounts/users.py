"""Users and their personal API tokens."""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import delete, select

from rabbithole.accounts.database import AccountDatabase, aware, digest
from rabbithole.accounts.errors import (
    AccountExistsError,
    AccountNotFoundError,
    InvalidAccountNameError,
    TokenNotFoundError,
)
from rabbithole.accounts.tables import ApiTokenRow, SessionRow, UserRow, utcnow

#: Account names: letters, digits and . _ @ - (an e-mail address fits), 1 to 64 characters.
NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._@-]{0,63}")
#: What a personal token starts with (so a leaked one is recognised in a log or a repository).
TOKEN_PREFIX = "rht_"
#: How precisely a token's last use is recorded.
LAST_USE_RESOLUTION = timedelta(minutes=1)


@dataclass(frozen=True, slots=True)
class User:
    id: int
    name: str
    is_admin: bool
    disabled: bool
    created_at: datetime


@dataclass(frozen=True, slots=True)
class ApiToken:
    id: int
    user_name: str
    name: str
    created_at: datetime
    last_used_at: datetime | None
    revoked_at: datetime | None


def check_name(name: str) -> str:
    if not NAME_PATTERN.fullmatch(name):
        raise InvalidAccountNameError(
            "an account name is 1 to 64 letters, digits and . _ @ - (starting with a letter or digit)"
        )
    return name


def _user(row: UserRow) -> User:
    return User(row.id, row.name, row.is_admin, row.disabled, aware(row.created_at))


def _token(row: ApiTokenRow, user_name: str) -> ApiToken:
    return ApiToken(
        row.id,
        user_name,
        row.name,
        aware(row.created_at),
        aware(row.last_used_at) if row.last_used_at else None,
        aware(row.revoked_at) if row.revoked_at else None,
    )


class UserStore:
    def __init__(self, database: AccountDatabase) -> None:
        self._sessions = database.sessions

    def add(self, name: str, password_hash: str, *, is_admin: bool = False) -> User:
        check_name(name)
        with self._sessions.begin() as session:
            if session.scalar(select(UserRow.id).where(UserRow.name == name)) is not None:
                raise AccountExistsError(name)
            row = UserRow(name=name, password_hash=password_hash, is_admin=is_admin, disabled=False)
            session.add(row)
            session.flush()
            return _user(row)

    def list(self) -> list[User]:
        with self._sessions() as session:
            return [_user(r) for r in session.scalars(select(UserRow).order_by(UserRow.name))]

    def find(self, name: str) -> tuple[User, str] | None:
        """The account of ``name`` and its password hash, or None (any string: looked up as a parameter)."""
        with self._sessions() as session:
            row = session.scalar(select(UserRow).where(UserRow.name == name))
            return None if row is None else (_user(row), row.password_hash)

    def get(self, name: str) -> User:
        found = self.find(name)
        if found is None:
            raise AccountNotFoundError(name)
        return found[0]

    def by_id(self, user_id: int) -> User | None:
        with self._sessions() as session:
            row = session.get(UserRow, user_id)
            return None if row is None else _user(row)

    def _set(self, name: str, **values: object) -> User:
        with self._sessions.begin() as session:
            row = session.scalar(select(UserRow).where(UserRow.name == name))
            if row is None:
                raise AccountNotFoundError(name)
            for key, value in values.items():
                setattr(row, key, value)
            session.flush()
            return _user(row)

    def set_password_hash(self, name: str, password_hash: str) -> User:
        """A new password; every session of the account ends (its tokens stay)."""
        user = self._set(name, password_hash=password_hash)
        self._end_sessions(user.id)
        return user

    def set_disabled(self, name: str, disabled: bool) -> User:
        """Disabling ends the account's sessions at once (its tokens stop working: they are checked against
        the account on every request)."""
        user = self._set(name, disabled=disabled)
        if disabled:
            self._end_sessions(user.id)
        return user

    def set_admin(self, name: str, is_admin: bool) -> User:
        return self._set(name, is_admin=is_admin)

    def _end_sessions(self, user_id: int) -> None:
        with self._sessions.begin() as session:
            session.execute(delete(SessionRow).where(SessionRow.user_id == user_id))


class TokenStore:
    """Personal API tokens: shown once when created, stored as a SHA-256 digest."""

    def __init__(self, database: AccountDatabase) -> None:
        self._sessions = database.sessions

    def create(self, user: User, name: str) -> tuple[ApiToken, str]:
        """A new token of ``user``: its record and the token itself (never stored, shown once)."""
        secret = TOKEN_PREFIX + secrets.token_urlsafe(32)
        with self._sessions.begin() as session:
            row = ApiTokenRow(user_id=user.id, name=name.strip()[:200] or "token", digest=digest(secret))
            session.add(row)
            session.flush()
            return _token(row, user.name), secret

    def list(self, user: User) -> list[ApiToken]:
        query = select(ApiTokenRow).where(ApiTokenRow.user_id == user.id).order_by(ApiTokenRow.id)
        with self._sessions() as session:
            return [_token(r, user.name) for r in session.scalars(query)]

    def revoke(self, user: User, token_id: int) -> ApiToken:
        with self._sessions.begin() as session:
            row = session.get(ApiTokenRow, token_id)
            if row is None or row.user_id != user.id:
                raise TokenNotFoundError(token_id)
            if row.revoked_at is None:
                row.revoked_at = utcnow()
            session.flush()
            return _token(row, user.name)

    def user_of(self, secret: str) -> User | None:
        """The enabled account a token that is not revoked belongs to (its last use recorded), or None."""
        if not secret.startswith(TOKEN_PREFIX):
            return None
        with self._sessions.begin() as session:
            found = session.execute(
                select(ApiTokenRow, UserRow)
                .join(UserRow, UserRow.id == ApiTokenRow.user_id)
                .where(ApiTokenRow.digest == digest(secret), ApiTokenRow.revoked_at.is_(None))
            ).first()
            if found is None or found[1].disabled:
                return None
            token, user = found
            now = utcnow()
            if token.last_used_at is None or now - aware(token.last_used_at) > LAST_USE_RESOLUTION:
                token.last_used_at = now  # at most one write a minute per token, not one per request
            return _user(user)
