"""The MCP tools: collections, search, trace, references in a text, research runs. Each answers with the
API's schema, so a calling model gets document, page, section and the verbatim text with its offsets."""

from __future__ import annotations

import asyncio
from typing import Annotated, Literal

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from rabbithole.api.access import Access
from rabbithole.api.routes.collections import CollectionOut, collection_out
from rabbithole.api.routes.references import PassageReferenceOut, reference_out
from rabbithole.api.runs.schemas import RunDetail
from rabbithole.api.runs.views import run_detail
from rabbithole.core.errors import RunStateError
from rabbithole.llm.health import probe
from rabbithole.mcp.backend import McpBackend
from rabbithole.mcp.errors import tool_errors
from rabbithole.mcp.resources import run_report_uri
from rabbithole.mcp.schemas import RunStarted, TraceOut
from rabbithole.research.context import RunOverrides
from rabbithole.research.models import ResearchResult
from rabbithole.retrieval.filters import MAX_PAGE, SearchFilters
from rabbithole.retrieval.hybrid import SearchMode
from rabbithole.retrieval.schemas import SearchResponse, SearchResultItem
from rabbithole.services import Services

Collections = Annotated[list[str], Field(min_length=1, max_length=20, description="Collection(s) to search.")]
RunId = Annotated[str, Field(min_length=1, max_length=200, description="The run's id (start_research).")]


def _require(services: Services, collections: list[str]) -> None:
    for name in collections:
        services.catalog.require_collection(name)


def _resolve_in_text(
    services: Services, collection: str, text: str, document: str | None, section: str | None
) -> list[PassageReferenceOut]:
    from rabbithole.references.grammar import detect_references
    from rabbithole.references.resolver import Citing

    services.catalog.require_collection(collection)
    resolver = services.reference_engine(collection).resolver
    citing = Citing(document, section)
    return [reference_out(resolver.resolve(ref, citing)) for ref in detect_references(text)]


def _given(ctx: Context | None) -> Context:
    """The context the SDK injects into every call (a parameter with a default only for the schema)."""
    if ctx is None:
        raise RuntimeError("the MCP server gave the tool no context")
    return ctx


def _allowed(access: Access, collections: list[str]) -> None:
    """The collections the request may search and research (accounts mode); CollectionNotFoundError for
    one it may not see, as for one that does not exist."""
    for name in collections:
        access.require_collection(name, "read")


def _check_llm(services: Services) -> None:
    settings = services.settings.llm
    status = probe(settings, settings.resolved_base_url)
    if not status.usable:
        why = status.error or f"model '{settings.model}' is not installed there"
        raise ToolError(f"LLMUnavailableError: the model server at {status.base_url} is unavailable ({why})")


