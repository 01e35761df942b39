"""A Chroma server (vectors.url) that is down: at start, or stopped in the middle of an ingestion or between
searches. Real `chroma run` (tests/fixtures/chroma_server.py), real ingestion, real uvicorn, the real CLI."""

from __future__ import annotations

import json
import os
import shutil
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from fixtures.api_server import serving, wait_ready
from fixtures.chroma_server import ChromaServer
from fixtures.cli_runs import rabbithole
from fixtures.pdfs import build_law_folder, build_legal_pdf, build_report_pdf
from fixtures.services import ServicesFactory
from rabbithole.api.main import create_app
from rabbithole.core.config import VectorSettings, load_settings
from rabbithole.ingestion.reports import IngestEvent
from rabbithole.services import Services


def _four_files(folder: Path) -> list[str]:
    build_law_folder(folder)  # PrüfG.pdf, report.pdf
    build_legal_pdf(folder / "ZweitG.pdf")
    build_report_pdf(folder / "Messungen.pdf")
    return sorted(p.name for p in folder.iterdir())


def _assert_catalog_and_vectors_agree(services: Services, collection: str) -> None:
    in_catalog = Counter(chunk.document for chunk in services.catalog.chunks(collection))
    assert services.store.open(collection).documents() == dict(in_catalog)


@pytest.mark.timeout(600)
def test_a_server_stopped_during_an_ingestion_fails_the_files_left_and_a_rerun_makes_both_agree(
    tmp_path: Path,
    make_services: ServicesFactory,
    chroma_server: ChromaServer,
    chroma_vectors: VectorSettings,
) -> None:
    folder = tmp_path / "laws"
    files = _four_files(folder)
    services = make_services(vectors=chroma_vectors.model_dump())
    stored: list[str] = []

    def stop_after_the_first_file(event: IngestEvent) -> None:
        if event.stage == "stored" and not stored:  # on the writer thread: the next write finds it down
            stored.append(event.file_name)
            chroma_server.stop()

    try:
        ingested = services.ingestion_pipeline().ingest(folder, progress=stop_after_the_first_file)
    finally:
        chroma_server.start()

    report = ingested.collections[0]
    assert report.added == stored and report.updated == []
    failed = {p.file_name: p for p in report.failed}
    assert sorted(failed) == sorted(set(files) - set(stored))
    for problem in failed.values():
        assert problem.kind == "not_indexed"
        assert chroma_server.url in problem.reason and "the next ingestion indexes it again" in problem.reason
    # the catalog holds what has vectors, and says which files failed
    assert [d.file_name for d in services.catalog.documents("laws")] == stored
    assert {p.file_name for p in services.catalog.problems("laws")} == set(failed)
    _assert_catalog_and_vectors_agree(services, "laws")

    again = make_services(vectors=chroma_vectors.model_dump()).ingestion_pipeline().ingest(folder)
    rerun = again.collections[0]
    assert sorted(rerun.added) == sorted(failed) and rerun.failed == [] and rerun.unchanged == stored
    assert sorted(d.file_name for d in services.catalog.documents("laws")) == files
    assert services.catalog.problems("laws") == []
    _assert_catalog_and_vectors_agree(services, "laws")
    hits = services.searcher.search("Ausnahmen bedürfen der Genehmigung", "laws", k=3, mode="vector")
    assert hits


@pytest.mark.timeout(600)
def test_changed_files_met_by_a_server_that_is_down_keep_their_earlier_version(
    tmp_path: Path,
    make_services: ServicesFactory,
    chroma_server: ChromaServer,
    chroma_vectors: VectorSettings,
) -> None:
    folder = tmp_path / "laws"
    build_law_folder(folder)
    services = make_services(vectors=chroma_vectors.model_dump())
    services.ingestion_pipeline().ingest(folder)
    before = {d.file_name: d.content_hash for d in services.catalog.documents("laws")}
    shutil.copy(folder / "report.pdf", folder / "PrüfG.pdf")  # PrüfG.pdf changed
    build_legal_pdf(folder / "Neu.pdf")  # a new file

    chroma_server.stop()
    try:
        report = make_services(vectors=chroma_vectors.model_dump()).ingestion_pipeline().ingest(folder)
    finally:
        chroma_server.start()

    collection = report.collections[0]
    assert collection.added == collection.updated == []
    assert sorted(p.file_name for p in collection.failed) == ["Neu.pdf", "PrüfG.pdf"]
    # nothing was written: the earlier version stays, rows and vectors, with its old content hash
    assert {d.file_name: d.content_hash for d in services.catalog.documents("laws")} == before
    _assert_catalog_and_vectors_agree(services, "laws")

    rerun = make_services(vectors=chroma_vectors.model_dump()).ingestion_pipeline().ingest(folder)
    assert rerun.collections[0].updated == ["PrüfG.pdf"] and rerun.collections[0].added == ["Neu.pdf"]
    _assert_catalog_and_vectors_agree(services, "laws")


