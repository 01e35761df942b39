"""Settings of the accounts of a shared server (server.auth = accounts): sessions, the sign-in limits, and
the cost of the password hash (Argon2id, argon2-cffi)."""

from __future__ import annotations

from pydantic import BaseModel, Field


class AccountSettings(BaseModel):
    """Accounts, sessions and sign-in limits (used when server.auth is `accounts`; the `rabbithole users`,
    `tokens` and `audit` commands work in every mode)."""

    session_hours: float = Field(
        12.0, gt=0, le=24 * 30, description="How long a sign-in lasts; the session ends then (sign in again)."
    )
    sign_in_window_minutes: float = Field(
        15.0, gt=0, le=24 * 60, description="The window over which failed sign-ins are counted."
    )
    max_failures_per_account: int = Field(
        5,
        ge=1,
        le=1000,
        description="Failed sign-ins of one account name in the window before it is refused.",
    )
    max_failures_per_address: int = Field(
        20, ge=1, le=100_000, description="Failed sign-ins from one client address in the window."
    )
    min_password_chars: int = Field(10, ge=8, le=256, description="The shortest password accepted.")
    max_password_chars: int = Field(
        256,
        ge=64,
        le=4096,
        description="The longest password accepted; a longer one is refused before it is hashed.",
    )
    hash_memory_kib: int = Field(
        65536, ge=8192, le=4_194_304, description="Argon2id memory cost of a password hash, in KiB."
    )
    hash_time_cost: int = Field(3, ge=1, le=20, description="Argon2id passes over that memory.")
    hash_parallelism: int = Field(4, ge=1, le=64, description="Argon2id lanes.")
