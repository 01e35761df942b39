"""The HTTP API over a real socket: uvicorn serving create_app(), httpx as the client; over embedded Chroma
and over a `chroma run` server."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from fixtures.api_server import serving, wait_ready
from fixtures.pdfs import build_corrupt_pdf, build_law_folder
from rabbithole.api.main import create_app
from rabbithole.core.config import load_settings
from rabbithole.services import Services


def _get(url: str, **kwargs: Any) -> httpx.Response:
    """GET with a generous timeout: on a loaded machine a first search can take longer than httpx's default
    5 s (a guard against hanging, not a speed check)."""
    return httpx.get(url, timeout=kwargs.pop("timeout", 120.0), **kwargs)


@pytest.fixture(scope="module", params=["embedded", "server"])
def api(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The API over embedded Chroma, and over a database of its own on the session's Chroma server."""
    root = tmp_path_factory.mktemp("api")
    folder = root / "kb" / "laws"
    build_law_folder(folder)
    build_corrupt_pdf(folder / "broken.pdf")
    vectors: dict[str, Any] = {}
    if request.param == "server":
        server = request.getfixturevalue("chroma_server")
        server.start()
        vectors = server.vectors().model_dump()
    settings = load_settings(storage={"data_dir": root / "data"}, vectors=vectors)
    with Services(settings) as services:
        services.ingestion_pipeline().ingest(folder)

    with serving(create_app(settings)) as url:
        wait_ready(url)
        yield url


def test_health(api: str) -> None:
    body = _get(f"{api}/health").json()
    assert body["ready"] is True and body["warm_up_error"] is None
    assert body["collections"] == 1
    assert body["store"]["ok"] and body["database"]["ok"]
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
    assert "nope" in missing.json()["error"]["message"]
    assert "laws" not in missing.text, "a 404 does not list the collections that exist"
    bad_range = _get(
        f"{api}/api/search", params={"q": "x", "collection": "laws", "page_from": 3, "page_to": 1}
    )
    assert bad_range.status_code == 422
    assert "page_from" in bad_range.json()["error"]["message"]
    no_query = _get(f"{api}/api/search", params={"collection": "laws"})
    assert no_query.status_code == 422
    assert no_query.json()["error"]["type"] == "ValidationError"
    assert no_query.json()["error"]["details"][0]["location"] == "query.q"


def test_openapi_describes_the_search(api: str) -> None:
    spec = _get(f"{api}/openapi.json").json()
    assert "/api/search" in spec["paths"]
    assert "SearchResultItem" in spec["components"]["schemas"]


def test_documents_are_listed_with_their_status(api: str) -> None:
    documents = _get(f"{api}/api/collections/laws/documents").json()
    assert [(d["file_name"], d["status"]) for d in documents] == [
        ("PrüfG.pdf", "ingested"),
        ("broken.pdf", "failed"),
        ("report.pdf", "ingested"),
    ]
    broken = documents[1]
    assert broken["reason"] and broken["chunks"] == 0
    assert documents[0]["pages"] >= 1 and documents[0]["chunks"] >= 1 and documents[0]["reason"] is None
    assert _get(f"{api}/api/collections/nope/documents").status_code == 404


def test_page_texts_carry_their_offsets(api: str) -> None:
    pages = _get(f"{api}/api/collections/laws/documents/PrüfG.pdf/pages").json()
    assert [p["number"] for p in pages] == list(range(1, len(pages) + 1))
    assert pages[0]["offset"] == 0
    for before, after in itertools.pairwise(pages):
        assert after["offset"] >= before["offset"] + len(before["text"])
    assert any("Genehmigung" in p["text"] for p in pages)
    one = _get(f"{api}/api/collections/laws/documents/PrüfG.pdf/pages", params={"page": 1}).json()
    assert one == pages[:1]
    missing = _get(f"{api}/api/collections/laws/documents/nope.pdf/pages")
    assert missing.status_code == 404 and missing.json()["error"]["type"] == "DocumentNotFoundError"


def test_the_registry_is_readable(api: str) -> None:
    registry = _get(f"{api}/api/collections/laws/registry").json()
    assert "PrüfG.pdf" in str(registry)


