"""The accounts' domain errors; the edges translate them (the CLI: a message and an exit code; the API: its
error shape, never saying whether an account exists)."""

from __future__ import annotations

from rabbithole.core.errors import InvalidRequestError, NotFoundError, RabbitholeError


class AccountNotFoundError(NotFoundError):
    def __init__(self, name: str) -> None:
        super().__init__(f"no account named {name!r}")


class AccountExistsError(RabbitholeError):
    http_status = 409
    exit_code = 73  # EX_CANTCREAT

    def __init__(self, name: str) -> None:
        super().__init__(f"an account named {name!r} exists already")


class TokenNotFoundError(NotFoundError):
    def __init__(self, token_id: int) -> None:
        super().__init__(f"no token {token_id} of that account")


class UnusablePasswordError(InvalidRequestError):
    """A password too short or too long (said without repeating it)."""


class InvalidAccountNameError(InvalidRequestError):
    pass


class SignInRefusedError(RabbitholeError):
    """Wrong name or password, a disabled account, or too many attempts: one answer for all of them."""

    http_status = 401
    exit_code = 77  # EX_NOPERM


class TooManySignInsError(SignInRefusedError):
    http_status = 429

    def __init__(self, retry_after_s: int) -> None:
        super().__init__(f"too many failed sign-ins: try again in {retry_after_s} s")
        self.retry_after_s = retry_after_s


class PermissionDeniedError(RabbitholeError):
    """Something the account may see but not do (a reader uploading): 403. What it may not see at all is a
    NotFoundError (404), as if it did not exist."""

    http_status = 403
    exit_code = 77  # EX_NOPERM
