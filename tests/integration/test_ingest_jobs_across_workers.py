"""Several API workers over one database, as a team's server runs them: two `rabbithole serve` processes on
each backend (SQLite files with embedded Chroma on one data directory; PostgreSQL with a Chroma server).
An upload through one is answered by the other (the job, its events as SSE), whose searches find the new
document by BM25 at once; a worker killed with `kill -9` in the middle of a job leaves it failed, as
every worker shows it, never running."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from fixtures.api_server import server_env, start_server_process, stop_server_process
from fixtures.pdfs import build_legal_pdf, build_report_pdf
from rabbithole.cli.sse import parse_sse
from rabbithole.core.config import VectorSettings

pytestmark = pytest.mark.timeout(900)


@pytest.fixture
def backend_env(database_url: str, request: pytest.FixtureRequest) -> dict[str, str]:
    """The workers' settings: SQLite and embedded Chroma, or PostgreSQL and a Chroma server."""
    if not database_url:
        return {}
    vectors: VectorSettings = request.getfixturevalue("chroma_vectors")
    return {
        "RABBITHOLE_DATABASE__URL": database_url,
        "RABBITHOLE_VECTORS__URL": vectors.url,
        "RABBITHOLE_VECTORS__DATABASE": vectors.database,
    }


@pytest.fixture
def workers(backend_env: dict[str, str], tmp_path: Path) -> Iterator[list[subprocess.Popen[str] | str]]:
    """Two workers on one data directory and database: [process A, url A, process B, url B]."""
    started: list[subprocess.Popen[str]] = []
    handles: list[subprocess.Popen[str] | str] = []
    try:
        for name in ("a", "b"):
            env = server_env(tmp_path / "data", **backend_env)
            process, url = start_server_process(env, tmp_path / f"worker-{name}.log")
            started.append(process)
            handles += [process, url]
        yield handles
    finally:
        for process in started:
            if process.poll() is None:
                os.kill(process.pid, signal.SIGCONT)  # one the test stopped
            stop_server_process(process)


def _events(url: str) -> list[dict[str, Any]]:
    seen: list[dict[str, Any]] = []
    with httpx.stream("GET", url, timeout=httpx.Timeout(10, read=300)) as response:
        assert response.status_code == 200, response.read()
        for message in parse_sse(response.iter_lines()):
            seen.append(json.loads(message.data))
    return seen


def _bm25(url: str, query: str) -> list[str]:
    response = httpx.get(
        f"{url}/api/search", params={"q": query, "collection": "inbox", "mode": "bm25", "k": 5}, timeout=120
    )
    assert response.status_code == 200, response.text
    return [r["document"] for r in response.json()["results"]]


def _pdfs(tmp_path: Path, names: list[str]) -> list[tuple[str, tuple[str, bytes, str]]]:
    build = {"legal": build_legal_pdf, "report": build_report_pdf}
    return [
        (
            "files",
            (
                f"{name}.pdf",
                build[name.split("-")[0]](tmp_path / f"{name}.pdf").read_bytes(),
                "application/pdf",
            ),
        )
        for name in names
    ]


def test_a_job_is_answered_by_every_worker_and_a_killed_workers_job_fails(
    workers: list[Any], tmp_path: Path
) -> None:
    process_a, a, _process_b, b = workers
    assert httpx.post(f"{a}/api/collections", json={"name": "inbox"}).status_code == 201
    assert _bm25(b, "measurement stations report") == []  # b has read the empty collection's index

    # uploaded through a, followed through b: the job and every event, as a shows them
    started = httpx.post(
        f"{a}/api/collections/inbox/documents", files=_pdfs(tmp_path, ["report"]), timeout=60
    )
    assert started.status_code == 202, started.text
    job_id = started.json()["id"]
    followed = _events(f"{b}/api/jobs/{job_id}/events")
    assert [e["type"] for e in followed] == ["queued", "parsing", "embedding", "ingested", "done"]
    assert [e["seq"] for e in followed] == [1, 2, 3, 4, 5]
    assert followed[-1]["status"] == "done"
    on_b = httpx.get(f"{b}/api/jobs/{job_id}").json()
    assert on_b == httpx.get(f"{a}/api/jobs/{job_id}").json()
    assert on_b["status"] == "done" and on_b["files"] == [
        {"file_name": "report.pdf", "status": "ingested", "reason": None}
    ]
    assert _events(f"{a}/api/jobs/{job_id}/events") == followed
    # b searched the collection before a ingested into it: its BM25 index follows the collection at once
    assert _bm25(b, "measurement stations report")[0] == "report.pdf"

    # a stopped in the middle of a job, then killed: b ends the job as failed, never leaves it running
    second = httpx.post(
        f"{a}/api/collections/inbox/documents",
        files=_pdfs(tmp_path, ["legal", "report-2", "report-3"]),
        timeout=60,
    )
    os.kill(process_a.pid, signal.SIGSTOP)
    job_id = second.json()["id"]
    assert httpx.get(f"{b}/api/jobs/{job_id}").json()["status"] == "running"  # a's lease holds while stopped
    os.kill(process_a.pid, signal.SIGKILL)
    process_a.wait(timeout=30)
    ended = httpx.get(f"{b}/api/jobs/{job_id}").json()
    assert ended["status"] == "failed"
    assert f"process {process_a.pid}" in ended["error"] and "stopped before it finished" in ended["error"]
    assert "pending" not in {f["status"] for f in ended["files"]}
    tail = _events(f"{b}/api/jobs/{job_id}/events")
    assert tail[-1]["type"] == "done" and tail[-1]["status"] == "failed"
    assert [e["seq"] for e in tail] == list(range(1, len(tail) + 1))
