"""The accounts as the API and the CLI use them: adding and changing users, signing in (rate-limited, the
same work for unknown and known names), sessions, personal tokens, memberships and the audit log."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import NoReturn

from rabbithole.accounts.audit import AuditAction, AuditLog
from rabbithole.accounts.database import AccountDatabase
from rabbithole.accounts.errors import SignInRefusedError, TooManySignInsError
from rabbithole.accounts.memberships import Memberships
from rabbithole.accounts.passwords import Passwords
from rabbithole.accounts.sessions import SessionStore, SignedIn
from rabbithole.accounts.tables import utcnow
from rabbithole.accounts.users import ApiToken, TokenStore, User, UserStore
from rabbithole.core.config.accounts import AccountSettings

#: The one answer to a refused sign-in, whichever the reason (unknown name, wrong password, disabled).
REFUSED = "wrong name or password"


class AccountService:
    def __init__(self, settings: AccountSettings, database: AccountDatabase) -> None:
        self.settings = settings
        self.database = database
        self.passwords = Passwords(settings)
        self.users = UserStore(database)
        self.tokens = TokenStore(database)
        self.sessions = SessionStore(database)
        self.audit = AuditLog(database)
        self.memberships = Memberships(database)

    @classmethod
    def open(
        cls, settings: AccountSettings, sqlite_path: Path, busy_timeout_ms: int = 30_000, *, url: str = ""
    ) -> AccountService:
        return cls(settings, AccountDatabase(sqlite_path, busy_timeout_ms, url=url))

    def close(self) -> None:
        self.database.close()

    # -- administration (the CLI) ------------------------------------------------------------------

    def add_user(self, name: str, password: str, *, is_admin: bool = False) -> User:
        user = self.users.add(name, self.passwords.hash(password), is_admin=is_admin)
        self.audit.record("user_added", name, "admin" if is_admin else "")
        return user

    def reset_password(self, name: str, password: str) -> User:
        user = self.users.set_password_hash(name, self.passwords.hash(password))
        self.audit.record("user_changed", name, "password reset")
        return user

    def set_disabled(self, name: str, disabled: bool) -> User:
        user = self.users.set_disabled(name, disabled)
        self.audit.record("user_changed", name, "disabled" if disabled else "enabled")
        return user

    def set_admin(self, name: str, is_admin: bool) -> User:
        user = self.users.set_admin(name, is_admin)
        self.audit.record("user_changed", name, "admin" if is_admin else "not admin")
        return user

    def create_token(self, user_name: str, token_name: str) -> tuple[ApiToken, str]:
        record, secret = self.tokens.create(self.users.get(user_name), token_name)
        self.audit.record("token_created", user_name, f"token {record.id} ({record.name})")
        return record, secret

    def list_tokens(self, user_name: str) -> list[ApiToken]:
        return self.tokens.list(self.users.get(user_name))

    def revoke_token(self, user_name: str, token_id: int) -> ApiToken:
        record = self.tokens.revoke(self.users.get(user_name), token_id)
        self.audit.record("token_revoked", user_name, f"token {record.id} ({record.name})")
        return record

    # -- signing in --------------------------------------------------------------------------------

    def sign_in(self, name: str, password: str, address: str) -> tuple[str, SignedIn]:
        """A new session for ``name`` (its id for the cookie), or SignInRefusedError (the same message for
        an unknown name, a wrong password and a disabled account; the same work too: an unknown name is
        checked against a dummy hash), TooManySignInsError after too many failures of the name or the
        address in the window, UnusablePasswordError for a password over the length limit (not hashed)."""
        self.passwords.check_length(password)
        self._check_rate(name, address)
        found = self.users.find(name)
        if found is None:
            self.passwords.verify_dummy(password)
            self._refuse(name, address)
        user, stored_hash = found
        if not self.passwords.verify(stored_hash, password) or user.disabled:
            self._refuse(name, address)
        if self.passwords.needs_rehash(stored_hash):
            self.users.set_password_hash(name, self.passwords.hash(password))
        session_id, signed_in = self.sessions.create(user, timedelta(hours=self.settings.session_hours))
        self.audit.record("sign_in", name, "", address)
        return session_id, signed_in

    def _check_rate(self, name: str, address: str) -> None:
        window = timedelta(minutes=self.settings.sign_in_window_minutes)
        since = utcnow() - window
        too_many = self.audit.failed_sign_ins_since(
            since, user_name=name
        ) >= self.settings.max_failures_per_account or (
            address
            and self.audit.failed_sign_ins_since(since, address=address)
            >= self.settings.max_failures_per_address
        )
        if too_many:
            raise TooManySignInsError(int(window.total_seconds()))

    def _refuse(self, name: str, address: str) -> NoReturn:
        self.audit.record("sign_in_failed", name, "", address)
        raise SignInRefusedError(REFUSED)

    def sign_out(self, session_id: str, user_name: str, address: str) -> None:
        self.sessions.end(session_id)
        self.audit.record("sign_out", user_name, "", address)

    def session(self, session_id: str) -> SignedIn | None:
        return self.sessions.find(session_id)

    def user_of_token(self, secret: str) -> User | None:
        return self.tokens.user_of(secret)

    def record(self, action: AuditAction, user_name: str, target: str = "", address: str = "") -> None:
        self.audit.record(action, user_name, target, address)
