"""The browser's sign-in (POST/DELETE/GET /api/session): the token buys an HttpOnly, SameSite=Strict
session cookie the token middleware accepts like the bearer header, also on the event stream; the web
app's files load without a token; a request the cookie authorizes from a foreign `Origin:` is refused."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path

import httpx
import pytest
import pytest_asyncio

from fixtures.api_server import serving, wait_ready
from rabbithole.api.main import create_app
from rabbithole.api.security import SESSION_COOKIE
from rabbithole.core.config import Settings, load_settings

TOKEN = "s3cret-token-for-session-tests"
TRUSTED = "http://localhost:5173"
Client = Callable[..., AbstractAsyncContextManager[httpx.AsyncClient]]


def guarded_settings(root: Path) -> Settings:
    """A token, a trusted origin, and a small web app build (index.html and one asset) under ``root``."""
    web = root / "web"
    (web / "assets").mkdir(parents=True)
    (web / "index.html").write_text("<!doctype html><html><head></head><body>the app</body></html>")
    (web / "assets" / "index-abc123.js").write_text("console.log('the app');")
    return load_settings(
        storage={"data_dir": root / "data"},
        server={"token": TOKEN, "cors_origins": [TRUSTED], "warm_up": False, "web_dir": str(web)},
    )


@pytest_asyncio.fixture
async def client(tmp_path: Path) -> AsyncIterator[Client]:
    """``async with client(base_url=..., root_path=...)``: the guarded app (lifespan included) over ASGI."""
    app = create_app(guarded_settings(tmp_path))

    @asynccontextmanager
    async def factory(
        base_url: str = "http://127.0.0.1", root_path: str = ""
    ) -> AsyncIterator[httpx.AsyncClient]:
        transport = httpx.ASGITransport(app=app, root_path=root_path)
        async with httpx.AsyncClient(transport=transport, base_url=base_url) as http:
            yield http

    async with app.router.lifespan_context(app):
        yield factory


def token_state(required: bool, via: str) -> dict[str, object]:
    """GET /api/session's answer outside accounts mode: no account, no CSRF token."""
    auth = "token" if required else "none"
    return {
        "token_required": required,
        "via": via,
        "auth": auth,
        "user": None,
        "is_admin": False,
        "csrf_token": None,
    }


def cookie_attributes(response: httpx.Response) -> dict[str, str]:
    """The session cookie's Set-Cookie attributes, lower-cased names ("value" is the cookie's value)."""
    headers = [h for h in response.headers.get_list("set-cookie") if h.startswith(f"{SESSION_COOKIE}=")]
    assert len(headers) == 1, response.headers
    first, *rest = (part.strip() for part in headers[0].split(";"))
    attributes = {"value": first.split("=", 1)[1]}
    for part in rest:
        name, _, value = part.partition("=")
        attributes[name.lower()] = value
    return attributes


async def sign_in(http: httpx.AsyncClient, path: str = "/api/session") -> str:
    response = await http.post(path, json={"token": TOKEN})
    assert response.status_code == 204, response.text
    return cookie_attributes(response)["value"]


@pytest.mark.asyncio
async def test_the_token_buys_a_session_cookie_the_api_accepts(client: Client) -> None:
    async with client() as http:
        assert (await http.get("/api/collections")).status_code == 401
        signed_in = await http.post("/api/session", json={"token": TOKEN})
        assert signed_in.status_code == 204
        flags = cookie_attributes(signed_in)
        assert {"httponly", "samesite", "path"} <= flags.keys()
        assert flags["samesite"].lower() == "strict" and flags["path"] == "/"
        assert "secure" not in flags and "max-age" not in flags  # plain http; lasts the browser session
        assert TOKEN not in flags["value"]  # the cookie proves the token without being it
        assert (await http.get("/api/collections")).status_code == 200  # the client sends the cookie
        assert (await http.get("/api/session")).json() == token_state(True, "cookie")
        created = await http.post("/api/collections", json={"name": "notes"})  # no Origin: not a browser
        assert created.status_code == 201, created.text
    async with client() as http:  # a fresh client has no cookie; the bearer header still works
        bearer = await http.get("/api/session", headers={"Authorization": f"Bearer {TOKEN}"})
        assert bearer.json() == token_state(True, "bearer")


@pytest.mark.asyncio
async def test_a_wrong_token_or_a_forged_cookie_is_refused(client: Client) -> None:
    async with client() as http:
        wrong = await http.post("/api/session", json={"token": "guess"})
        assert wrong.status_code == 401
        assert wrong.json()["error"]["type"] == "Unauthorized"
        assert "set-cookie" not in wrong.headers
        empty = await http.post("/api/session", json={"token": ""})
        assert empty.status_code == 422 and "error" in empty.json()
        for forged in (TOKEN, "0" * 64, ""):
            http.cookies.set(SESSION_COOKIE, forged)
            refused = await http.get("/api/collections")
            assert refused.status_code == 401, forged
            assert refused.json()["error"]["type"] == "Unauthorized"
        assert (await http.get("/api/session")).status_code == 401


