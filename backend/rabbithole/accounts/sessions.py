"""Browser sessions: a random id (in the HttpOnly cookie; stored as its SHA-256 digest), the account, when it
ends, and the CSRF token the web app sends back in a header with every request that changes something."""

from __future__ import annotations

import hmac
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import delete, select

from rabbithole.accounts.database import AccountDatabase, aware, digest, new_secret
from rabbithole.accounts.tables import SessionRow, UserRow, utcnow
from rabbithole.accounts.users import User, _user


@dataclass(frozen=True, slots=True)
class SignedIn:
    """A valid session: its account and its CSRF token."""

    user: User
    csrf_token: str
    expires_at: datetime


class SessionStore:
    def __init__(self, database: AccountDatabase) -> None:
        self._sessions = database.sessions

    def create(self, user: User, lifetime: timedelta) -> tuple[str, SignedIn]:
        """A new session of ``user`` (a new id at every sign-in: an id set before it is never adopted):
        the id for the cookie, and the session."""
        session_id, stored = new_secret()
        csrf = secrets.token_urlsafe(32)
        now = utcnow()
        with self._sessions.begin() as session:
            session.execute(delete(SessionRow).where(SessionRow.expires_at < now))  # ended ones
            session.add(
                SessionRow(digest=stored, user_id=user.id, csrf_token=csrf, expires_at=now + lifetime)
            )
        return session_id, SignedIn(user, csrf, now + lifetime)

    def find(self, session_id: str) -> SignedIn | None:
        """The session of that id while it lasts and its account is enabled, or None."""
        if not session_id:
            return None
        with self._sessions() as session:
            found = session.execute(
                select(SessionRow, UserRow)
                .join(UserRow, UserRow.id == SessionRow.user_id)
                .where(SessionRow.digest == digest(session_id))
            ).first()
        if found is None:
            return None
        row, user = found
        expires = aware(row.expires_at)
        if user.disabled or expires <= utcnow():
            return None
        return SignedIn(_user(user), row.csrf_token, expires)

    def end(self, session_id: str) -> None:
        with self._sessions.begin() as session:
            session.execute(delete(SessionRow).where(SessionRow.digest == digest(session_id)))


def csrf_matches(expected: str, given: str | None) -> bool:
    """Whether ``given`` (the request's CSRF header) is the session's CSRF token (constant time)."""
    return bool(expected) and given is not None and hmac.compare_digest(given.encode(), expected.encode())
