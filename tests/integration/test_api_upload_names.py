"""Uploads over HTTP whose names are long in a multibyte script, and a batch in which one file cannot be
stored: every other file of the request is still ingested and listed (no 500, nothing left unlisted)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from fixtures.api_server import serving, wait_ready
from fixtures.pdfs import build_legal_pdf, build_report_pdf
from rabbithole.api.main import create_app
from rabbithole.core.config import load_settings
from rabbithole.ingestion.uploads import safe_file_name


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("upload-names") / "data"


@pytest.fixture(scope="module")
def api(data_dir: Path) -> Iterator[str]:
    with serving(create_app(load_settings(storage={"data_dir": data_dir}))) as url:
        wait_ready(url)
        yield url


def _finished(api: str, job_id: str) -> dict[str, Any]:
    deadline = time.monotonic() + 300
    while True:
        job: dict[str, Any] = httpx.get(f"{api}/api/jobs/{job_id}").json()
        if job["status"] != "running":
            return job
        assert time.monotonic() < deadline, "the job did not finish"
        time.sleep(0.2)


def _listed(api: str, collection: str) -> dict[str, str]:
    documents = httpx.get(f"{api}/api/collections/{collection}/documents").json()
    return {d["file_name"]: d["status"] for d in documents}


@pytest.mark.parametrize("long_name", ["文" * 116 + ".pdf", "📄🔬" * 40 + ".pdf"], ids=["cjk", "emoji"])
def test_a_long_multibyte_name_and_a_good_file_are_both_ingested(
    api: str, data_dir: Path, tmp_path: Path, long_name: str
) -> None:
    collection = f"names-{len(long_name.encode())}"
    assert httpx.post(f"{api}/api/collections", json={"name": collection}).status_code == 201
    files = [
        ("files", (long_name, build_legal_pdf(tmp_path / "legal.pdf").read_bytes(), "application/pdf")),
        ("files", ("good.pdf", build_report_pdf(tmp_path / "report.pdf").read_bytes(), "application/pdf")),
    ]
    started = httpx.post(f"{api}/api/collections/{collection}/documents", files=files, timeout=60)
    assert started.status_code == 202, started.text
    stored_name = safe_file_name(long_name)
    job = _finished(api, started.json()["id"])
    assert job["status"] == "done"
    assert {f["file_name"]: f["status"] for f in job["files"]} == {
        stored_name: "ingested",
        "good.pdf": "ingested",
    }
    assert _listed(api, collection) == {stored_name: "ingested", "good.pdf": "ingested"}
    pdf = httpx.get(f"{api}/api/collections/{collection}/documents/{stored_name}/pdf")
    assert pdf.status_code == 200 and pdf.content.startswith(b"%PDF")
    folder = next(p.parent for p in (data_dir / "uploads").rglob(stored_name))
    assert sorted(p.name for p in folder.iterdir()) == sorted([stored_name, "good.pdf"])


def test_a_file_that_cannot_be_stored_is_rejected_and_the_others_are_ingested(
    api: str, data_dir: Path, tmp_path: Path
) -> None:
    assert httpx.post(f"{api}/api/collections", json={"name": "blocked"}).status_code == 201
    good = build_report_pdf(tmp_path / "report.pdf").read_bytes()
    # an upload of the same name must go where a folder now is: the file system refuses to write it
    first = httpx.post(
        f"{api}/api/collections/blocked/documents",
        files=[("files", ("probe.pdf", good, "application/pdf"))],
    )
    folder = next(p.parent for p in (data_dir / "uploads").rglob("probe.pdf"))
    _finished(api, first.json()["id"])
    (folder / "stuck.pdf").mkdir()
    files = [
        ("files", ("stuck.pdf", build_legal_pdf(tmp_path / "legal.pdf").read_bytes(), "application/pdf")),
        ("files", ("kept.pdf", good, "application/pdf")),
    ]
    started = httpx.post(f"{api}/api/collections/blocked/documents", files=files, timeout=60)
    assert started.status_code == 202, started.text
    job = _finished(api, started.json()["id"])
    states = {f["file_name"]: (f["status"], f["reason"]) for f in job["files"]}
    assert states["kept.pdf"] == ("ingested", None)
    assert states["stuck.pdf"][0] == "rejected" and "could not be stored" in states["stuck.pdf"][1]
    assert job["status"] == "done" and job["total"] == 1
    assert _listed(api, "blocked") == {"probe.pdf": "ingested", "kept.pdf": "ingested"}
    assert sorted(p.name for p in folder.iterdir()) == ["kept.pdf", "probe.pdf", "stuck.pdf"]
    assert (folder / "stuck.pdf").is_dir()  # nothing of the refused file was written

    only_stuck = httpx.post(
        f"{api}/api/collections/blocked/documents",
        files=[("files", ("stuck.pdf", good, "application/pdf"))],
    )
    assert only_stuck.status_code == 503
    assert "stuck.pdf: could not be stored" in only_stuck.json()["error"]["message"]
