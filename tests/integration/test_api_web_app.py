"""The built web app at `/`: files with their cache headers, index.html for client routes (not for the API's
own paths), a page that says how to build a missing app; and all of it under a sub-path behind a reverse
proxy (server.root_path), through a small proxy that strips the prefix as nginx's `proxy_pass .../;` does."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urljoin

import httpx
import pytest
from fastapi import FastAPI, Request, Response

from fixtures.api_server import serving, wait_ready
from rabbithole.api.main import create_app
from rabbithole.core.config import Settings, load_settings

PREFIX = "/research"
TOKEN = "web-app-test-token"
SCRIPT = "assets/index-3f2a1b9c.js"
STYLE = "assets/index-9c8d7e6f.css"
INDEX = f"""<!doctype html>
<html lang="en">
  <head>
    <meta charset="UTF-8" />
    <script type="module" crossorigin src="./{SCRIPT}"></script>
    <link rel="stylesheet" crossorigin href="./{STYLE}">
  </head>
  <body><div id="root"></div></body>
</html>
"""


def build_web_app(folder: Path) -> Path:
    """A web app build as Vite lays it out (base './'): index.html, hashed assets, an unhashed icon."""
    (folder / "assets").mkdir(parents=True)
    (folder / "index.html").write_text(INDEX, encoding="utf-8")
    (folder / SCRIPT).write_text("console.log('rabbithole');\n", encoding="utf-8")
    (folder / STYLE).write_text("body { margin: 0 }\n", encoding="utf-8")
    (folder / "favicon.svg").write_text("<svg xmlns='http://www.w3.org/2000/svg'/>", encoding="utf-8")
    return folder


def web_settings(tmp: Path, web_dir: Path, **server: object) -> Settings:
    return load_settings(
        storage={"data_dir": tmp / "data"}, server={"web_dir": web_dir, "warm_up": False, **server}
    )


def stripping_proxy(backend: str) -> FastAPI:
    """A reverse proxy serving ``backend`` under PREFIX: `/research/x` is forwarded as `/x`."""
    proxy = FastAPI()

    @proxy.api_route(PREFIX + "/{rest:path}", methods=["GET", "HEAD", "POST"])
    async def forward(rest: str, request: Request) -> Response:
        headers = {k: v for k, v in request.headers.items() if k.lower() not in ("host", "content-length")}
        async with httpx.AsyncClient(base_url=backend) as client:
            answer = await client.request(
                request.method,
                "/" + rest,
                params=request.query_params,
                headers=headers,
                content=await request.body(),
            )
        kept = {
            k: v for k, v in answer.headers.items() if k.lower() not in ("content-length", "content-encoding")
        }
        return Response(answer.content, status_code=answer.status_code, headers=kept)

    return proxy


@pytest.fixture(scope="module")
def behind_proxy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The public base URL (https://host/research/ in production) of the app behind the proxy."""
    tmp = tmp_path_factory.mktemp("proxied")
    settings = web_settings(tmp, build_web_app(tmp / "dist"), root_path=PREFIX + "/")
    with serving(create_app(settings), root_path=settings.server.root_path) as backend:
        wait_ready(backend)
        with serving(stripping_proxy(backend)) as proxy:
            yield f"{proxy}{PREFIX}/"


