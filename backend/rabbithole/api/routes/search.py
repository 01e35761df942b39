"""GET /api/search: hybrid search with metadata filters."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from starlette.concurrency import run_in_threadpool

from rabbithole.api.deps import ServicesDep
from rabbithole.api.errors import responses
from rabbithole.retrieval.filters import MAX_PAGE, SearchFilters
from rabbithole.retrieval.hybrid import SearchMode
from rabbithole.retrieval.schemas import SearchResponse, SearchResultItem

router = APIRouter(tags=["search"])


@router.get("/search", responses=responses(404, 409, 503))
async def search(
    services: ServicesDep,
    q: Annotated[str, Query(min_length=1, max_length=2000, description="The query.")],
    collection: Annotated[list[str], Query(min_length=1, description="Collection(s) to search.")],
    document: Annotated[list[str] | None, Query(description="Only these documents.")] = None,
    section: Annotated[list[str] | None, Query(description='Only these sections, e.g. "§ 80".')] = None,
    page_from: Annotated[int | None, Query(ge=1, le=MAX_PAGE)] = None,
    page_to: Annotated[int | None, Query(ge=1, le=MAX_PAGE)] = None,
    k: Annotated[int | None, Query(ge=1, le=200)] = None,
    mode: SearchMode = "hybrid",
) -> SearchResponse:
    filters = SearchFilters.create(documents=document, sections=section, page_from=page_from, page_to=page_to)
    hits = await run_in_threadpool(services.searcher.search, q, collection, k=k, filters=filters, mode=mode)
    return SearchResponse(query=q, mode=mode, results=[SearchResultItem.from_hit(h) for h in hits])
