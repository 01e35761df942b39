"""A damaged vector index never keeps the server from starting, and is repaired from the catalog.

The damage is real: a collection's HNSW index whose entry point lies outside it, which crashes (segfault in
Chroma's native code) or fails the process that searches it, and a process that had the store open killed with
SIGKILL, as a server that crashed while writing would be. The next server start checks the indexes in a child
process, reports the damaged collection (/health, its detail, a 503 on its searches naming the rebuild) and
serves the others; the rebuild (HTTP or CLI) embeds the catalog's chunks again."""

from __future__ import annotations

import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from fixtures.api_server import server_env, start_server_process, stop_server_process
from fixtures.pdfs import SAMPLE_DIR, build_law_folder

#: byte offset of hnswlib's entry point (int32) in an index's header.bin
ENTRY_POINT_OFFSET = 52


def _env(data_dir: Path) -> dict[str, str]:
    # small chunks: AtG gives ~1,800, enough for Chroma to keep them in a persisted HNSW index (a few
    # hundred stay in its write-ahead log, where there is no index to damage)
    return server_env(
        data_dir, RABBITHOLE_INGESTION__CHUNK_SIZE="150", RABBITHOLE_INGESTION__CHUNK_OVERLAP="0"
    )


def _cli(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rabbithole", *args], env=env, capture_output=True, text=True, timeout=600
    )


def _break_index(data_dir: Path, collection: str) -> None:
    """Point the collection's HNSW entry point far outside the index (a search then reads wild memory)."""
    from rabbithole.store.names import chroma_collection_name

    with sqlite3.connect(data_dir / "chroma" / "chroma.sqlite3") as db:
        (segment,) = db.execute(
            "SELECT s.id FROM segments s JOIN collections c ON s.collection = c.id "
            "WHERE c.name = ? AND s.scope = 'VECTOR'",
            (chroma_collection_name(collection),),
        ).fetchone()
    header = data_dir / "chroma" / segment / "header.bin"
    raw = bytearray(header.read_bytes())
    raw[ENTRY_POINT_OFFSET : ENTRY_POINT_OFFSET + 4] = (2_999_999).to_bytes(4, "little")
    header.write_bytes(bytes(raw))


def _kill_a_process_with_the_store_open(env: dict[str, str]) -> None:
    code = (
        "import time\n"
        "from rabbithole.core.config import load_settings\n"
        "from rabbithole.store.chroma_store import ChromaStore\n"
        "ChromaStore.from_settings(load_settings().storage)\n"
        "print('open', flush=True)\n"
        "time.sleep(600)\n"
    )
    child = subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE, text=True)
    assert child.stdout is not None and child.stdout.readline().strip() == "open"
    child.send_signal(signal.SIGKILL)
    child.wait()


def _search(url: str, collection: str) -> httpx.Response:
    return httpx.get(
        f"{url}/api/search",
        params={"q": "Genehmigung der Behörde", "collection": collection, "mode": "vector"},
        timeout=120,
    )


def _job(url: str, job_id: str) -> dict[str, Any]:
    deadline = time.monotonic() + 300
    while True:
        job: dict[str, Any] = httpx.get(f"{url}/api/jobs/{job_id}", timeout=30).json()
        if job["status"] != "running":
            return job
        assert time.monotonic() < deadline, "the rebuild did not finish"
        time.sleep(0.2)


@pytest.fixture(scope="module")
def ingested(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data folder with collections 'good' (two small PDFs) and 'broken' (AtG of kb/sample)."""
    root = tmp_path_factory.mktemp("damaged-index")
    build_law_folder(root / "kb" / "good")
    (root / "kb" / "broken").mkdir()
    shutil.copy(SAMPLE_DIR / "AtG.pdf", root / "kb" / "broken" / "AtG.pdf")
    done = _cli(_env(root / "data"), "ingest", str(root / "kb"))
    assert done.returncode == 0, done.stderr
    return root / "data"


@pytest.fixture
def damaged(ingested: Path, tmp_path: Path) -> dict[str, str]:
    """A copy of ``ingested`` with the index of 'broken' damaged, left by a process killed with it open."""
    shutil.copytree(ingested, tmp_path / "data")
    env = _env(tmp_path / "data")
    _kill_a_process_with_the_store_open(env)
    _break_index(tmp_path / "data", "broken")  # what it was writing when it died
    return env


def test_a_damaged_index_is_reported_at_start_and_rebuilt(damaged: dict[str, str], tmp_path: Path) -> None:
    server, url = start_server_process(damaged, tmp_path / "server.log")
    try:
        health = httpx.get(f"{url}/health", timeout=60).json()
        assert health["status"] == "degraded" and not health["store"]["ok"]
        (unavailable,) = health["unavailable_collections"]
        # reading it crashes the reader (segfault) or fails, depending on where the wild read lands
        assert unavailable["name"] == "broken" and "is damaged" in unavailable["reason"]
        assert "rabbithole rebuild broken" in unavailable["reason"]

        refused = _search(url, "broken")
        assert refused.status_code == 503, refused.text
        assert refused.json()["error"]["type"] == "DamagedIndexError"
        assert "/api/collections/broken/rebuild" in refused.json()["error"]["message"]
        assert _search(url, "good").json()["results"]  # the others are served
        detail = httpx.get(f"{url}/api/collections/broken", timeout=30).json()
        assert detail["vector_index_damage"] and detail["vector_index_damage"] in unavailable["reason"]
        assert server.poll() is None
    finally:
        stop_server_process(server)

    # a clean restart does not check again, and still never opens the damaged index
    server, url = start_server_process(damaged, tmp_path / "restart.log")
    try:
        assert _search(url, "broken").status_code == 503
        started = httpx.post(f"{url}/api/collections/broken/rebuild", timeout=30)
        assert started.status_code == 202, started.text
        job = _job(url, started.json()["id"])
        assert job["status"] == "done" and job["done"] == job["total"] == 1
        assert job["files"] == [{"file_name": "AtG.pdf", "status": "ingested", "reason": None}]

        hits = _search(url, "broken").json()["results"]
        assert hits and {hit["document"] for hit in hits} == {"AtG.pdf"}
        health = httpx.get(f"{url}/health", timeout=60).json()
        assert health["unavailable_collections"] == [] and health["store"]["ok"]
        assert httpx.get(f"{url}/api/collections/broken", timeout=30).json()["vector_index_damage"] is None
    finally:
        stop_server_process(server)


def test_the_cli_reports_a_damaged_index_and_rebuilds_it(damaged: dict[str, str]) -> None:
    refused = _cli(damaged, "search", "Genehmigung", "--collection", "broken", "--mode", "vector")
    assert refused.returncode == 74, refused.stderr  # the store check ran first: no crash
    assert "damaged" in refused.stderr and "rabbithole rebuild broken" in refused.stderr

    listed = _cli(damaged, "collections")
    assert listed.returncode == 0, listed.stderr
    assert "error: the vector index is damaged" in listed.stdout
    assert "rebuild it: rabbithole rebuild broken" in listed.stdout

    rebuilt = _cli(damaged, "rebuild", "broken")
    assert rebuilt.returncode == 0, rebuilt.stderr
    assert "broken: 1 document, 1797 vectors rebuilt" in rebuilt.stderr

    found = _cli(damaged, "search", "Genehmigung", "--collection", "broken", "--mode", "vector", "--json")
    assert found.returncode == 0, found.stderr
    assert "AtG.pdf" in found.stdout
    assert "damaged" not in _cli(damaged, "collections").stdout