@pytest.fixture
def served(tmp_path: Path, chroma_vectors: VectorSettings, chroma_server: ChromaServer) -> Iterator[str]:
    """A real uvicorn over a Chroma server's collection "laws"."""
    build_law_folder(tmp_path / "laws")
    settings = load_settings(storage={"data_dir": tmp_path / "data"}, vectors=chroma_vectors.model_dump())
    with Services(settings) as services:
        services.ingestion_pipeline().ingest(tmp_path / "laws")
    with serving(create_app(settings)) as url:
        wait_ready(url)
        yield url
    chroma_server.start()  # a test that stopped it leaves it running for the next


def _search(url: str, **params: Any) -> httpx.Response:
    query = {"q": "Ausnahmen bedürfen der Genehmigung", "collection": "laws", "k": 3, **params}
    return httpx.get(f"{url}/api/search", params=query, timeout=120)


@pytest.mark.timeout(300)
def test_api_searches_fail_by_name_while_the_server_is_down_and_work_again_after(
    served: str, chroma_server: ChromaServer
) -> None:
    found = _search(served)
    assert found.status_code == 200, found.text
    assert found.json()["results"][0]["document"] == "PrüfG.pdf"
    health = httpx.get(f"{served}/health", timeout=60).json()
    assert health["store"] == {"ok": True, "detail": f"chroma (server {chroma_server.url})"}

    chroma_server.stop()
    try:
        for mode in ("hybrid", "vector"):
            refused = _search(served, mode=mode)
            assert refused.status_code == 503, refused.text
            error = refused.json()["error"]
            assert error["type"] == "VectorStoreUnavailableError"
            assert chroma_server.url in error["message"] and "RABBITHOLE_VECTORS__URL" in error["message"]
        health = httpx.get(f"{served}/health", timeout=60).json()
        assert health["store"]["ok"] is False and chroma_server.url in health["store"]["detail"]
    finally:
        chroma_server.start()

    again = _search(served)  # the same server process: no restart needed
    assert again.status_code == 200, again.text
    assert again.json()["results"][0]["document"] == "PrüfG.pdf"


@pytest.mark.timeout(600)
def test_the_cli_names_a_server_that_is_down(
    tmp_path: Path, chroma_server: ChromaServer, chroma_vectors: VectorSettings
) -> None:
    folder = tmp_path / "laws"
    build_law_folder(folder)
    env = {
        **os.environ,
        "RABBITHOLE_STORAGE__DATA_DIR": str(tmp_path / "data"),
        "RABBITHOLE_VECTORS__URL": chroma_vectors.url,
        "RABBITHOLE_VECTORS__DATABASE": chroma_vectors.database,
    }
    chroma_server.stop()
    try:
        ingest = rabbithole(["ingest", str(folder), "--quiet"], env, timeout=300)
        assert ingest.returncode == 3, ingest.stderr  # the files are reported, not ingested
        assert "PrüfG.pdf" in ingest.stderr and "report.pdf" in ingest.stderr
        assert chroma_server.url in ingest.stderr
        search = rabbithole(["search", "Genehmigung", "-c", "laws"], env, timeout=300)
        assert search.returncode == 69, search.stderr  # unavailable, as the other services that are down
        assert chroma_server.url in search.stderr
    finally:
        chroma_server.start()
    ingest = rabbithole(["ingest", str(folder), "--quiet"], env, timeout=300)
    assert ingest.returncode == 0, ingest.stderr
    search = rabbithole(["search", "Genehmigung", "-c", "laws", "--json"], env, timeout=300)
    assert search.returncode == 0, search.stderr
    assert json.loads(search.stdout)[0]["document"] == "PrüfG.pdf"
