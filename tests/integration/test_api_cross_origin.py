"""The cross-origin guard over real HTTP, on the default server (no token, loopback): a page on another
origin cannot upload, create or delete anything (403, nothing written, nothing ingested), whether it sends
`Origin:`, `Sec-Fetch-Site:` or both as a browser does for a `no-cors` POST; the app's own pages, a reverse
proxy's forwarded host, server.cors_origins and clients without those headers (curl, scripts, the CLI)
keep working."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from fixtures.api_server import serving
from fixtures.pdfs import build_report_pdf
from rabbithole.api.main import create_app
from rabbithole.core.config import load_settings

TRUSTED = "http://localhost:5173"


#: What Chromium sends with `fetch(url, {mode: 'no-cors', method: 'POST', body: formData})` from a page
#: on another port of this host (the same site, another origin).
def no_cors_from(origin: str, site: str) -> dict[str, str]:
    return {"Origin": origin, "Sec-Fetch-Site": site, "Sec-Fetch-Mode": "no-cors", "Sec-Fetch-Dest": "empty"}


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("cross-origin") / "data"


@pytest.fixture(scope="module")
def api(data_dir: Path) -> Iterator[str]:
    settings = load_settings(
        storage={"data_dir": data_dir}, server={"warm_up": False, "cors_origins": [TRUSTED]}
    )
    assert settings.server.token == ""
    with serving(create_app(settings)) as url:
        assert httpx.post(f"{url}/api/collections", json={"name": "target"}).status_code == 201
        yield url


def _uploads(data_dir: Path) -> list[Path]:
    return [p for p in (data_dir / "uploads").rglob("*") if p.is_file()]


@pytest.mark.parametrize(
    "headers",
    [
        {"Origin": "http://evil.example"},
        no_cors_from("http://evil.example", "cross-site"),
        no_cors_from("http://127.0.0.1:9", "same-site"),  # another port of this host
        {"Origin": "null"},  # a sandboxed frame, a file:// page
        {"Sec-Fetch-Site": "cross-site"},  # a browser that left Origin out
        {"Sec-Fetch-Site": "same-site", "Origin": "http://127.0.0.1:9"},
    ],
    ids=["origin", "no-cors-cross-site", "no-cors-same-site", "null", "sec-fetch-only", "same-site"],
)
def test_a_foreign_upload_is_refused_and_nothing_is_written_or_ingested(
    api: str, data_dir: Path, tmp_path: Path, headers: dict[str, str]
) -> None:
    pdf = build_report_pdf(tmp_path / "report.pdf").read_bytes()
    answer = httpx.post(
        f"{api}/api/collections/target/documents",
        files=[("files", ("report.pdf", pdf, "application/pdf"))],
        headers=headers,
    )
    assert answer.status_code == 403, answer.text
    error = answer.json()["error"]
    assert error["type"] == "CrossOriginRefused" and "server.cors_origins" in error["message"]
    assert _uploads(data_dir) == []
    assert httpx.get(f"{api}/api/collections/target/documents").json() == []


def test_foreign_origins_cannot_create_or_delete_but_can_still_read(api: str) -> None:
    foreign = no_cors_from("http://evil.example", "cross-site")
    assert httpx.post(f"{api}/api/collections", json={"name": "planted"}, headers=foreign).status_code == 403
    assert httpx.delete(f"{api}/api/collections/target", headers=foreign).status_code == 403
    names = [c["name"] for c in httpx.get(f"{api}/api/collections", headers=foreign).json()]
    assert names == ["target"]  # a GET is answered (CORS keeps its body from the page)


SELF = "the server's own address"


@pytest.mark.parametrize(
    ("name", "headers"),
    [
        ("no-origin", {}),  # curl, scripts, httpx, the CLI's --server mode
        ("same-origin", {"Origin": SELF, "Sec-Fetch-Site": "same-origin", "Sec-Fetch-Mode": "cors"}),
        ("cors-origin", {"Origin": TRUSTED, "Sec-Fetch-Site": "cross-site"}),  # server.cors_origins
        ("proxied", {"Origin": "https://rabbithole.example", "X-Forwarded-Host": "rabbithole.example"}),
        ("user-initiated", {"Sec-Fetch-Site": "none"}),  # typed into the address bar
    ],
)
def test_own_trusted_and_non_browser_requests_are_served(
    api: str, name: str, headers: dict[str, str]
) -> None:
    headers = {key: api if value == SELF else value for key, value in headers.items()}
    created = httpx.post(f"{api}/api/collections", json={"name": name}, headers=headers)
    assert created.status_code == 201, created.text
    assert httpx.delete(f"{api}/api/collections/{name}", headers=headers).status_code in (200, 204)
