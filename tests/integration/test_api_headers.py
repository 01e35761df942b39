"""Security headers on every answer over real HTTP (the web app, its files, the API, errors, refusals,
event streams, /docs and /redoc); the documentation pages' policy allows exactly their own inline
scripts and nothing they load comes from elsewhere; and unknown methods on /api/runs/events get that
stream's 405, not the 405 of /api/runs/{run_id}."""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Iterator

import httpx
import pytest

from fixtures.api_server import serving
from rabbithole.api.main import create_app
from rabbithole.core.config import load_settings

TRUSTED = "http://localhost:5173"
INDEX = '<!doctype html><html><head><script type="module" src="./assets/app.js"></script></head></html>'


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    root = tmp_path_factory.mktemp("headers")
    web = root / "dist"
    (web / "assets").mkdir(parents=True)
    (web / "index.html").write_text(INDEX)
    (web / "assets" / "app.js").write_text("console.log('app');\n")
    settings = load_settings(
        storage={"data_dir": root / "data"},
        server={"warm_up": False, "web_dir": str(web), "cors_origins": [TRUSTED]},
    )
    with serving(create_app(settings)) as url:
        yield url


def _policy(response: httpx.Response) -> dict[str, str]:
    directives = (d.strip().split(" ", 1) for d in response.headers["content-security-policy"].split(";"))
    return {d[0]: d[1] if len(d) > 1 else "" for d in directives}


def _assert_secured(response: httpx.Response) -> dict[str, str]:
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.headers["x-frame-options"] == "DENY"
    assert response.headers["referrer-policy"] == "no-referrer"
    policy = _policy(response)
    assert policy["frame-ancestors"] == "'none'" and policy["default-src"] == "'self'"
    assert policy["object-src"] == "'none'" and policy["base-uri"] == "'self'"
    assert "unsafe-eval" not in response.headers["content-security-policy"]
    return policy


@pytest.mark.parametrize(
    ("method", "path", "status", "headers"),
    [
        ("GET", "/", 200, {}),
        ("GET", "/runs/42", 200, {}),  # a client route: index.html
        ("GET", "/assets/app.js", 200, {}),
        ("GET", "/openapi.json", 200, {}),
        ("GET", "/health", 200, {}),
        ("GET", "/api/collections", 200, {}),
        ("GET", "/api/collections/nope", 404, {}),
        ("POST", "/api/collections", 422, {}),
        ("POST", "/api/collections", 403, {"Origin": "http://evil.example"}),  # the cross-origin guard
        ("GET", "/api/collections", 400, {"Host": "evil.example"}),  # the Host check, outermost guard
        ("GET", "/static-offline-docs/swagger-ui.css", 200, {}),
    ],
)
def test_every_answer_carries_the_headers(
    api: str, method: str, path: str, status: int, headers: dict[str, str]
) -> None:
    response = httpx.request(method, f"{api}{path}", headers=headers)
    assert response.status_code == status, response.text
    policy = _assert_secured(response)
    assert policy["script-src"] == "'self'" and "unsafe-inline" not in policy["style-src"]


def test_an_event_stream_carries_the_headers(api: str) -> None:
    with httpx.stream("GET", f"{api}/api/runs/events", timeout=30) as stream:
        assert stream.status_code == 200
        assert stream.headers["content-type"].startswith("text/event-stream")
        _assert_secured(stream)


@pytest.mark.parametrize("path", ["/docs", "/redoc", "/docs/oauth2-redirect"])
def test_the_docs_pages_allow_only_their_own_inline_scripts(api: str, path: str) -> None:
    page = httpx.get(f"{api}{path}")
    assert page.status_code == 200
    policy = _assert_secured(page)
    inline = re.findall(r"<script>(.*?)</script>", page.text, re.DOTALL)
    hashes = {f"'sha256-{base64.b64encode(hashlib.sha256(s.encode()).digest()).decode()}'" for s in inline}
    assert set(policy["script-src"].split()) == {"'self'", *hashes}
    assert "unsafe-inline" not in policy["script-src"]
    assert policy["img-src"] == "'self' data:" and policy["connect-src"] == "'self'"


@pytest.mark.parametrize("path", ["/docs", "/redoc"])
def test_the_docs_load_nothing_from_elsewhere(api: str, path: str) -> None:
    page = httpx.get(f"{api}{path}").text
    loaded = re.findall(r"""(?:src|href|url)\s*[=:(]\s*["']?([^"')\s>]+)""", page)
    assert loaded and all(u.startswith("/") and not u.startswith("//") for u in loaded), loaded
    for script in re.findall(r'<script src="([^"]+)"', page):
        body = httpx.get(f"{api}{script}")
        assert body.status_code == 200
        assert "cdn.redoc.ly" not in body.text and "cdn.jsdelivr.net" not in body.text
        assert "fonts.googleapis.com" not in body.text


def test_the_run_list_stream_answers_other_methods_itself(api: str) -> None:
    for method in ("OPTIONS", "POST", "PUT", "PATCH"):
        answer = httpx.request(method, f"{api}/api/runs/events")
        assert answer.status_code == 405, (method, answer.text)
        assert answer.headers["allow"] == "GET, HEAD", method
        assert answer.json()["error"]["type"] == "HTTPError"
    run = httpx.request("OPTIONS", f"{api}/api/runs/0123abc")
    assert run.status_code == 405 and run.headers["allow"] == "DELETE, GET, HEAD"
    preflight = httpx.options(
        f"{api}/api/runs/events", headers={"Origin": TRUSTED, "Access-Control-Request-Method": "GET"}
    )
    assert preflight.status_code == 200 and preflight.headers["access-control-allow-origin"] == TRUSTED
