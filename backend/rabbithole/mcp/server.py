"""The MCP server: Rabbithole's tools and resources over one :class:`McpBackend`."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractAsyncContextManager

from mcp.server.mcpserver import MCPServer

from rabbithole import __version__
from rabbithole.mcp.backend import McpBackend
from rabbithole.mcp.resources import register_resources
from rabbithole.mcp.tools import register_tools

INSTRUCTIONS = (
    "Rabbithole searches the user's own documents (PDFs in collections). list_collections, then search or "
    "trace; every passage has document, page, section and its verbatim text with offsets: cite those. "
    "start_research writes a cited report in the background (get_run, get_report)."
)

Lifespan = Callable[[MCPServer[McpBackend]], AbstractAsyncContextManager[McpBackend]]


def build_server(backend: McpBackend, lifespan: Lifespan | None = None) -> MCPServer[McpBackend]:
    """The server; ``lifespan`` opens the backend (stdio), the API server attaches it itself (HTTP)."""
    server: MCPServer[McpBackend] = MCPServer(
        name="rabbithole", version=__version__, instructions=INSTRUCTIONS, lifespan=lifespan
    )
    register_tools(server, backend)
    register_resources(server, backend)
    return server
