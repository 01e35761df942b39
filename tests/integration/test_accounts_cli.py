"""`rabbithole users`, `tokens` and `audit` as a person runs them, on both databases: the password from
stdin (never an argument), the token shown once, the audit log without secrets."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from fixtures.api_server import server_env

PASSWORD = "correct horse battery"


def rabbithole(env: dict[str, str], *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rabbithole", *args],
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_users_tokens_and_audit(database_url: str, tmp_path: Path) -> None:
    env = server_env(
        tmp_path / "data",
        RABBITHOLE_DATABASE__URL=database_url,
        RABBITHOLE_ACCOUNTS__HASH_MEMORY_KIB="8192",
        RABBITHOLE_ACCOUNTS__HASH_TIME_COST="1",
    )
    added = rabbithole(env, "users", "add", "alice", "--admin", "--password-stdin", stdin=PASSWORD + "\n")
    assert added.returncode == 0, added.stderr
    assert added.stdout.strip() == "added alice (admin)"
    assert rabbithole(env, "users", "add", "bob", "--password-stdin", stdin=PASSWORD + "\n").returncode == 0
    again = rabbithole(env, "users", "add", "bob", "--password-stdin", stdin=PASSWORD + "\n")
    assert again.returncode == 73 and "exists already" in again.stderr
    short = rabbithole(env, "users", "add", "carol", "--password-stdin", stdin="short\n")
    assert short.returncode == 64 and "too short" in short.stderr and "short\n" not in short.stderr

    assert rabbithole(env, "users", "disable", "bob").returncode == 0
    assert rabbithole(env, "users", "make-admin", "bob").returncode == 0
    assert (
        rabbithole(
            env, "users", "reset-password", "bob", "--password-stdin", stdin="a new long one\n"
        ).returncode
        == 0
    )
    listed = json.loads(rabbithole(env, "users", "list", "--json").stdout)
    assert [(u["name"], u["admin"], u["disabled"]) for u in listed] == [
        ("alice", True, False),
        ("bob", True, True),
    ]
    missing = rabbithole(env, "users", "disable", "nobody")
    assert missing.returncode == 66 and "no account named 'nobody'" in missing.stderr

    created = rabbithole(env, "tokens", "create", "alice", "--name", "ci")
    assert created.returncode == 0, created.stderr
    token = created.stdout.strip()
    assert token.startswith("rht_") and len(token) > 40
    listing = rabbithole(env, "tokens", "list", "alice").stdout
    assert "\tci\t" in listing and "active" in listing and token not in listing
    assert rabbithole(env, "tokens", "revoke", "alice", "1").returncode == 0
    assert "revoked" in rabbithole(env, "tokens", "list", "alice").stdout
    assert rabbithole(env, "tokens", "revoke", "bob", "1").returncode == 66  # not bob's

    assert rabbithole(env, "members", "add", "laws", "bob", "--role", "editor").returncode == 0
    assert rabbithole(env, "members", "add", "laws", "alice", "--role", "owner").returncode == 0
    assert json.loads(rabbithole(env, "members", "list", "laws", "--json").stdout) == [
        {"user": "alice", "role": "owner"},
        {"user": "bob", "role": "editor"},
    ]
    wrong_role = rabbithole(env, "members", "add", "laws", "bob", "--role", "boss")
    assert wrong_role.returncode == 64 and "owner, editor, reader" in wrong_role.stderr
    assert rabbithole(env, "members", "remove", "laws", "bob").returncode == 0
    assert "bob" not in rabbithole(env, "members", "list", "laws").stdout

    audit = rabbithole(env, "audit", "--json")
    assert audit.returncode == 0, audit.stderr
    entries = json.loads(audit.stdout)
    assert [e["action"] for e in entries][:5] == [
        "user_changed",
        "user_changed",
        "user_changed",
        "token_revoked",
        "token_created",
    ]
    assert {"user_added", "user_changed"} <= {e["action"] for e in entries}
    for secret in (PASSWORD, "a new long one", token):
        assert secret not in audit.stdout
    only_bob = json.loads(rabbithole(env, "audit", "--json", "--user", "bob").stdout)
    assert only_bob and {e["user"] for e in only_bob} == {"bob"}
