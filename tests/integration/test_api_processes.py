"""One truth across processes, tried as a user would: two `rabbithole serve` on one data directory, a
`rabbithole ingest` into a collection both have searched. Searches during and after it succeed, and see
the new document, in every mode."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from fixtures.api_server import server_env, start_server_process, stop_server_process
from fixtures.pdfs import build_legal_pdf, build_report_pdf


def _ingest(folder: Path, data_dir: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "rabbithole", "ingest", str(folder)],
        env=server_env(data_dir),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


@pytest.fixture
def kb(tmp_path: Path) -> Path:
    folder = tmp_path / "kb" / "laws"
    folder.mkdir(parents=True)
    build_legal_pdf(folder / "PrüfG.pdf")
    done = _ingest(folder, tmp_path / "data")
    assert done.wait(timeout=300) == 0, done.stderr.read() if done.stderr else ""
    return folder


@pytest.fixture
def servers(kb: Path, tmp_path: Path) -> Iterator[list[str]]:
    """Two servers on the data directory of ``kb``, each on its own free port, ready, their output kept
    (and shown when one does not start)."""
    started: list[subprocess.Popen[str]] = []
    urls: list[str] = []
    try:
        for n in range(2):
            process, url = start_server_process(server_env(tmp_path / "data"), tmp_path / f"server-{n}.log")
            started.append(process)
            urls.append(url)
        yield urls
    finally:
        for process in started:
            stop_server_process(process)


def _documents(url: str, mode: str) -> list[str]:
    response = httpx.get(
        f"{url}/api/search",
        params={"q": "measurement stations report", "collection": "laws", "k": 10, "mode": mode},
        timeout=60,
    )
    assert response.status_code == 200, response.text
    return [r["document"] for r in response.json()["results"]]


def test_servers_see_what_another_process_ingests(kb: Path, servers: list[str], tmp_path: Path) -> None:
    for url in servers:
        for mode in ("hybrid", "vector"):
            assert set(_documents(url, mode)) == {"PrüfG.pdf"}  # loads the collection's indexes

    build_report_pdf(kb / "report.pdf")
    ingestion = _ingest(kb, tmp_path / "data")
    during = 0
    while ingestion.poll() is None:  # searches while the other process writes succeed
        _documents(servers[during % 2], ("hybrid", "vector")[during % 2])
        during += 1
    assert ingestion.returncode == 0, ingestion.stderr.read() if ingestion.stderr else ""
    assert during > 0

    for url in servers:
        for mode in ("hybrid", "vector", "bm25"):
            assert "report.pdf" in _documents(url, mode), (url, mode)
