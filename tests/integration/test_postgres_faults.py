"""PostgreSQL as the database (``database.url``) when it is not there, and when it is: a server nobody
listens on, or a wrong password, stop every command and the server at start with the exit code of bad
settings and a message naming the host and the database, never the password; a server over a running
PostgreSQL says where its database is in /health, without the password."""

from __future__ import annotations

import subprocess
from pathlib import Path

import httpx
import pytest

from fixtures.api_server import free_port, server_env, start_server_process, stop_server_process
from fixtures.cli_runs import rabbithole
from rabbithole.core.config import Settings
from rabbithole.core.errors import ConfigurationError
from rabbithole.devtools.postgres_cluster import PostgresCluster
from rabbithole.services import Services

SECRET = "s3cret-Passw0rd"


def _nobody_listens() -> tuple[str, int]:
    port = free_port()
    return f"postgresql://rabbithole:{SECRET}@127.0.0.1:{port}/team_db", port


def _assert_bad_settings(done: subprocess.CompletedProcess[str], port: int, database: str) -> None:
    assert done.returncode == 78, done.stderr
    message = " ".join(done.stderr.split())  # rich wraps long lines
    assert f"127.0.0.1:{port}" in message and f"database '{database}'" in message
    assert "RABBITHOLE_DATABASE__URL" in message
    assert SECRET not in done.stdout + done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("command", [["collections"], ["migrate"], ["runs"], ["serve"]])
def test_postgres_down_at_start(tmp_path: Path, command: list[str]) -> None:
    url, port = _nobody_listens()
    env = server_env(tmp_path / "data", RABBITHOLE_DATABASE__URL=url)
    if command == ["serve"]:
        command = ["serve", "--port", str(free_port())]
    _assert_bad_settings(rabbithole(command, env, timeout=120), port, "team_db")


def test_postgres_down_when_services_open(tmp_path: Path) -> None:
    url, port = _nobody_listens()
    settings = Settings.model_validate({"storage": {"data_dir": tmp_path}, "database": {"url": url}})
    with pytest.raises(ConfigurationError) as raised:
        Services(settings)
    assert f"127.0.0.1:{port}" in str(raised.value) and "team_db" in str(raised.value)
    assert SECRET not in str(raised.value) and SECRET not in repr(settings)
    assert raised.value.exit_code == 78


def test_a_wrong_password(postgres_cluster: PostgresCluster, tmp_path: Path) -> None:
    url = postgres_cluster.create_database("wrong_password_db")
    wrong = url.replace(postgres_cluster.password, SECRET)
    env = server_env(tmp_path / "data", RABBITHOLE_DATABASE__URL=wrong)
    done = rabbithole(["collections"], env, timeout=120)
    _assert_bad_settings(done, postgres_cluster.port, "wrong_password_db")
    assert "password authentication failed" in done.stderr


def test_health_names_the_database_without_its_password(postgres_url: str, tmp_path: Path) -> None:
    password = postgres_url.split(":")[2].split("@")[0]
    env = server_env(tmp_path / "data", RABBITHOLE_DATABASE__URL=postgres_url)
    process, url = start_server_process(env, tmp_path / "server.log")
    try:
        body = httpx.get(f"{url}/health", timeout=30).json()
        collections = httpx.get(f"{url}/api/collections", timeout=30)
    finally:
        stop_server_process(process)
    database = body["database"]
    assert database["ok"] is True
    assert database["detail"].startswith("postgresql+psycopg://rabbithole:***@127.0.0.1:")
    assert collections.status_code == 200 and collections.json() == []
    assert password not in str(body) and password not in (tmp_path / "server.log").read_text()
