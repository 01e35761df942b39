"""Uploading DOCX, HTML, Markdown and text over HTTP (issue 28): each kept under its own suffix, checked
against its content, ingested; listed with its format and the viewer it needs; its pages carry the sections
(heading paths) on them; its original file is served as a download, and its "PDF" is not."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from fixtures.api_server import serving, wait_ready
from fixtures.format_files import DRAFT_SENTENCE, write_draft, write_encrypted_docx, write_latin1_markdown
from rabbithole.api.main import create_app
from rabbithole.core.config import load_settings
from rabbithole.ingestion.uploads import safe_file_name, upload_suffix

DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    settings = load_settings(storage={"data_dir": tmp_path_factory.mktemp("format-uploads") / "data"})
    with serving(create_app(settings)) as url:
        wait_ready(url)
        yield url


def _job(api: str, job_id: str) -> dict[str, Any]:
    deadline = time.monotonic() + 300
    while True:
        job: dict[str, Any] = httpx.get(f"{api}/api/jobs/{job_id}").json()
        if job["status"] != "running":
            return job
        assert time.monotonic() < deadline, "the job did not finish"
        time.sleep(0.2)


def test_upload_names_keep_the_suffix_of_their_format() -> None:
    assert safe_file_name("Entwurf.DOCX", ".docx") == "Entwurf.docx"
    assert upload_suffix("Entwurf.docx", b"PK\x03\x04rest") == (".docx", None)
    assert upload_suffix("notes.md", "Prüfung".encode("latin-1")) == (".md", None)
    assert upload_suffix("seite.htm", b"<html><body>x</body></html>") == (".html", None)
    assert upload_suffix("scan.bin", b"%PDF-1.7\n") == (".pdf", None)
    suffix, reason = upload_suffix("Entwurf.docx", b"%PDF-1.7\n")
    assert (
        suffix is None and reason is not None and reason.startswith("not a Word .docx file: its content is")
    )
    suffix, reason = upload_suffix("bild.md", b"\x89PNG\r\n\x1a\n\x00\x00")
    assert suffix is None and reason is not None and "a PNG image" in reason


def test_other_formats_are_uploaded_ingested_listed_and_served(api: str, tmp_path: Path) -> None:
    assert httpx.post(f"{api}/api/collections", json={"name": "akte"}).status_code == 201
    draft = write_draft(tmp_path / "Entwurf.docx").read_bytes()
    files = [
        ("files", ("Entwurf.DOCX", draft, DOCX)),
        ("files", ("Prüfbericht.md", write_latin1_markdown(tmp_path / "p.md").read_bytes(), "text/markdown")),
        ("files", ("Vermerk.txt", "§ 1 Zweck\n\nDer Vermerk hält fest.\n".encode(), "text/plain")),
        ("files", ("Geheim.docx", write_encrypted_docx(tmp_path / "g.docx").read_bytes(), DOCX)),
        ("files", ("Bescheid.docx", b"%PDF-1.7\n", DOCX)),
    ]
    started = httpx.post(f"{api}/api/collections/akte/documents", files=files, timeout=60)
    assert started.status_code == 202, started.text
    job = _job(api, started.json()["id"])
    states = {f["file_name"]: (f["status"], f["reason"]) for f in job["files"]}
    assert states["Entwurf.docx"] == ("ingested", None)
    assert states["Prüfbericht.md"] == ("ingested", None)
    assert states["Vermerk.txt"] == ("ingested", None)
    assert states["Geheim.docx"][0] == "failed" and "password-protected" in states["Geheim.docx"][1]
    assert states["Bescheid.docx"][0] == "rejected"
    assert states["Bescheid.docx"][1].startswith("not a Word .docx file: its content is a PDF;")

    listed = {d["file_name"]: d for d in httpx.get(f"{api}/api/collections/akte/documents").json()}
    assert {n: (d["format"], d["viewer"], d["status"]) for n, d in listed.items()} == {
        "Entwurf.docx": ("docx", "text", "ingested"),
        "Prüfbericht.md": ("markdown", "text", "ingested"),
        "Vermerk.txt": ("text", "text", "ingested"),
        "Geheim.docx": ("docx", "text", "failed"),
    }
    assert listed["Prüfbericht.md"]["warnings"] == ["not UTF-8: read as Windows-1252 / Latin-1 (ISO 8859-1)"]

    pages = httpx.get(f"{api}/api/collections/akte/documents/Entwurf.docx/pages").json()
    assert len(pages) == 1 and DRAFT_SENTENCE in pages[0]["text"]
    sections = [(s["label"], s["heading"], s["path"]) for s in pages[0]["sections"]]
    title = ["Entwurf einer Stellungnahme"]  # the heading path the viewer shows: under the title
    assert ("1", "Anlass", title) in sections and ("2", "Bewertung", title) in sections
    anlass = next(s for s in pages[0]["sections"] if s["label"] == "1")
    assert pages[0]["text"][anlass["start"] : anlass["end"]].startswith("1 Anlass")

    original = httpx.get(f"{api}/api/collections/akte/documents/Entwurf.docx/file")
    assert original.status_code == 200 and original.content == draft
    assert original.headers["content-type"] == DOCX
    assert original.headers["content-disposition"].startswith("attachment;")
    markdown = httpx.get(f"{api}/api/collections/akte/documents/Prüfbericht.md/file")
    assert markdown.headers["content-type"].startswith("text/markdown")
    not_pdf = httpx.get(f"{api}/api/collections/akte/documents/Entwurf.docx/pdf")
    assert not_pdf.status_code == 404
    assert "a Word (.docx) document, not a PDF" in not_pdf.json()["error"]["message"]
    document_id = listed["Entwurf.docx"]["id"]
    assert httpx.get(f"{api}/api/documents/{document_id}/pdf").status_code == 404
    assert httpx.get(f"{api}/api/collections/akte/documents/nope.docx/file").status_code == 404
