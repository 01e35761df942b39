"""`rabbithole serve`: the web API."""

from __future__ import annotations

import typer

from rabbithole.cli.errors import handle_errors


def register(app: typer.Typer) -> None:
    @app.command()
    @handle_errors
    def serve(
        host: str = typer.Option("127.0.0.1", help="Interface to listen on."),
        port: int = typer.Option(8000, help="Port to listen on."),
        reload: bool = typer.Option(False, help="Reload on code changes (development)."),
    ) -> None:
        """Serve the Rabbithole API (and the web app once built)."""
        import uvicorn

        from rabbithole.core.config import load_settings

        load_settings()  # bad settings end here with one message naming the variable, not in uvicorn
        uvicorn.run("rabbithole.api.main:create_app", factory=True, host=host, port=port, reload=reload)