@pytest.fixture(scope="module")
def at_root(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    tmp = tmp_path_factory.mktemp("root")
    with serving(create_app(web_settings(tmp, build_web_app(tmp / "dist")))) as url:
        wait_ready(url)
        yield url


def referenced_assets(index: str) -> list[str]:
    return re.findall(r'(?:src|href)="(\./assets/[^"]+)"', index)


def test_the_root_path_setting_is_normalized() -> None:
    assert load_settings(server={"root_path": "/research/"}).server.root_path == "/research"
    assert load_settings().server.root_path == ""
    with pytest.raises(Exception, match="not a path prefix"):
        load_settings(server={"root_path": "research"})


def test_a_client_route_under_the_prefix_loads_the_app_its_assets_and_the_api(behind_proxy: str) -> None:
    page = httpx.get(urljoin(behind_proxy, "runs/0d3b5c"))
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert page.headers["cache-control"] == "no-cache"
    base = re.search(r'<base href="([^"]+)">', page.text)
    assert base is not None and base.group(1) == PREFIX + "/"
    # The browser resolves the relative URLs of the page against <base href>, not against /runs/.
    document_base = urljoin(behind_proxy, base.group(1))
    assets = referenced_assets(page.text)
    assert sorted(assets) == sorted([f"./{SCRIPT}", f"./{STYLE}"])
    for asset in assets:
        answer = httpx.get(urljoin(document_base, asset))
        assert answer.status_code == 200, asset
        assert answer.headers["cache-control"] == "public, max-age=31536000, immutable"
    script = httpx.get(urljoin(document_base, f"./{SCRIPT}"))
    assert "javascript" in script.headers["content-type"] and "rabbithole" in script.text
    collections = httpx.get(urljoin(document_base, "api/collections"))
    assert collections.status_code == 200 and collections.json() == []
    assert httpx.get(urljoin(document_base, "health")).json()["status"] in ("ready", "degraded")


def test_the_api_under_the_prefix_keeps_its_json_404s_and_its_docs(behind_proxy: str) -> None:
    for path in ("api/nope", "api/collections/nope", "assets/index-00000000.js"):
        answer = httpx.get(urljoin(behind_proxy, path))
        assert answer.status_code == 404, path
        assert "error" in answer.json(), path
    openapi = httpx.get(urljoin(behind_proxy, "openapi.json")).json()
    assert openapi["servers"] == [{"url": PREFIX}]
    docs = httpx.get(urljoin(behind_proxy, "docs"))
    assert docs.status_code == 200 and f"{PREFIX}/openapi.json" in docs.text


def test_the_app_at_the_prefix_root_is_served_as_built(behind_proxy: str) -> None:
    """Relative URLs only, no <base>: it works under whatever prefix the proxy strips."""
    page = httpx.get(behind_proxy)
    assert page.status_code == 200 and page.text == INDEX
    for asset in referenced_assets(page.text):
        assert httpx.get(urljoin(behind_proxy, asset)).status_code == 200, asset


def test_files_and_cache_headers_at_the_root(at_root: str) -> None:
    index = httpx.get(f"{at_root}/")
    assert index.status_code == 200 and index.text == INDEX
    assert '<base href="/">' in httpx.get(f"{at_root}/runs/1").text
    assert index.headers["cache-control"] == "no-cache"
    assert httpx.get(f"{at_root}/index.html").text == index.text
    icon = httpx.get(f"{at_root}/favicon.svg")
    assert icon.status_code == 200 and icon.headers["cache-control"] == "no-cache"
    again = httpx.get(f"{at_root}/favicon.svg", headers={"If-None-Match": icon.headers["etag"]})
    assert again.status_code == 304
    head = httpx.head(f"{at_root}/{SCRIPT}")
    assert head.status_code == 200 and head.content == b""
    assert head.headers["cache-control"].endswith("immutable")


def test_only_get_and_head_outside_the_api_reach_the_app(at_root: str) -> None:
    assert httpx.get(f"{at_root}/collections/laws/documents").text.startswith("<!doctype html>")
    posted = httpx.post(f"{at_root}/runs/abc", json={})
    assert posted.status_code in (404, 405) and "error" in posted.json()
    for path in ("/api", "/api/", "/api/runs/x/nope", "/healthz.json"):
        answer = httpx.get(f"{at_root}{path}")
        assert answer.status_code == 404 and "error" in answer.json(), path


def test_files_outside_the_build_are_not_served(at_root: str) -> None:
    for path in (
        "/..%2f..%2fetc/passwd",
        "/assets/..%2f..%2f..%2fetc/hostname",
        "/%2e%2e/data/catalog.sqlite3",
        "/assets/%00.js",
        "/runs%00/x",
    ):
        answer = httpx.get(f"{at_root}{path}")
        assert "root:" not in answer.text and answer.status_code in (200, 404), path
        if answer.status_code == 200:
            assert answer.text.startswith("<!doctype html>"), path  # a client route: the app, not the file


def test_a_missing_build_says_how_to_build_it(tmp_path: Path) -> None:
    settings = web_settings(tmp_path, tmp_path / "no-dist")
    with serving(create_app(settings)) as url:
        wait_ready(url)
        page = httpx.get(f"{url}/runs/1")
        assert page.status_code == 503 and "The web app is not built" in page.text
        assert "make run" in page.text and "RABBITHOLE_SERVER__WEB_DIR" in page.text
        assert httpx.get(f"{url}/api/collections").status_code == 200


def test_with_a_token_the_app_loads_but_the_api_needs_it(tmp_path: Path) -> None:
    settings = web_settings(tmp_path, build_web_app(tmp_path / "dist"), token=TOKEN, root_path=PREFIX)
    auth = {"Authorization": f"Bearer {TOKEN}"}
    with serving(create_app(settings), root_path=PREFIX) as url:
        wait_ready(url, headers=auth)
        assert httpx.get(f"{url}/runs/1").status_code == 200
        assert httpx.get(f"{url}/{SCRIPT}").status_code == 200
        assert httpx.get(f"{url}/docs").status_code == 200  # public below the root path too
        assert httpx.get(f"{url}/api/collections").status_code == 401
        assert httpx.get(f"{url}/health").status_code == 401
        assert httpx.post(f"{url}/runs/1").status_code == 401
        assert httpx.get(f"{url}/api/collections", headers=auth).status_code == 200


def test_routes_of_the_application_come_before_the_app(tmp_path: Path) -> None:
    app = create_app(web_settings(tmp_path, build_web_app(tmp_path / "dist")))

    @app.get("/status-page")
    def status_page() -> dict[str, str]:
        return {"page": "status"}

    with serving(app) as url:
        wait_ready(url)
        assert httpx.get(f"{url}/status-page").json() == {"page": "status"}
        assert httpx.head(f"{url}/status-page").headers["content-type"] == "application/json"
        assert httpx.get(f"{url}/status-page/x").text == INDEX.replace("<head>", '<head><base href="/">')
