"""The account storage on both databases (SQLite and PostgreSQL): users with Argon2id hashes, sign-in (one
answer for every refusal, rate limits per account and per address), sessions (a new id per sign-in,
expiry, a disabled account's end at once), personal tokens (stored as digests, revocable), memberships,
and an audit log that never holds a password or a token."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import inspect, text

from rabbithole.accounts.errors import (
    AccountExistsError,
    InvalidAccountNameError,
    SignInRefusedError,
    TooManySignInsError,
    UnusablePasswordError,
)
from rabbithole.accounts.service import REFUSED, AccountService
from rabbithole.core.config.accounts import AccountSettings

PASSWORD = "correct horse battery"
#: Cheap hashes: the tests check behaviour, not the cost (the defaults are Argon2id's RFC 9106 profile).
FAST = {"hash_memory_kib": 8192, "hash_time_cost": 1, "hash_parallelism": 1}


@pytest.fixture
def accounts(database_url: str, tmp_path: Path) -> Iterator[AccountService]:
    service = AccountService.open(
        AccountSettings(max_failures_per_account=3, max_failures_per_address=5, **FAST),  # type: ignore[arg-type]
        tmp_path / "catalog.sqlite3",
        url=database_url,
    )
    yield service
    service.close()


def every_stored_text(accounts: AccountService) -> str:
    """Every value of every account table, as text: what a stolen database would show."""
    engine = accounts.database.engine
    parts = []
    with engine.connect() as conn:
        for table in ("users", "api_tokens", "user_sessions", "audit_log", "collection_members"):
            assert table in inspect(engine).get_table_names()
            parts += [repr(tuple(row)) for row in conn.execute(text(f"SELECT * FROM {table}"))]
    return "\n".join(parts)


def test_a_user_signs_in_and_the_database_holds_no_secret(accounts: AccountService) -> None:
    accounts.add_user("alice", PASSWORD)
    session_id, signed_in = accounts.sign_in("alice", PASSWORD, "10.0.0.1")
    assert signed_in.user.name == "alice" and not signed_in.user.is_admin
    found = accounts.session(session_id)
    assert found is not None and found.user.name == "alice" and found.csrf_token == signed_in.csrf_token
    _, token = accounts.create_token("alice", "scripts")
    user = accounts.user_of_token(token)
    assert user is not None and user.name == "alice"
    assert accounts.list_tokens("alice")[0].last_used_at is not None
    stored = every_stored_text(accounts)
    assert "$argon2id$" in stored
    for secret in (PASSWORD, session_id, token, token.removeprefix("rht_")):
        assert secret not in stored
    actions = [e.action for e in accounts.audit.entries()]
    assert actions[:3] == ["token_created", "sign_in", "user_added"]


def test_each_sign_in_gets_a_new_session_and_sign_out_ends_it(accounts: AccountService) -> None:
    accounts.add_user("alice", PASSWORD)
    first, _ = accounts.sign_in("alice", PASSWORD, "")
    second, _ = accounts.sign_in("alice", PASSWORD, "")
    assert first != second
    accounts.sign_out(first, "alice", "")
    assert accounts.session(first) is None
    assert accounts.session(second) is not None
    assert accounts.session("") is None and accounts.session("not-a-session") is None


def test_an_ended_session_is_not_found(accounts: AccountService) -> None:
    user = accounts.add_user("alice", PASSWORD)
    session_id, _ = accounts.sessions.create(user, timedelta(seconds=-1))
    assert accounts.session(session_id) is None


@pytest.mark.parametrize("who", ["unknown", "wrong password", "disabled"])
def test_every_refusal_says_the_same(accounts: AccountService, who: str) -> None:
    accounts.add_user("alice", PASSWORD)
    if who == "disabled":
        accounts.set_disabled("alice", True)
    name, password = {
        "unknown": ("mallory", PASSWORD),
        "wrong password": ("alice", "not the password"),
        "disabled": ("alice", PASSWORD),
    }[who]
    with pytest.raises(SignInRefusedError) as refused:
        accounts.sign_in(name, password, "10.0.0.9")
    assert str(refused.value) == REFUSED and not isinstance(refused.value, TooManySignInsError)
    failed = accounts.audit.entries(action="sign_in_failed")
    assert [(e.user_name, e.address) for e in failed] == [(name, "10.0.0.9")]


def test_disabling_ends_sessions_and_tokens_at_once(accounts: AccountService) -> None:
    accounts.add_user("alice", PASSWORD)
    session_id, _ = accounts.sign_in("alice", PASSWORD, "")
    _, token = accounts.create_token("alice", "ci")
    accounts.set_disabled("alice", True)
    assert accounts.session(session_id) is None
    assert accounts.user_of_token(token) is None
    accounts.set_disabled("alice", False)
    assert accounts.user_of_token(token) is not None  # the token was not revoked: it works again
    assert accounts.session(session_id) is None  # the session was ended, not paused


def test_a_revoked_token_stops_working(accounts: AccountService) -> None:
    accounts.add_user("alice", PASSWORD)
    record, token = accounts.create_token("alice", "ci")
    accounts.revoke_token("alice", record.id)
    assert accounts.user_of_token(token) is None
    assert accounts.list_tokens("alice")[0].revoked_at is not None
    assert accounts.user_of_token("rht_" + "x" * 43) is None and accounts.user_of_token("") is None


def test_a_new_password_ends_the_sessions(accounts: AccountService) -> None:
    accounts.add_user("alice", PASSWORD)
    session_id, _ = accounts.sign_in("alice", PASSWORD, "")
    accounts.reset_password("alice", "another long password")
    assert accounts.session(session_id) is None
    with pytest.raises(SignInRefusedError):
        accounts.sign_in("alice", PASSWORD, "")
    accounts.sign_in("alice", "another long password", "")


def test_failures_of_one_account_lock_it_even_for_the_right_password(accounts: AccountService) -> None:
    accounts.add_user("alice", PASSWORD)
    accounts.add_user("bob", PASSWORD)
    for attempt in range(3):
        with pytest.raises(SignInRefusedError):
            accounts.sign_in("alice", f"guess {attempt}", f"10.0.0.{attempt}")
    with pytest.raises(TooManySignInsError):
        accounts.sign_in("alice", PASSWORD, "10.0.0.200")
    accounts.sign_in("bob", PASSWORD, "10.0.0.1")  # another account is not locked


def test_failures_from_one_address_lock_it(accounts: AccountService) -> None:
    accounts.add_user("alice", PASSWORD)
    for attempt in range(5):
        with pytest.raises(SignInRefusedError):
            accounts.sign_in(f"user{attempt}", PASSWORD, "10.0.0.66")
    with pytest.raises(TooManySignInsError):
        accounts.sign_in("alice", PASSWORD, "10.0.0.66")
    accounts.sign_in("alice", PASSWORD, "10.0.0.7")


def test_passwords_too_short_or_too_long_are_refused_cleanly(accounts: AccountService) -> None:
    with pytest.raises(UnusablePasswordError, match="too short"):
        accounts.add_user("alice", "short")
    accounts.add_user("alice", PASSWORD)
    huge = "x" * 1_000_000
    with pytest.raises(UnusablePasswordError, match="too long") as refused:
        accounts.sign_in("alice", huge, "")
    assert huge[:100] not in str(refused.value)
    assert accounts.audit.entries(action="sign_in_failed") == []  # not hashed, not counted


@pytest.mark.parametrize("name", ["x' OR '1'='1", "alice; DROP TABLE users; --", "", "a" * 65, "ünïcode"])
def test_names_outside_the_pattern_are_refused(accounts: AccountService, name: str) -> None:
    with pytest.raises(InvalidAccountNameError):
        accounts.add_user(name, PASSWORD)


def test_sql_looking_names_sign_in_as_nobody(accounts: AccountService) -> None:
    accounts.add_user("alice", PASSWORD)
    for name in ("alice' --", "' OR 1=1 --", 'alice" OR ""="'):
        with pytest.raises(SignInRefusedError):
            accounts.sign_in(name, PASSWORD, "")
    assert [u.name for u in accounts.users.list()] == ["alice"]


def test_names_are_unique(accounts: AccountService) -> None:
    accounts.add_user("alice", PASSWORD)
    with pytest.raises(AccountExistsError):
        accounts.add_user("alice", PASSWORD)


def test_memberships(accounts: AccountService) -> None:
    alice = accounts.add_user("alice", PASSWORD)
    bob = accounts.add_user("bob", PASSWORD)
    accounts.memberships.set("laws", alice.id, "owner")
    accounts.memberships.set("laws", bob.id, "reader")
    accounts.memberships.set("laws", bob.id, "editor")
    assert accounts.memberships.roles_of(bob.id) == {"laws": "editor"}
    assert [(m.user_name, m.role) for m in accounts.memberships.members("laws")] == [
        ("alice", "owner"),
        ("bob", "editor"),
    ]
    accounts.memberships.forget_collection("laws")
    assert accounts.memberships.roles_of(alice.id) == {}
