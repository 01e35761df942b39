"""`rabbithole mcp`: the MCP server on standard input and output (for Claude Desktop, editors, agents).
Streamable HTTP is served by `rabbithole serve` at /mcp."""

from __future__ import annotations

import typer

from rabbithole.cli.errors import handle_errors


def register(app: typer.Typer) -> None:
    @app.command()
    @handle_errors
    def mcp() -> None:
        """Serve the Model Context Protocol over stdio: search, trace, references, research runs."""
        from rabbithole.core.config import load_settings
        from rabbithole.mcp.transports import serve_stdio

        serve_stdio(load_settings())  # bad settings end here with one message naming the variable