@pytest.mark.asyncio
async def test_signing_out_clears_the_cookie(client: Client) -> None:
    async with client() as http:
        await sign_in(http)
        assert (await http.get("/api/collections")).status_code == 200
        signed_out = await http.delete("/api/session")
        assert signed_out.status_code == 204
        cleared = cookie_attributes(signed_out)
        assert cleared["max-age"] == "0" and cleared["path"] == "/" and "httponly" in cleared
        assert (await http.get("/api/collections")).status_code == 401


@pytest.mark.asyncio
async def test_under_a_root_path_over_https_the_cookie_is_secure_and_scoped(client: Client) -> None:
    async with client(base_url="https://127.0.0.1", root_path="/research") as http:
        signed_in = await http.post("/research/api/session", json={"token": TOKEN})
        assert signed_in.status_code == 204
        flags = cookie_attributes(signed_in)
        assert flags["path"] == "/research" and "secure" in flags and "httponly" in flags
        assert (await http.get("/research/api/collections")).status_code == 200
    async with client(root_path="/research") as http:
        assert (await http.get("/research/api/collections")).status_code == 401
        shell = await http.get("/research/")  # the app's shell, under the prefix, needs no token
        assert shell.status_code == 200 and "the app" in shell.text


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("path", "status"),
    [
        ("/", 200),
        ("/index.html", 200),
        ("/assets/index-abc123.js", 200),
        ("/runs/42", 200),
        ("/gone.svg", 404),
    ],
)
async def test_the_web_app_files_need_no_token_but_the_api_does(
    client: Client, path: str, status: int
) -> None:
    async with client() as http:
        for method in ("GET", "HEAD"):
            answer = await http.request(method, path)
            assert answer.status_code == status, (method, path, answer.text)
        assert "the app" in (await http.get(path)).text or status == 404
        assert (await http.post(path)).status_code == 401  # only reading the files is public
        for api in ("/api/collections", "/api", "/api/runs", "/health"):
            refused = await http.get(api)
            assert refused.status_code == 401 and refused.json()["error"]["type"] == "Unauthorized", api


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("headers", "status"),
    [
        ({"Origin": "http://evil.example"}, 403),
        ({"Origin": "http://127.0.0.1:9999"}, 403),  # another port of this host: same site, other origin
        ({"Origin": "null"}, 403),
        ({"Origin": "http://127.0.0.1"}, 201),  # the app's own pages
        ({"Origin": TRUSTED}, 201),  # server.cors_origins
        ({"Origin": "https://rabbithole.example", "X-Forwarded-Host": "rabbithole.example"}, 201),
    ],
)
async def test_the_cookie_does_not_authorize_a_foreign_origin(
    client: Client, headers: dict[str, str], status: int
) -> None:
    async with client() as http:
        await sign_in(http)
        answer = await http.post("/api/collections", json={"name": "x"}, headers=headers)
        assert answer.status_code == status, answer.text
        if status == 403:
            assert answer.json()["error"]["type"] == "CrossOriginRefused"
            assert (await http.get("/api/collections")).json() == []  # nothing was created
            # The bearer header changes nothing: a foreign origin is refused in every auth mode.
            bearer = {**headers, "Authorization": f"Bearer {TOKEN}"}
            http.cookies.clear()
            proven = await http.post("/api/collections", json={"name": "x"}, headers=bearer)
            assert proven.status_code == 403 and proven.json()["error"]["type"] == "CrossOriginRefused"


@pytest.mark.asyncio
async def test_a_foreign_origin_cannot_sign_in_or_out(client: Client) -> None:
    async with client() as http:
        foreign = {"Origin": "http://evil.example"}
        refused = await http.post("/api/session", json={"token": TOKEN}, headers=foreign)
        assert refused.status_code == 403 and "set-cookie" not in refused.headers
        await sign_in(http)
        assert (await http.delete("/api/session", headers=foreign)).status_code == 403
        assert (await http.get("/api/collections")).status_code == 200  # still signed in


@pytest.mark.asyncio
async def test_without_a_token_configured_signing_in_needs_nothing(tmp_path: Path) -> None:
    app = create_app(load_settings(storage={"data_dir": tmp_path / "data"}, server={"warm_up": False}))
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as http:
            answer = await http.post("/api/session", json={"token": "anything"})
            assert answer.status_code == 204 and "set-cookie" not in answer.headers
            assert (await http.get("/api/session")).json() == token_state(False, "none")


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The guarded app on a real uvicorn (event streams need a socket)."""
    with serving(create_app(guarded_settings(tmp_path_factory.mktemp("session")))) as url:
        wait_ready(url, headers={"Authorization": f"Bearer {TOKEN}"})
        yield url


def test_the_event_stream_accepts_the_cookie(served: str) -> None:
    with httpx.Client(base_url=served) as http:
        refused = http.get("/api/runs/events")
        assert refused.status_code == 401
        assert http.post("/api/session", json={"token": TOKEN}).status_code == 204
        with http.stream("GET", "/api/runs/events", timeout=30) as stream:
            assert stream.status_code == 200
            assert stream.headers["content-type"].startswith("text/event-stream")
            lines = stream.iter_lines()
            assert next(lines) == "event: ready"
