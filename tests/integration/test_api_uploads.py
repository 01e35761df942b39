"""Uploading PDFs over HTTP: several at once, checked by content, ingested as a job with progress; a bad
file of a batch loses nothing else; the PDF comes back by name with Range support."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from fixtures.api_server import serving, wait_ready
from fixtures.pdfs import (
    LEGAL_ABBREVIATION,
    LEGAL_TITLE,
    build_corrupt_pdf,
    build_legal_pdf,
    build_report_pdf,
)
from rabbithole.api.main import create_app
from rabbithole.core.config import load_settings
from rabbithole.ingestion.uploads import is_pdf, safe_file_name


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("uploads")


@pytest.fixture(scope="module")
def api(root: Path) -> Iterator[str]:
    settings = load_settings(storage={"data_dir": root / "data"}, ingestion={"max_file_mb": 0.5})
    with serving(create_app(settings)) as url:
        wait_ready(url)
        yield url


def _job(api: str, job_id: str) -> dict[str, Any]:
    deadline = time.monotonic() + 300
    while True:
        job: dict[str, Any] = httpx.get(f"{api}/api/jobs/{job_id}").json()
        if job["status"] != "running":
            return job
        assert 0 <= job["done"] <= job["total"]
        assert time.monotonic() < deadline, "the job did not finish"
        time.sleep(0.2)


def test_file_names_and_types(tmp_path: Path) -> None:
    assert safe_file_name("../../etc/passwd") == "passwd.pdf"
    assert safe_file_name("C:\\Users\\x\\Gesetz.PDF") == "Gesetz.pdf"
    assert safe_file_name("a\x00b/..") == "upload.pdf"
    assert safe_file_name(None) == "upload.pdf"
    assert is_pdf(build_legal_pdf(tmp_path / "a.pdf").read_bytes())
    assert not is_pdf(b"<html>" + b"x" * 2000)
    assert not is_pdf(b"x" * 2000 + b"%PDF-1.7")  # a header must come first (within the first KiB)


def test_an_upload_batch_is_ingested_and_a_bad_file_loses_nothing(
    api: str, root: Path, tmp_path: Path
) -> None:
    assert httpx.post(f"{api}/api/collections", json={"name": "inbox"}).status_code == 201
    legal = build_legal_pdf(tmp_path / "legal.pdf").read_bytes()
    report = build_report_pdf(tmp_path / "report.pdf").read_bytes()
    corrupt = build_corrupt_pdf(tmp_path / "corrupt.pdf").read_bytes()
    files = [
        ("files", ("../../PrüfG.pdf", legal, "application/pdf")),
        ("files", ("report.bin", report, "application/octet-stream")),  # a PDF by content
        ("files", ("fake.pdf", b"<html>not a pdf</html>", "application/pdf")),  # a PDF by name only
        ("files", ("big.pdf", b"%PDF-1.7\n" + b"0" * 600_000, "application/pdf")),
        ("files", ("corrupt.pdf", corrupt, "application/pdf")),
    ]
    started = httpx.post(f"{api}/api/collections/inbox/documents", files=files, timeout=60)
    assert started.status_code == 202, started.text
    assert started.json()["total"] == 3
    job = _job(api, started.json()["id"])
    assert job["status"] == "done" and job["done"] == 3
    states = {f["file_name"]: (f["status"], f["reason"]) for f in job["files"]}
    assert states["PrüfG.pdf"] == ("ingested", None)
    assert states["report.bin.pdf"] == ("ingested", None)
    assert states["fake.pdf"][0] == "rejected" and "not a PDF" in states["fake.pdf"][1]
    assert states["big.pdf"][0] == "rejected" and "max_file_mb" in states["big.pdf"][1]
    assert states["corrupt.pdf"][0] == "failed" and states["corrupt.pdf"][1]

    listed = {d["file_name"]: d["status"] for d in httpx.get(f"{api}/api/collections/inbox/documents").json()}
    assert listed == {"PrüfG.pdf": "ingested", "report.bin.pdf": "ingested", "corrupt.pdf": "failed"}
    results = httpx.get(
        f"{api}/api/search", params={"q": "Ausnahmen bedürfen der Genehmigung", "collection": "inbox"}
    ).json()["results"]
    assert results[0]["document"] == "PrüfG.pdf"
    stored = sorted(p.name for p in (root / "data" / "uploads").rglob("*") if p.is_file())
    assert stored == ["PrüfG.pdf", "corrupt.pdf", "report.bin.pdf"]  # nothing outside the uploads folder

    # a second batch adds to the collection and keeps the first batch's documents and problems
    second = httpx.post(
        f"{api}/api/collections/inbox/documents",
        files=[("files", ("second.pdf", report, "application/pdf"))],
    )
    assert _job(api, second.json()["id"])["files"][0]["status"] == "ingested"
    listed = {d["file_name"]: d["status"] for d in httpx.get(f"{api}/api/collections/inbox/documents").json()}
    assert listed["corrupt.pdf"] == "failed" and listed["PrüfG.pdf"] == "ingested" and "second.pdf" in listed


def test_the_pdf_is_served_with_ranges(api: str, tmp_path: Path) -> None:
    legal = build_legal_pdf(tmp_path / "legal.pdf").read_bytes()
    httpx.post(f"{api}/api/collections", json={"name": "viewer"})
    job = httpx.post(
        f"{api}/api/collections/viewer/documents", files=[("files", ("law.pdf", legal, "application/pdf"))]
    ).json()
    assert _job(api, job["id"])["status"] == "done"
    url = f"{api}/api/collections/viewer/documents/law.pdf/pdf"
    whole = httpx.get(url, headers={"Accept-Encoding": "br, gzip"})
    assert whole.status_code == 200 and whole.content == legal
    assert "content-encoding" not in whole.headers  # a PDF is compressed already; Range needs its bytes
    assert whole.headers["content-type"] == "application/pdf" and whole.headers["accept-ranges"] == "bytes"
    # shown by the browser (the viewer's "open the whole PDF" link, at a page), not saved as a download
    assert whole.headers["content-disposition"].startswith("inline;")
    part = httpx.get(url, headers={"Range": "bytes=100-199"})
    assert part.status_code == 206 and part.content == legal[100:200]
    assert part.headers["content-range"] == f"bytes 100-199/{len(legal)}"
    beyond = httpx.get(url, headers={"Range": f"bytes={len(legal) + 10}-"})
    assert beyond.status_code == 416
    listed = httpx.get(f"{api}/api/collections/viewer/documents").json()
    document_id = listed[0]["id"]
    assert isinstance(document_id, int) and listed[0]["collection"] == "viewer"
    by_id = httpx.get(f"{api}/api/documents/{document_id}")
    assert by_id.status_code == 200 and by_id.json() == listed[0]
    ranged = httpx.get(f"{api}/api/documents/{document_id}/pdf", headers={"Range": "bytes=0-9"})
    assert ranged.status_code == 206 and ranged.content == legal[:10]
    pages = httpx.get(f"{api}/api/documents/{document_id}/pages").json()
    named = httpx.get(f"{api}/api/collections/viewer/documents/law.pdf/pages").json()
    assert pages == named and pages[0]["offset"] == 0
    for bad in ("0", "-1", str(2**63), "x"):
        assert httpx.get(f"{api}/api/documents/{bad}").status_code == 422
    assert httpx.get(f"{api}/api/documents/999999").status_code == 404
    for name in ("nope.pdf", "..%2F..%2Fcatalog.sqlite3", "%2E%2E"):
        assert httpx.get(f"{api}/api/collections/viewer/documents/{name}/pdf").status_code == 404


def test_an_empty_file_and_a_spreadsheet_are_refused_by_name_and_the_pdf_is_ingested(
    api: str, tmp_path: Path
) -> None:
    """Each refused file under the name it was sent with (never made into "tabelle.xlsx.pdf"), saying what
    is wrong with it; the PDF beside them is ingested, its title listed once with its abbreviation."""
    assert httpx.post(f"{api}/api/collections", json={"name": "mixed"}).status_code == 201
    files = [
        ("files", ("leer.pdf", b"", "application/pdf")),
        ("files", ("tabelle.xlsx", b"PK\x03\x04" + bytes(100), "application/vnd.ms-excel")),
        ("files", ("Gesetz.pdf", build_legal_pdf(tmp_path / "g.pdf").read_bytes(), "application/pdf")),
    ]
    started = httpx.post(f"{api}/api/collections/mixed/documents", files=files, timeout=60)
    assert started.status_code == 202, started.text
    job = _job(api, started.json()["id"])
    states = {f["file_name"]: (f["status"], f["reason"]) for f in job["files"]}
    assert set(states) == {"leer.pdf", "tabelle.xlsx", "Gesetz.pdf"}
    assert states["Gesetz.pdf"] == ("ingested", None)
    read = "only PDF, Word (.docx), HTML, Markdown and plain text files and PNG, JPEG and TIFF images "
    read += "are read"
    assert states["leer.pdf"] == ("rejected", f"the file is empty (0 bytes); {read}")
    not_read = "not a type that can be ingested: its content is a ZIP archive (for example a Word .docx or"
    assert states["tabelle.xlsx"] == ("rejected", f"{not_read} OpenDocument file); {read}")

    alone = httpx.post(f"{api}/api/collections/mixed/documents", files=[files[0]])
    assert alone.status_code == 422
    assert "leer.pdf: the file is empty (0 bytes)" in alone.json()["error"]["message"]

    title = LEGAL_TITLE.removesuffix(f" ({LEGAL_ABBREVIATION})")
    listed = httpx.get(f"{api}/api/collections/mixed/documents").json()
    assert [(d["title"], d["abbreviation"]) for d in listed if d["status"] == "ingested"] == [
        (title, LEGAL_ABBREVIATION)
    ]
    detail = httpx.get(f"{api}/api/collections/mixed").json()
    assert [(d["title"], d["abbreviation"]) for d in detail["document_list"]] == [(title, LEGAL_ABBREVIATION)]


def test_uploads_need_an_existing_collection_and_unknown_jobs_are_404(api: str) -> None:
    missing = httpx.post(
        f"{api}/api/collections/nowhere/documents",
        files=[("files", ("a.pdf", b"%PDF-1.7", "application/pdf"))],
    )
    assert missing.status_code == 404 and missing.json()["error"]["type"] == "CollectionNotFoundError"
    httpx.post(f"{api}/api/collections", json={"name": "empty"})
    nothing = httpx.post(
        f"{api}/api/collections/empty/documents",
        files=[
            ("files", ("a.pdf", b"<html>", "application/pdf")),
            ("files", ("b.bin", b"\x00x", "text/plain")),
        ],
    )
    assert nothing.status_code == 422
    message = nothing.json()["error"]["message"]
    assert "a.pdf: not a PDF" in message and "b.bin: not a type that can be ingested" in message
    assert httpx.get(f"{api}/api/jobs/unknown").status_code == 404


def test_a_document_is_deleted_by_id(api: str, root: Path, tmp_path: Path) -> None:
    report = build_report_pdf(tmp_path / "report.pdf").read_bytes()
    httpx.post(f"{api}/api/collections", json={"name": "bin"})
    job = httpx.post(
        f"{api}/api/collections/bin/documents", files=[("files", ("gone.pdf", report, "application/pdf"))]
    ).json()
    assert _job(api, job["id"])["status"] == "done"
    document_id = httpx.get(f"{api}/api/collections/bin/documents").json()[0]["id"]
    assert httpx.delete(f"{api}/api/documents/{document_id}").status_code == 204
    assert httpx.get(f"{api}/api/documents/{document_id}").status_code == 404
    assert httpx.get(f"{api}/api/collections/bin/documents").json() == []
    results = httpx.get(f"{api}/api/search", params={"q": "stations", "collection": "bin"}).json()["results"]
    assert results == []
    assert not list((root / "data" / "uploads").rglob("gone.pdf")), "the upload went with the document"
