"""The HTTP API over a real socket: uvicorn serving create_app(), httpx as the client."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import uvicorn

from fixtures.pdfs import build_corrupt_pdf, build_legal_pdf, build_report_pdf
from rabbithole.api.main import create_app
from rabbithole.core.config import load_settings
from rabbithole.services import Services


def _get(url: str, **kwargs: Any) -> httpx.Response:
    """GET with a generous timeout: the first search loads the embedding model, which on a loaded machine
    takes longer than httpx's default 5 s (a guard against hanging, not a speed check)."""
    return httpx.get(url, timeout=120.0, **kwargs)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    root = tmp_path_factory.mktemp("api")
    folder = root / "kb" / "laws"
    folder.mkdir(parents=True)
    build_legal_pdf(folder / "PrüfG.pdf")
    build_report_pdf(folder / "report.pdf")
    build_corrupt_pdf(folder / "broken.pdf")
    settings = load_settings(storage={"data_dir": root / "data"})
    with Services(settings) as services:
        services.ingestion_pipeline().ingest(folder)

    port = _free_port()
    server = uvicorn.Server(
        uvicorn.Config(create_app(settings), host="127.0.0.1", port=port, log_level="warning")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline, "server did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=10)


def test_health(api: str) -> None:
    body = _get(f"{api}/health").json()
    assert body["status"] == "ok"
    assert body["collections"] == 1
    assert body["embedding_model"].startswith("use-multilingual")


def test_collections_report_documents_and_problems(api: str) -> None:
    listing = _get(f"{api}/api/collections").json()
    assert [(c["name"], c["documents"]) for c in listing] == [("laws", 2)]
    detail = _get(f"{api}/api/collections/laws").json()
    assert [d["file_name"] for d in detail["document_list"]] == ["PrüfG.pdf", "report.pdf"]
    assert [(p["file_name"], p["severity"]) for p in detail["problems"]] == [("broken.pdf", "error")]


def test_search_returns_cited_passages(api: str) -> None:
    response = _get(
        f"{api}/api/search", params={"q": "Ausnahmen bedürfen der Genehmigung", "collection": "laws", "k": 3}
    )
    assert response.status_code == 200
    results = response.json()["results"]
    assert 1 <= len(results) <= 3
    top = results[0]
    assert top["document"] == "PrüfG.pdf"
    assert top["section"] == "§ 3a" and top["heading"] == "Ausnahmen"
    assert top["page"] >= 1 and "Genehmigung" in top["text"]
    assert 0.0 <= top["score"] <= 1.0
    assert [r["score"] for r in results] == sorted((r["score"] for r in results), reverse=True)


def test_search_filters_by_document_and_page(api: str) -> None:
    params = {"q": "stations", "collection": "laws", "document": "report.pdf", "page_from": 1, "page_to": 1}
    results = _get(f"{api}/api/search", params=params).json()["results"]
    assert results and all(r["document"] == "report.pdf" and r["page"] == 1 for r in results)


def test_errors_are_clear_json(api: str) -> None:
    missing = _get(f"{api}/api/search", params={"q": "x", "collection": "nope"})
    assert missing.status_code == 404
    assert missing.json()["error"]["type"] == "CollectionNotFoundError"
    assert "laws" in missing.json()["error"]["message"]
    bad_range = _get(
        f"{api}/api/search", params={"q": "x", "collection": "laws", "page_from": 3, "page_to": 1}
    )
    assert bad_range.status_code == 422
    assert "page_from" in bad_range.json()["error"]["message"]
    no_query = _get(f"{api}/api/search", params={"collection": "laws"})
    assert no_query.status_code == 422


def test_openapi_describes_the_search(api: str) -> None:
    spec = _get(f"{api}/openapi.json").json()
    assert "/api/search" in spec["paths"]
    assert "SearchResultItem" in spec["components"]["schemas"]
