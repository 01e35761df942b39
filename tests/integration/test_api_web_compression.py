"""The built web app served compressed over real HTTP: `npm run build` writes .br and .gz copies beside the
bundle's files (frontend/scripts/compress-dist.mjs, run here on a small build), the server sends the copy the
client accepts with Content-Encoding, the file's own Content-Type and Vary: Accept-Encoding, and the plain
file to a client that accepts none. The API's event streams never pass a compression layer: their first
event arrives at once, uncompressed."""

from __future__ import annotations

import gzip
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from fixtures.api_server import serving, wait_ready
from rabbithole.api.main import create_app
from rabbithole.api.spa import accepted_encodings
from rabbithole.core.config import load_settings

ROOT = Path(__file__).resolve().parents[2]
COMPRESS = ROOT / "frontend" / "scripts" / "compress-dist.mjs"
SCRIPT = "assets/index-5e1f00aa.js"
WORKER = "assets/pdf.worker.min-77aa00bb.mjs"
ICON = "favicon.svg"
TINY = "assets/tiny-0011.js"
INDEX = f'<!doctype html><html><head><script type="module" src="./{SCRIPT}"></script></head></html>\n'
#: Enough repeated text that any compressor shrinks it, as it does a real bundle.
CODE = "".join(f"export const value{n} = 'rabbithole {n % 17}';\n" for n in range(2000))
IDENTITY = {"Accept-Encoding": "identity"}


def build_and_compress(folder: Path) -> Path:
    (folder / "assets").mkdir(parents=True)
    (folder / "index.html").write_text(INDEX, encoding="utf-8")
    (folder / SCRIPT).write_text(CODE, encoding="utf-8")
    (folder / WORKER).write_text(CODE.replace("export", "self.x ="), encoding="utf-8")
    (folder / ICON).write_text("<svg xmlns='http://www.w3.org/2000/svg'>" + "<g/>" * 200 + "</svg>")
    (folder / TINY).write_text("1", encoding="utf-8")  # no copy is smaller: none is written
    node = shutil.which("node")
    assert node is not None, "node is needed to build the web app (make setup)"
    subprocess.run([node, str(COMPRESS), str(folder)], check=True, capture_output=True, timeout=120)
    return folder


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_and_compress(tmp_path_factory.mktemp("compressed") / "dist")


@pytest.fixture(scope="module")
def app_url(tmp_path_factory: pytest.TempPathFactory, dist: Path) -> Iterator[str]:
    data = tmp_path_factory.mktemp("compressed-data")
    settings = load_settings(storage={"data_dir": data}, server={"web_dir": dist, "warm_up": False})
    with serving(create_app(settings)) as url:
        wait_ready(url)
        yield url


def raw_get(url: str, accept_encoding: str) -> tuple[httpx.Response, bytes]:
    """The answer and its body as sent (not decoded)."""
    with httpx.stream("GET", url, headers={"Accept-Encoding": accept_encoding}) as answer:
        return answer, b"".join(answer.iter_raw())


def test_the_build_script_writes_smaller_copies_only(dist: Path) -> None:
    for name in (SCRIPT, WORKER, ICON):
        plain = (dist / name).read_bytes()
        copy = (dist / (name + ".gz")).read_bytes()
        assert gzip.decompress(copy) == plain and len(copy) < len(plain), name
        assert (dist / (name + ".br")).stat().st_size < len(plain), name
    assert not (dist / (TINY + ".gz")).exists() and not (dist / (TINY + ".br")).exists()


def test_the_bundle_arrives_gzip_encoded_when_accepted_and_plain_without(app_url: str, dist: Path) -> None:
    plain = (dist / SCRIPT).read_bytes()
    zipped, body = raw_get(f"{app_url}/{SCRIPT}", "gzip, deflate")
    assert zipped.status_code == 200 and zipped.headers["content-encoding"] == "gzip"
    assert zipped.headers["content-type"].startswith("text/javascript")
    assert zipped.headers["vary"] == "Accept-Encoding"
    assert zipped.headers["cache-control"] == "public, max-age=31536000, immutable"
    assert gzip.decompress(body) == plain and len(body) < len(plain) / 3
    unzipped, body = raw_get(f"{app_url}/{SCRIPT}", "identity")
    assert unzipped.status_code == 200 and "content-encoding" not in unzipped.headers
    assert body == plain and unzipped.headers["vary"] == "Accept-Encoding"
    assert unzipped.headers["content-type"].startswith("text/javascript")
    assert unzipped.headers["etag"] != zipped.headers["etag"]  # two representations, two validators


