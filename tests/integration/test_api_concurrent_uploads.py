"""Uploads at the same time into one collection, against a real `rabbithole serve` process: 50 parallel
POSTs of one PDF each. Before, jobs swapped in fresh Chroma clients while others still wrote through the old
ones: half the jobs failed ("Error finding id") although their files were stored, the server died of a
segfault in Chroma's native code, and the index it left crashed every start. Now every job ends done with
its file ingested, the index holds every chunk, and the server restarts on it and searches it."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx

from fixtures.api_server import server_env, start_server_process, stop_server_process
from fixtures.pdfs import SAMPLE_DIR
from rabbithole.core.config import load_settings
from rabbithole.store.chroma_store import ChromaStore

UPLOADS = 50
COLLECTION = "c50"
LAWS = 15  #: the laws of kb/sample but the two largest (with the eight smallest, the old code held)


def _uploads() -> list[tuple[str, bytes]]:
    """50 distinct file names over the laws of kb/sample but the two largest (each upload is ingested)."""
    laws = sorted(SAMPLE_DIR.glob("*.pdf"), key=lambda p: p.stat().st_size)[:LAWS]
    return [(f"{n:02d}-{laws[n % LAWS].name}", laws[n % LAWS].read_bytes()) for n in range(UPLOADS)]


def _finished(url: str, job_ids: list[str], server: Any) -> dict[str, dict[str, Any]]:
    jobs: dict[str, dict[str, Any]] = {}
    deadline = time.monotonic() + 900
    while len(jobs) < len(job_ids):
        assert server.poll() is None, f"the server died (exit code {server.returncode})"
        assert time.monotonic() < deadline, f"{len(job_ids) - len(jobs)} jobs did not finish"
        for job_id in job_ids:
            if job_id not in jobs:
                job = httpx.get(f"{url}/api/jobs/{job_id}", timeout=60).json()
                if job["status"] != "running":
                    jobs[job_id] = job
        time.sleep(0.5)
    return jobs


def _search(url: str) -> list[dict[str, Any]]:
    response = httpx.get(
        f"{url}/api/search",
        params={"q": "Zuständigkeit der Behörde", "collection": COLLECTION, "k": 10, "mode": "vector"},
        timeout=120,
    )
    assert response.status_code == 200, response.text
    results: list[dict[str, Any]] = response.json()["results"]
    return results


def test_fifty_parallel_uploads_into_one_collection(tmp_path: Path) -> None:
    env = server_env(tmp_path / "data")
    server, url = start_server_process(env, tmp_path / "server.log")
    try:
        assert httpx.post(f"{url}/api/collections", json={"name": COLLECTION}).status_code == 201
        uploads = _uploads()

        def upload(item: tuple[str, bytes]) -> httpx.Response:
            name, content = item
            files = [("files", (name, content, "application/pdf"))]
            return httpx.post(f"{url}/api/collections/{COLLECTION}/documents", files=files, timeout=300)

        with ThreadPoolExecutor(UPLOADS) as pool:
            started = list(pool.map(upload, uploads))
        assert [r.status_code for r in started] == [202] * UPLOADS
        jobs = _finished(url, [r.json()["id"] for r in started], server)

        # every job done, its file ingested: a job's status matches its files
        assert {(j["status"], j["error"]) for j in jobs.values()} == {("done", None)}
        assert sorted(f["file_name"] for j in jobs.values() for f in j["files"]) == sorted(
            n for n, _ in uploads
        )
        assert {f["status"] for j in jobs.values() for f in j["files"]} == {"ingested"}

        detail = httpx.get(f"{url}/api/collections/{COLLECTION}", timeout=60).json()
        assert detail["documents"] == UPLOADS and detail["vector_index_damage"] is None
        listed = httpx.get(f"{url}/api/collections/{COLLECTION}/documents", timeout=60).json()
        assert {d["status"] for d in listed} == {"ingested"} and len(listed) == UPLOADS
        assert _search(url), "the vector index finds nothing"
    finally:
        stop_server_process(server)

    store = ChromaStore.from_settings(load_settings(storage={"data_dir": tmp_path / "data"}).storage)
    try:
        assert store.open(COLLECTION).count() == detail["chunks"]  # a vector for every chunk
    finally:
        store.close()

    # the index it left opens and answers in a new server, with every chunk the catalog holds
    server, url = start_server_process(env, tmp_path / "restart.log")
    try:
        health = httpx.get(f"{url}/health", timeout=60).json()
        assert health["unavailable_collections"] == [] and health["store"]["ok"], health
        assert len({hit["document"] for hit in _search(url)}) > 1
    finally:
        stop_server_process(server)
