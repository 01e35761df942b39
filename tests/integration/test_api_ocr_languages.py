"""A collection's OCR languages over HTTP, on SQLite and on PostgreSQL: the installed languages listed, a
language Tesseract has no data for refused (422 naming it and the installed ones), a scanned German page
read in the collection's language (English: "Tatigkeit", no umlauts) and, after the languages changed, the
document counted as read in other languages and read again from its original in German ("Tätigkeit")."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from fixtures.api_server import serving, wait_ready
from fixtures.pdfs import SAMPLE_DIR
from rabbithole.api.main import create_app
from rabbithole.core.config import load_settings
from rabbithole.devtools.scans import scan_pdf

pytestmark = pytest.mark.timeout(600)

SCAN = "AtG-page.pdf"


@pytest.fixture(scope="module")
def german_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Page 2 of the sample AtG scanned at 200 dpi (an image-only PDF): German with umlauts."""
    folder = tmp_path_factory.mktemp("scan")
    return scan_pdf(SAMPLE_DIR / "AtG.pdf", folder / SCAN, 200, pages=[1])


@pytest.fixture
def api(database_url: str, tmp_path: Path) -> Iterator[str]:
    settings = load_settings(storage={"data_dir": tmp_path / "data"}, database={"url": database_url})
    with serving(create_app(settings)) as url:
        wait_ready(url)
        yield url


def _done(api: str, job: dict[str, Any]) -> dict[str, Any]:
    deadline = time.monotonic() + 300
    while job["status"] == "running":
        assert time.monotonic() < deadline, "the job did not finish"
        time.sleep(0.3)
        job = httpx.get(f"{api}/api/jobs/{job['id']}").json()
    return job


def _page_text(api: str) -> str:
    pages = httpx.get(f"{api}/api/collections/scans/documents/{SCAN}/pages").json()
    return "\n".join(p["text"] for p in pages)


def _document(api: str) -> dict[str, Any]:
    detail = httpx.get(f"{api}/api/collections/scans").json()
    (document,) = detail["document_list"]
    return {**document, "read_otherwise": detail["ocr_read_otherwise"]}


def test_the_installed_languages_and_the_default(api: str) -> None:
    answer = httpx.get(f"{api}/api/ocr/languages").json()
    assert {"deu", "eng"} <= set(answer["installed"]) and "osd" not in answer["installed"]
    assert answer["default"] == ["deu", "eng"] and answer["unavailable"] is None


def test_languages_tesseract_cannot_read_are_refused_with_the_installed_ones(api: str) -> None:
    missing = httpx.post(f"{api}/api/collections", json={"name": "scans", "ocr_languages": ["fra"]})
    assert missing.status_code == 422, missing.text
    assert "'fra'" in missing.text and "installed: deu, eng" in missing.text
    assert httpx.get(f"{api}/api/collections").json() == []  # nothing was created

    assert httpx.post(f"{api}/api/collections", json={"name": "scans"}).status_code == 201
    for codes, said in (
        (["xx1"], "'xx1' is not a Tesseract language code"),
        (["osd"], "'osd' is not a Tesseract language code"),
        (["deu", "deu"], "deu is given more than once"),
        (["eng", "ita"], "no data for the OCR language 'ita'"),
    ):
        refused = httpx.patch(f"{api}/api/collections/scans", json={"ocr_languages": codes})
        assert refused.status_code == 422 and said in refused.text, refused.text
    (listed,) = httpx.get(f"{api}/api/collections").json()
    assert listed["ocr_languages"] == ["deu", "eng"] and listed["ocr_languages_own"] is False


def test_a_scan_is_read_in_the_collections_language_and_again_after_a_change(
    api: str, german_page: Path
) -> None:
    created = httpx.post(f"{api}/api/collections", json={"name": "scans", "ocr_languages": ["eng"]})
    assert created.status_code == 201, created.text
    assert created.json()["ocr_languages"] == ["eng"] and created.json()["ocr_languages_own"] is True
    upload = httpx.post(
        f"{api}/api/collections/scans/documents",
        files=[("files", (SCAN, german_page.read_bytes(), "application/pdf"))],
        timeout=60,
    )
    assert upload.status_code == 202, upload.text
    assert _done(api, upload.json())["files"][0]["status"] == "ingested"
    document = _document(api)
    assert document["ocr_languages"] == ["eng"] and document["read_otherwise"] == []
    assert any("read by OCR (Tesseract, eng)" in w for w in document["warnings"]), document["warnings"]
    assert "Tatigkeit" in _page_text(api) and "Tätigkeit" not in _page_text(api)
    nothing = httpx.post(f"{api}/api/collections/scans/ocr/reread")
    assert nothing.status_code == 409 and "no document" in nothing.text

    changed = httpx.patch(f"{api}/api/collections/scans", json={"ocr_languages": ["deu"]})
    assert changed.status_code == 200, changed.text
    assert changed.json()["ocr_languages"] == ["deu"] and changed.json()["ocr_read_otherwise"] == [SCAN]
    assert "Tatigkeit" in _page_text(api)  # the text stays as it was read until it is read again

    reread = httpx.post(f"{api}/api/collections/scans/ocr/reread")
    assert reread.status_code == 202, reread.text
    job = _done(api, reread.json())
    assert job["status"] == "done" and [(f["file_name"], f["status"]) for f in job["files"]] == [
        (SCAN, "ingested")
    ]
    events = httpx.get(f"{api}/api/jobs/{job['id']}/events", timeout=30).text
    assert "parsing" in events and "ingested" in events  # the stages an upload shows
    document = _document(api)
    assert document["ocr_languages"] == ["deu"] and document["read_otherwise"] == []
    assert any("read by OCR (Tesseract, deu)" in w for w in document["warnings"]), document["warnings"]
    assert "Tätigkeit" in _page_text(api)
    hits = httpx.get(f"{api}/api/search", params={"q": "Tätigkeit Freigabewerte", "collection": "scans"})
    assert hits.status_code == 200 and hits.json()["results"], hits.text

    default = httpx.patch(f"{api}/api/collections/scans", json={"ocr_languages": []}).json()
    assert default["ocr_languages"] == ["deu", "eng"] and default["ocr_languages_own"] is False
    assert default["ocr_read_otherwise"] == [SCAN]