def register_tools(server: MCPServer, backend: McpBackend) -> None:
    @server.tool()
    async def list_collections(ctx: Context) -> list[CollectionOut]:
        """The collections of documents that can be searched and researched."""
        with tool_errors():
            access = await backend.access(ctx)
            infos = await asyncio.to_thread(backend.services.catalog.list_collections)
            default = backend.services.settings.ingestion.ocr
            return [collection_out(c, default) for c in infos if access.sees_collection(c.name)]

    @server.tool()
    async def search(
        query: Annotated[str, Field(min_length=1, max_length=2000, description="The query.")],
        collections: Collections,
        documents: Annotated[
            list[str] | None, Field(description="Only these documents (file names).")
        ] = None,
        sections: Annotated[list[str] | None, Field(description='Only these sections, e.g. "§ 80".')] = None,
        page_from: Annotated[int | None, Field(ge=1, le=MAX_PAGE)] = None,
        page_to: Annotated[int | None, Field(ge=1, le=MAX_PAGE)] = None,
        k: Annotated[int | None, Field(ge=1, le=200, description="How many passages.")] = None,
        mode: SearchMode = "hybrid",
        ctx: Context | None = None,
    ) -> SearchResponse:
        """Hybrid search (vectors and BM25) over the collections: passages with document, page, section and
        their verbatim text with its character offsets in the document."""
        services = backend.services
        with tool_errors():
            _allowed(await backend.access(_given(ctx)), collections)
            filters = SearchFilters.create(
                documents=documents, sections=sections, page_from=page_from, page_to=page_to
            )

            def run() -> SearchResponse:
                _require(services, collections)
                hits = services.searcher.search(query, collections, k=k, filters=filters, mode=mode)
                return SearchResponse(
                    query=query, mode=mode, results=[SearchResultItem.from_hit(h) for h in hits]
                )

            return await asyncio.to_thread(run)

    @server.tool()
    async def trace(
        question: Annotated[str, Field(min_length=1, max_length=2000)],
        collection: Annotated[str, Field(min_length=1)],
        depth: Annotated[int | None, Field(ge=0, le=10, description="Reference hops to follow.")] = None,
        k: Annotated[int | None, Field(ge=1, le=200, description="Search hits to start from.")] = None,
        ctx: Context | None = None,
    ) -> TraceOut:
        """Search, then follow the references in the passages found (§§, articles, annexes, other laws):
        each passage says how it was reached (the chain), and what could not be followed."""
        services = backend.services
        with tool_errors():
            _allowed(await backend.access(_given(ctx)), [collection])

            def run() -> TraceOut:
                _require(services, [collection])
                return TraceOut.of(services.reference_engine(collection).trace(question, depth=depth, k=k))

            return await asyncio.to_thread(run)

    @server.tool()
    async def resolve_references(
        text: Annotated[
            str, Field(min_length=1, max_length=20000, description="Text that cites provisions.")
        ],
        collection: Annotated[
            str, Field(min_length=1, description="The collection whose documents are targets.")
        ],
        source_document: Annotated[
            str | None, Field(description="The document the text comes from (its internal references).")
        ] = None,
        section: Annotated[
            str | None, Field(description='The section the text comes from, e.g. "§ 7".')
        ] = None,
        ctx: Context | None = None,
    ) -> list[PassageReferenceOut]:
        """The references in a text (offsets into it), each resolved to its document and section in the
        collection, or with the reason it could not be."""
        services = backend.services
        with tool_errors():
            _allowed(await backend.access(_given(ctx)), [collection])
            return await asyncio.to_thread(
                _resolve_in_text, services, collection, text, source_document, section
            )

    @server.tool()
    async def start_research(
        question: Annotated[str, Field(min_length=1, max_length=4000)],
        collections: Collections,
        mode: Literal["quick", "interactive"] = "quick",
        ctx: Context | None = None,
    ) -> RunStarted:
        """Start a research run in the background. Quick: no questions, straight to the report. Interactive:
        it asks for clarification and approval of its plan, answered where `answer_at` says. Poll get_run."""
        services, runs = backend.services, backend.runs
        with tool_errors():
            access = await backend.access(_given(ctx))
            _allowed(access, collections)
            await asyncio.to_thread(_require, services, collections)
            await asyncio.to_thread(_check_llm, services)
            record = await runs.create(question, collections, mode, RunOverrides(), created_by=access.user_id)
            if access.principal is not None:  # accounts mode: in the audit log, as the API's runs are
                name = access.principal.user.name
                await asyncio.to_thread(services.accounts.record, "run_started", name, record.id)
        answer_at = (
            None
            if mode == "quick"
            else f"POST /api/runs/{record.id}/resume on the Rabbithole server, or its page in the web app"
        )
        return RunStarted(
            run_id=record.id,
            status=record.status,
            mode=mode,
            report_uri=run_report_uri(record.id),
            answer_at=answer_at,
        )

    @server.tool()
    async def get_run(run_id: RunId, ctx: Context | None = None) -> RunDetail:
        """A run's status, phase, plan, pending question (interrupt) and, once done, its report."""
        with tool_errors():
            access = await backend.access(_given(ctx))
            access.require_run(await backend.runs.runs.get(run_id, with_result=False))
            return await run_detail(backend.runs, run_id)

    @server.tool()
    async def get_report(run_id: RunId, ctx: Context | None = None) -> ResearchResult:
        """A finished run's report: its markdown and numbered sources, each with document, page, section
        and the verbatim quote with its offsets."""
        with tool_errors():
            access = await backend.access(_given(ctx))
            record = await backend.runs.runs.get(run_id)
            access.require_run(record)
            if record.result is None:
                raise RunStateError(f"run {run_id} is {record.status}; its report is not ready")
            return record.result
