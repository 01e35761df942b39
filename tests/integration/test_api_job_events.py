"""Over a real uvicorn on 127.0.0.1: an upload job's progress as SSE (per file queued, parsing, embedding,
ingested or failed with the reason, then done; replay from Last-Event-ID and ?after), and the PDF of every
ingested document served by id, also of those `rabbithole ingest` read from a folder."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from fixtures.api_server import serving, wait_ready
from fixtures.pdfs import build_corrupt_pdf, build_law_folder, build_legal_pdf, build_report_pdf
from rabbithole.api.main import create_app
from rabbithole.cli.sse import parse_sse
from rabbithole.core.config import load_settings

pytestmark = pytest.mark.timeout(300)

Event = dict[str, Any]


def _ingest(folder: Path, data_dir: Path) -> None:
    env = {**os.environ, "RABBITHOLE_STORAGE__DATA_DIR": str(data_dir)}
    done = subprocess.run(
        [sys.executable, "-m", "rabbithole", "ingest", str(folder)],
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == 0, done.stderr


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data directory where `rabbithole ingest` put the folder kb/laws (two PDFs)."""
    root = tmp_path_factory.mktemp("job-events")
    folder = root / "kb" / "laws"
    build_law_folder(folder)
    _ingest(folder, root / "data")
    return root


@pytest.fixture(scope="module")
def api(root: Path) -> Iterator[str]:
    with serving(create_app(load_settings(storage={"data_dir": root / "data"}))) as url:
        wait_ready(url)
        yield url


def events(url: str, headers: dict[str, str] | None = None, limit: int | None = None) -> list[Event]:
    """The stream's events (their data) until the server ends it, or the first ``limit``."""
    seen: list[Event] = []
    with httpx.stream("GET", url, headers=headers, timeout=httpx.Timeout(10, read=120)) as response:
        assert response.status_code == 200, response.read()
        assert response.headers["content-type"].startswith("text/event-stream")
        for message in parse_sse(response.iter_lines()):
            data = json.loads(message.data)
            assert message.event == data["type"] and message.id == str(data["seq"])
            seen.append(data)
            if limit is not None and len(seen) == limit:
                break
    return seen


def test_an_upload_job_streams_its_progress(api: str, tmp_path: Path) -> None:
    assert httpx.post(f"{api}/api/collections", json={"name": "inbox"}).status_code == 201
    files = [
        ("files", ("legal.pdf", build_legal_pdf(tmp_path / "l.pdf").read_bytes(), "application/pdf")),
        ("files", ("report.pdf", build_report_pdf(tmp_path / "r.pdf").read_bytes(), "application/pdf")),
        ("files", ("corrupt.pdf", build_corrupt_pdf(tmp_path / "c.pdf").read_bytes(), "application/pdf")),
        ("files", ("fake.pdf", b"<html>not a pdf</html>", "application/pdf")),
    ]
    job = httpx.post(f"{api}/api/collections/inbox/documents", files=files, timeout=60).json()
    stream = f"{api}/api/jobs/{job['id']}/events"
    head = events(stream, limit=2)
    everything = events(stream)
    rest = events(stream, headers={"Last-Event-ID": str(head[-1]["seq"])})

    assert head + rest == everything, "a reconnect lost or repeated events"
    assert [e["seq"] for e in everything] == list(range(1, len(everything) + 1))
    assert all(e["job_id"] == job["id"] for e in everything)
    assert everything[-1]["type"] == "done" and everything[-1]["status"] == "done"
    assert [e["type"] for e in everything].count("done") == 1

    def of(file_name: str) -> list[str]:
        return [e["type"] for e in everything if e["file_name"] == file_name]

    for good in ("legal.pdf", "report.pdf"):
        assert of(good) == ["queued", "parsing", "embedding", "ingested"], of(good)
    assert of("corrupt.pdf") == ["queued", "parsing", "failed"]
    assert of("fake.pdf") == ["failed"]
    reasons = {e["file_name"]: e["reason"] for e in everything if e["type"] == "failed"}
    assert "not a PDF" in reasons["fake.pdf"] and reasons["corrupt.pdf"]

    assert events(stream, headers={"Last-Event-ID": str(len(everything))}) == []
    assert events(f"{stream}?after=3") == everything[3:]
    states = {f["file_name"]: f["status"] for f in httpx.get(f"{api}/api/jobs/{job['id']}").json()["files"]}
    assert states == {
        "legal.pdf": "ingested",
        "report.pdf": "ingested",
        "corrupt.pdf": "failed",
        "fake.pdf": "rejected",
    }
    assert httpx.get(f"{api}/api/jobs/unknown/events").status_code == 404
    assert httpx.get(stream, headers={"Last-Event-ID": "x"}).status_code == 422


def test_documents_ingested_from_a_folder_are_served(api: str, root: Path) -> None:
    listed = httpx.get(f"{api}/api/collections/laws/documents").json()
    assert {d["file_name"] for d in listed} == {"PrüfG.pdf", "report.pdf"}
    folder = root / "kb" / "laws"
    for document in listed:
        original = (folder / document["file_name"]).read_bytes()
        whole = httpx.get(f"{api}/api/documents/{document['id']}/pdf")
        assert whole.status_code == 200 and whole.content == original
        part = httpx.get(f"{api}/api/documents/{document['id']}/pdf", headers={"Range": "bytes=0-99"})
        assert part.status_code == 206 and part.content == original[:100]
        by_name = httpx.get(f"{api}/api/collections/laws/documents/{document['file_name']}/pdf")
        assert by_name.status_code == 200 and by_name.content == original

    # moved: not served from where it is gone; ingesting the new place (unchanged files) records it
    report_id = next(d["id"] for d in listed if d["file_name"] == "report.pdf")
    moved = root / "moved" / "laws"
    shutil.move(folder, moved)
    gone = httpx.get(f"{api}/api/documents/{report_id}/pdf")
    assert gone.status_code == 404 and "ingest the collection again" in gone.json()["error"]["message"]
    _ingest(moved, root / "data")
    back = httpx.get(f"{api}/api/documents/{report_id}/pdf")
    assert back.status_code == 200 and back.content == (moved / "report.pdf").read_bytes()

    # changed on disk since it was ingested: its pages and offsets no longer fit, so it is not served
    with (moved / "report.pdf").open("ab") as handle:
        handle.write(b"\n% edited")
    assert httpx.get(f"{api}/api/documents/{report_id}/pdf").status_code == 404