def test_collections_are_created_and_deleted(api: str) -> None:
    created = httpx.post(f"{api}/api/collections", json={"name": "scratch"})
    assert created.status_code == 201 and created.json()["documents"] == 0
    again = httpx.post(f"{api}/api/collections", json={"name": "scratch"})
    assert again.status_code == 409 and again.json()["error"]["type"] == "CollectionExistsError"
    bad = httpx.post(f"{api}/api/collections", json={"name": "../etc"})
    assert bad.status_code == 422
    assert "scratch" in [c["name"] for c in _get(f"{api}/api/collections").json()]
    assert _get(f"{api}/api/search", params={"q": "x", "collection": "scratch"}).json()["results"] == []
    assert httpx.delete(f"{api}/api/collections/scratch").status_code == 204
    assert _get(f"{api}/api/collections/scratch").status_code == 404
    assert httpx.delete(f"{api}/api/collections/scratch").status_code == 404


def test_a_deleted_document_is_no_longer_found(api: str) -> None:
    query = {"q": "stations", "collection": "laws", "k": 10}
    assert "report.pdf" in {r["document"] for r in _get(f"{api}/api/search", params=query).json()["results"]}
    assert httpx.delete(f"{api}/api/collections/laws/documents/report.pdf").status_code == 204
    for mode in ("hybrid", "vector", "bm25"):
        results = _get(f"{api}/api/search", params={**query, "mode": mode}).json()["results"]
        assert "report.pdf" not in {r["document"] for r in results}
    names = [d["file_name"] for d in _get(f"{api}/api/collections/laws/documents").json()]
    assert "report.pdf" not in names
    assert httpx.delete(f"{api}/api/collections/laws/documents/report.pdf").status_code == 404


def test_the_reference_graph_links_sections(api: str) -> None:
    graph = _get(f"{api}/api/collections/laws/references/graph").json()
    assert graph["collection"] == "laws"
    documents = {n["document"] for n in graph["nodes"] if n["kind"] == "document"}
    assert {"PrüfG.pdf"} <= documents
    ids = {n["id"] for n in graph["nodes"]}
    assert graph["edges"], "PrüfG cites its own sections"
    assert all(e["source"] in ids and e["target"] in ids and e["count"] >= 1 for e in graph["edges"])
    assert _get(f"{api}/api/collections/nope/references/graph").status_code == 404


def test_the_registry_is_updated(api: str) -> None:
    body = {"documents": {"PrüfG.pdf": {"synonyms": ["Prüfgesetz der Stationen"]}}}
    updated = httpx.put(f"{api}/api/collections/laws/registry", json=body)
    assert updated.status_code == 200, updated.text
    assert "Prüfgesetz der Stationen" in str(updated.json())
    assert "Prüfgesetz der Stationen" in str(_get(f"{api}/api/collections/laws/registry").json())
    bad = httpx.put(
        f"{api}/api/collections/laws/registry", json={"documents": {"PrüfG.pdf": {"colour": "blue"}}}
    )
    assert bad.status_code == 422 and "colour" in bad.json()["error"]["message"]
    assert "Prüfgesetz der Stationen" in str(_get(f"{api}/api/collections/laws/registry").json())
    assert httpx.put(f"{api}/api/collections/nope/registry", json=body).status_code == 404


def test_the_references_of_one_passage_are_resolved(api: str) -> None:
    hits = _get(
        f"{api}/api/search", params={"q": "Ausnahmen bedürfen der Genehmigung", "collection": "laws", "k": 1}
    ).json()["results"]
    passage = hits[0]
    assert passage["section"] == "§ 3a"
    refs = _get(f"{api}/api/collections/laws/passages/{passage['chunk_id']}/references").json()
    to_3 = [r for r in refs if r["section"] == "§ 3"]
    assert to_3, refs
    ref = to_3[0]
    assert ref["resolved"] and ref["document"] == "PrüfG.pdf" and ref["reason"] is None
    assert passage["text"][ref["start"] : ref["end"]] == ref["mention"]
    assert "§ 3" in ref["mention"]
    missing = _get(f"{api}/api/collections/laws/passages/nope/references")
    assert missing.status_code == 404 and missing.json()["error"]["type"] == "NotFoundError"
