"""The MCP resources: a document's page text (``rabbithole://COLLECTION/DOCUMENT/PAGE``) and a finished run's
report (``rabbithole://runs/RUN_ID``, markdown). Names are percent-encoded in the URI."""

from __future__ import annotations

import asyncio
from urllib.parse import quote, unquote

from mcp.server.mcpserver import Context, MCPServer

from rabbithole.core.errors import DocumentNotFoundError, InvalidRequestError, RunStateError
from rabbithole.mcp.backend import McpBackend
from rabbithole.mcp.errors import resource_errors
from rabbithole.services import Services

PAGE_TEMPLATE = "rabbithole://{collection}/{document}/{page}"
REPORT_TEMPLATE = "rabbithole://runs/{run_id}"


def page_uri(collection: str, document: str, page: int) -> str:
    return f"rabbithole://{quote(collection, safe='')}/{quote(document, safe='')}/{page}"


def run_report_uri(run_id: str) -> str:
    return f"rabbithole://runs/{quote(run_id, safe='')}"


def _page_text(services: Services, collection: str, document: str, page: str) -> str:
    if not page.isdigit() or int(page) < 1:
        raise InvalidRequestError(f"page must be a page number from 1, got '{page}'")
    services.catalog.require_collection(collection)
    pages = services.catalog.pages(collection, document)
    found = next((p for p in pages if p.number == int(page)), None)
    if found is None:
        raise DocumentNotFoundError(f"'{document}' of collection '{collection}' has no page {page}")
    return found.text


def register_resources(server: MCPServer, backend: McpBackend) -> None:
    @server.resource(PAGE_TEMPLATE, name="page", mime_type="text/plain")
    async def page(collection: str, document: str, page: str, ctx: Context) -> str:
        """The body text of one page of a document (search and trace offsets index the document's text;
        get the page of a passage from its `page`)."""
        with resource_errors():
            (await backend.access(ctx)).require_collection(unquote(collection), "read")
            return await asyncio.to_thread(
                _page_text, backend.services, unquote(collection), unquote(document), unquote(page)
            )

    @server.resource(REPORT_TEMPLATE, name="report", mime_type="text/markdown")
    async def report(run_id: str, ctx: Context) -> str:
        """A finished research run's report, in markdown with numbered sources."""
        with resource_errors():
            access = await backend.access(ctx)
            record = await backend.runs.runs.get(unquote(run_id))
            access.require_run(record)
            if record.result is None:
                raise RunStateError(f"run {record.id} is {record.status}; its report is not ready")
            return record.result.report_markdown