def test_brotli_is_preferred_and_refusals_are_honoured(app_url: str, dist: Path) -> None:
    brotli, body = raw_get(f"{app_url}/{WORKER}", "gzip, deflate, br")
    assert brotli.headers["content-encoding"] == "br" and body == (dist / (WORKER + ".br")).read_bytes()
    assert brotli.headers["content-type"].startswith("text/javascript")
    refused, body = raw_get(f"{app_url}/{WORKER}", "br;q=0, gzip")
    assert refused.headers["content-encoding"] == "gzip"
    nothing, body = raw_get(f"{app_url}/{WORKER}", "gzip;q=0")
    assert "content-encoding" not in nothing.headers and body == (dist / WORKER).read_bytes()
    icon, body = raw_get(f"{app_url}/{ICON}", "gzip")
    assert icon.headers["content-encoding"] == "gzip" and icon.headers["content-type"] == "image/svg+xml"
    assert icon.headers["cache-control"] == "no-cache"
    tiny, body = raw_get(f"{app_url}/{TINY}", "gzip, br")
    assert "content-encoding" not in tiny.headers and "vary" not in tiny.headers and body == b"1"


def test_a_cached_copy_is_revalidated_per_encoding(app_url: str) -> None:
    first, _ = raw_get(f"{app_url}/{ICON}", "gzip")
    again = httpx.get(
        f"{app_url}/{ICON}", headers={"Accept-Encoding": "gzip", "If-None-Match": first.headers["etag"]}
    )
    assert again.status_code == 304 and again.headers["vary"] == "Accept-Encoding"
    other = httpx.get(f"{app_url}/{ICON}", headers={**IDENTITY, "If-None-Match": first.headers["etag"]})
    assert other.status_code == 200 and "content-encoding" not in other.headers


def test_index_html_is_compressed_for_every_client_route(app_url: str) -> None:
    for path in ("/", "/index.html", "/runs/42"):
        page, body = raw_get(f"{app_url}{path}", "gzip")
        assert page.headers["content-encoding"] == "gzip" and page.headers["vary"] == "Accept-Encoding", path
        assert page.headers["content-type"].startswith("text/html"), path
        assert gzip.decompress(body).startswith(b"<!doctype html>"), path
    plain, body = raw_get(f"{app_url}/runs/42", "identity")
    assert "content-encoding" not in plain.headers and b'<base href="/">' in body


def test_an_event_stream_is_never_compressed_and_its_first_event_comes_at_once(app_url: str) -> None:
    """A compression layer holds back a stream's bytes until its buffer fills: the `ready` event would not
    arrive (the read times out)."""
    headers = {"Accept-Encoding": "gzip, br"}
    with httpx.stream(
        "GET", f"{app_url}/api/runs/events", headers=headers, timeout=httpx.Timeout(10, read=5)
    ) as stream:
        assert stream.status_code == 200 and "content-encoding" not in stream.headers
        assert stream.headers["content-type"].startswith("text/event-stream")
        lines = stream.iter_lines()
        assert next(lines) == "event: ready"


def test_api_answers_are_not_compressed(app_url: str) -> None:
    answer, _ = raw_get(f"{app_url}/api/collections", "gzip, br")
    assert answer.status_code == 200 and "content-encoding" not in answer.headers


def test_accept_encoding_is_read_as_http_says() -> None:
    assert accepted_encodings("gzip, deflate, br") == {"gzip", "deflate", "br"}
    assert accepted_encodings("br;q=0, GZIP;q=0.5") == {"gzip"}
    assert accepted_encodings("*") == {"*", "br", "gzip"}
    assert accepted_encodings("gzip;q=0.0, identity") == {"identity"}
    assert accepted_encodings("") == set()
