"""The guards: 127.0.0.1 by default, a token required off loopback, the `Host:` check against DNS
rebinding, the CORS allow-list, and request size limits."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from fixtures.api_server import serving, wait_ready
from rabbithole.api.main import create_app
from rabbithole.api.security import host_name
from rabbithole.core.config import load_settings
from rabbithole.core.errors import ConfigurationError

TOKEN = "s3cret-token-for-tests"
ORIGIN = "http://localhost:5173"


@pytest.fixture(scope="module")
def guarded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server with a token, a CORS origin, an extra host name and a 1 KiB request limit."""
    settings = load_settings(
        storage={"data_dir": tmp_path_factory.mktemp("guarded") / "data"},
        server={
            "token": TOKEN,
            "cors_origins": [ORIGIN],
            "allowed_hosts": ["rabbithole.lan"],
            "max_request_kb": 1,
            "max_upload_mb": 0.01,
        },
    )
    with serving(create_app(settings)) as url:
        wait_ready(url, headers={"Authorization": f"Bearer {TOKEN}"})
        yield url


AUTH = {"Authorization": f"Bearer {TOKEN}"}


def test_the_default_is_loopback_without_a_token() -> None:
    server = load_settings().server
    assert server.host == "127.0.0.1" and server.token == ""
    server.require_token_off_loopback()


def test_serve_refuses_a_public_address_without_a_token(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "rabbithole", "serve", "--host", "0.0.0.0", "--port", "1"],
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": "/usr/bin:/bin", "RABBITHOLE_STORAGE__DATA_DIR": str(tmp_path / "data")},
    )
    assert done.returncode == 78, done.stderr
    assert "refusing to listen on 0.0.0.0 without a token" in done.stderr
    assert "RABBITHOLE_SERVER__TOKEN" in done.stderr


def test_requests_need_the_token(guarded: str) -> None:
    missing = httpx.get(f"{guarded}/api/collections")
    assert missing.status_code == 401 and missing.headers["www-authenticate"] == "Bearer"
    assert missing.json()["error"]["type"] == "Unauthorized"
    wrong = httpx.get(f"{guarded}/api/collections", headers={"Authorization": "Bearer nope"})
    assert wrong.status_code == 401
    assert httpx.get(f"{guarded}/api/collections", headers=AUTH).status_code == 200
    assert httpx.get(f"{guarded}/openapi.json").status_code == 200  # the description is public


@pytest.mark.parametrize("host", ["evil.example", "evil.example:80", "127.0.0.1.nip.io", ""])
def test_foreign_host_headers_are_refused(guarded: str, host: str) -> None:
    response = httpx.get(f"{guarded}/api/collections", headers={**AUTH, "Host": host})
    assert response.status_code == 400
    assert response.json()["error"]["type"] == "InvalidHost"


@pytest.mark.parametrize("host", ["localhost", "127.0.0.1:9", "[::1]:8000", "rabbithole.lan:8000"])
def test_local_and_allowed_host_headers_are_served(guarded: str, host: str) -> None:
    assert httpx.get(f"{guarded}/api/collections", headers={**AUTH, "Host": host}).status_code == 200


def test_host_names_lose_their_port() -> None:
    assert host_name("[::1]:8000") == "::1"
    assert host_name("Example.org:80") == "example.org"
    assert host_name("::1") == "::1"


def test_cors_allows_only_listed_origins(guarded: str) -> None:
    preflight = {"Access-Control-Request-Method": "GET", "Access-Control-Request-Headers": "authorization"}
    allowed = httpx.options(f"{guarded}/api/collections", headers={**preflight, "Origin": ORIGIN})
    assert allowed.status_code == 200
    assert allowed.headers["access-control-allow-origin"] == ORIGIN
    other = httpx.options(
        f"{guarded}/api/collections", headers={**preflight, "Origin": "http://evil.example"}
    )
    assert "access-control-allow-origin" not in other.headers
    simple = httpx.get(f"{guarded}/api/collections", headers={**AUTH, "Origin": "http://evil.example"})
    assert "access-control-allow-origin" not in simple.headers


def test_large_bodies_are_refused(guarded: str) -> None:
    declared = httpx.post(f"{guarded}/api/collections", headers=AUTH, content=b"x" * 2048)
    assert declared.status_code == 413
    assert declared.json()["error"]["type"] == "RequestTooLarge"

    def chunks() -> Iterator[bytes]:
        for _ in range(4):
            yield b"y" * 512

    streamed = httpx.post(f"{guarded}/api/collections", headers=AUTH, content=chunks())
    assert streamed.status_code == 413  # no Content-Length: counted while read
    assert streamed.json()["error"]["type"] == "RequestTooLarge"
    upload = httpx.post(
        f"{guarded}/api/collections/x/documents",
        headers=AUTH,
        files={"files": ("a.pdf", b"%PDF-" + b"z" * 20_000, "application/pdf")},
    )
    assert upload.status_code == 413


@pytest.mark.parametrize("token", [" ", "\t\n", "short-token", " fifteen-chars-x "])
def test_a_short_or_blank_token_is_a_settings_error(token: str) -> None:
    with pytest.raises(ConfigurationError, match=r"RABBITHOLE_SERVER__TOKEN.*too easy to guess"):
        load_settings(server={"token": token})


def test_a_token_is_taken_without_surrounding_whitespace() -> None:
    assert load_settings(server={"token": f"  {TOKEN}\n"}).server.token == TOKEN
    assert load_settings(server={"token": ""}).server.token == ""  # no token (loopback only)


def test_serve_refuses_a_public_address_with_a_one_space_token(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "rabbithole", "serve", "--host", "0.0.0.0", "--port", "1"],
        capture_output=True,
        text=True,
        timeout=120,
        env={
            "PATH": "/usr/bin:/bin",
            "RABBITHOLE_STORAGE__DATA_DIR": str(tmp_path / "data"),
            "RABBITHOLE_SERVER__TOKEN": " ",
        },
    )
    assert done.returncode == 78, done.stderr
    assert "RABBITHOLE_SERVER__TOKEN" in done.stderr and "only whitespace" in done.stderr
