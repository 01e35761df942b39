"""Password hashing with Argon2id (argon2-cffi, a maintained binding of the reference implementation). A
password outside the accepted length is refused before anything is hashed (a megabyte-long one would cost
the server nothing but a length check). Unknown names are checked against a dummy hash, so that a sign-in
takes as long for an unknown name as for a known one."""

from __future__ import annotations

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

from rabbithole.accounts.errors import UnusablePasswordError
from rabbithole.core.config.accounts import AccountSettings


class Passwords:
    def __init__(self, settings: AccountSettings) -> None:
        self.settings = settings
        self._hasher = PasswordHasher(
            time_cost=settings.hash_time_cost,
            memory_cost=settings.hash_memory_kib,
            parallelism=settings.hash_parallelism,
        )
        self._dummy: str | None = None

    def check_acceptable(self, password: str) -> None:
        """UnusablePasswordError when ``password`` is too short or too long (the message never repeats it)."""
        low = self.settings.min_password_chars
        if len(password) < low:
            raise UnusablePasswordError(f"the password is too short: use at least {low} characters")
        self.check_length(password)

    def check_length(self, password: str) -> None:
        """UnusablePasswordError for a password over the limit (a sign-in's: refused before any work)."""
        if len(password) > self.settings.max_password_chars:
            raise UnusablePasswordError(
                f"the password is too long: at most {self.settings.max_password_chars} characters"
            )

    def hash(self, password: str) -> str:
        self.check_acceptable(password)
        return self._hasher.hash(password)

    def verify(self, stored_hash: str, password: str) -> bool:
        try:
            return self._hasher.verify(stored_hash, password)
        except (VerifyMismatchError, VerificationError, InvalidHashError):
            return False

    def prepare_dummy(self) -> None:
        """Make the dummy hash now (the server does at start), so that the first sign-in of an unknown name
        does not take a hash longer than a known one's."""
        if self._dummy is None:
            self._dummy = self._hasher.hash("a password no account has")

    def verify_dummy(self, password: str) -> None:
        """The work of a verification, for a name with no account (the answer is always "no")."""
        self.prepare_dummy()
        assert self._dummy is not None
        self.verify(self._dummy, password)

    def needs_rehash(self, stored_hash: str) -> bool:
        try:
            return self._hasher.check_needs_rehash(stored_hash)
        except InvalidHashError:
            return True
