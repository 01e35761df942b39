"""`rabbithole export` / `import` and the account tables: accounts, tokens and memberships move with the
installation (a token made before works after), and an export made before the account tables existed
(no users.jsonl ...) still imports."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from fixtures.api_server import server_env
from rabbithole.accounts.service import AccountService
from rabbithole.accounts.tables import AccountsBase
from rabbithole.core.config.accounts import AccountSettings

pytestmark = pytest.mark.timeout(600)
FAST = AccountSettings(hash_memory_kib=8192, hash_time_cost=1, hash_parallelism=1)


def _cli(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rabbithole", *args], env=env, capture_output=True, text=True, timeout=300
    )


def _accounts(data: Path) -> AccountService:
    return AccountService.open(FAST, data / "catalog.sqlite3")


def test_accounts_move_with_the_installation(tmp_path: Path) -> None:
    source = _accounts(tmp_path / "source")
    user = source.add_user("alice", "correct horse battery", is_admin=True)
    source.memberships.set("laws", user.id, "owner")
    _, token = source.create_token("alice", "ci")
    source.close()
    exported = _cli(server_env(tmp_path / "source"), "export", str(tmp_path / "out"))
    assert exported.returncode == 0, exported.stderr
    imported = _cli(server_env(tmp_path / "target"), "import", str(tmp_path / "out"))
    assert imported.returncode == 0, imported.stderr
    target = _accounts(tmp_path / "target")
    try:
        moved = target.user_of_token(token)
        assert moved is not None and moved.name == "alice" and moved.is_admin
        assert target.memberships.roles_of(moved.id) == {"laws": "owner"}
        target.sign_in("alice", "correct horse battery", "")
    finally:
        target.close()


def test_an_export_from_before_the_accounts_imports(tmp_path: Path) -> None:
    _accounts(tmp_path / "source").close()  # an installation with its tables
    assert _cli(server_env(tmp_path / "source"), "export", str(tmp_path / "out")).returncode == 0
    for table in AccountsBase.metadata.tables:  # as an export of the version before
        (tmp_path / "out" / "tables" / f"{table}.jsonl").unlink()
    imported = _cli(server_env(tmp_path / "target"), "import", str(tmp_path / "out"))
    assert imported.returncode == 0, imported.stderr
    target = _accounts(tmp_path / "target")
    try:
        assert target.users.list() == []
    finally:
        target.close()
