"""The HTTP API over a real socket: uvicorn serving create_app(), httpx as the client."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from fixtures.api_server import serving, wait_ready
from fixtures.pdfs import build_corrupt_pdf, build_legal_pdf, build_report_pdf
from rabbithole.api.main import create_app
from rabbithole.core.config import load_settings
from rabbithole.services import Services


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

    with serving(create_app(settings)) as url:
        wait_ready(url)
        yield url


def test_health(api: str) -> None:
    body = httpx.get(f"{api}/health").json()
    assert body["ready"] is True and body["warm_up_error"] is None
    assert body["collections"] == 1
    assert body["store"]["ok"] and body["database"]["ok"]
    assert body["embedding_model"].startswith("use-multilingual")


def test_collections_report_documents_and_problems(api: str) -> None:
    listing = httpx.get(f"{api}/api/collections").json()
    assert [(c["name"], c["documents"]) for c in listing] == [("laws", 2)]
    detail = httpx.get(f"{api}/api/collections/laws").json()
    assert [d["file_name"] for d in detail["document_list"]] == ["PrüfG.pdf", "report.pdf"]
    assert [(p["file_name"], p["severity"]) for p in detail["problems"]] == [("broken.pdf", "error")]


def test_search_returns_cited_passages(api: str) -> None:
    response = httpx.get(
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
    results = httpx.get(f"{api}/api/search", params=params).json()["results"]
    assert results and all(r["document"] == "report.pdf" and r["page"] == 1 for r in results)


def test_errors_are_clear_json(api: str) -> None:
    missing = httpx.get(f"{api}/api/search", params={"q": "x", "collection": "nope"})
    assert missing.status_code == 404
    assert missing.json()["error"]["type"] == "CollectionNotFoundError"
    assert "nope" in missing.json()["error"]["message"]
    assert "laws" not in missing.text, "a 404 does not list the collections that exist"
    bad_range = httpx.get(
        f"{api}/api/search", params={"q": "x", "collection": "laws", "page_from": 3, "page_to": 1}
    )
    assert bad_range.status_code == 422
    assert "page_from" in bad_range.json()["error"]["message"]
    no_query = httpx.get(f"{api}/api/search", params={"collection": "laws"})
    assert no_query.status_code == 422
    assert no_query.json()["error"]["type"] == "ValidationError"
    assert no_query.json()["error"]["details"][0]["location"] == "query.q"


def test_openapi_describes_the_search(api: str) -> None:
    spec = httpx.get(f"{api}/openapi.json").json()
    assert "/api/search" in spec["paths"]
    assert "SearchResultItem" in spec["components"]["schemas"]
