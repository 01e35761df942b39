"""A scanned PDF uploaded over HTTP: its pages say they were read by OCR (with the confidence), the viewer's
page image is served, and the word boxes of a quote's offsets lie on the words OCR read there."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from fixtures.api_server import serving, wait_ready
from rabbithole.api.main import create_app
from rabbithole.core.config import load_settings


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    root = tmp_path_factory.mktemp("ocr-api")
    with serving(create_app(load_settings(storage={"data_dir": root / "data"}))) as url:
        wait_ready(url)
        yield url


def _done(api: str, job_id: str) -> dict[str, Any]:
    deadline = time.monotonic() + 300
    while True:
        job: dict[str, Any] = httpx.get(f"{api}/api/jobs/{job_id}").json()
        if job["status"] != "running":
            return job
        assert time.monotonic() < deadline, "the job did not finish"
        time.sleep(0.3)


def test_a_scanned_upload_serves_its_page_image_and_the_boxes_of_a_quote(api: str, scanned_atg: Path) -> None:
    assert httpx.post(f"{api}/api/collections", json={"name": "scans"}).status_code == 201
    started = httpx.post(
        f"{api}/api/collections/scans/documents",
        files=[("files", ("AtG-scan.pdf", scanned_atg.read_bytes(), "application/pdf"))],
        timeout=60,
    )
    assert started.status_code == 202, started.text
    job = _done(api, started.json()["id"])
    assert job["files"][0]["status"] == "ingested", job

    base = f"{api}/api/collections/scans/documents/AtG-scan.pdf"
    pages = httpx.get(f"{base}/pages").json()
    assert [p["source"] for p in pages] == ["ocr", "ocr"]
    assert all(p["ocr_confidence"] > 80 for p in pages)
    (status,) = httpx.get(f"{api}/api/collections/scans/documents").json()
    assert any("read by OCR" in w for w in status["warnings"])

    text = pages[0]["text"]
    start = text.index("Kernbrennstoff")
    end = start + len("Kernbrennstoff")
    boxes = httpx.get(f"{base}/pages/1/boxes", params={"start": start, "end": end}).json()
    assert boxes["source"] == "ocr" and boxes["number"] == 1
    (box,) = boxes["boxes"]
    assert box["start"] <= start < box["end"]
    assert 0 <= box["x0"] < box["x1"] <= 1 and 0 <= box["y0"] < box["y1"] <= 1
    # a longer stretch: its words, in reading order
    line_end = text.index("\n", start)
    more = httpx.get(f"{base}/pages/1/boxes", params={"start": start, "end": line_end}).json()["boxes"]
    assert len(more) > 1 and [b["start"] for b in more] == sorted(b["start"] for b in more)

    image = httpx.get(f"{base}/pages/2/image", params={"width": 400})
    assert image.status_code == 200 and image.headers["content-type"] == "image/png"
    assert image.content.startswith(b"\x89PNG") and int.from_bytes(image.content[16:20], "big") == 400
    assert httpx.get(f"{base}/pages/3/image").status_code == 404
    assert httpx.get(f"{base}/pages/3/boxes", params={"start": 0, "end": 5}).status_code == 404
