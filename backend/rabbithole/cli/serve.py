"""`rabbithole serve`: the web API."""

from __future__ import annotations

import os

import typer

from rabbithole.cli.errors import handle_errors


def register(app: typer.Typer) -> None:
    @app.command()
    @handle_errors
    def serve(
        host: str | None = typer.Option(
            None, help="Interface to listen on (default: server.host, 127.0.0.1). Others need a token."
        ),
        port: int | None = typer.Option(None, help="Port to listen on (default: server.port, 8000)."),
        reload: bool = typer.Option(False, help="Reload on code changes (development)."),
    ) -> None:
        """Serve the Rabbithole API (and the web app once built)."""
        import uvicorn

        from rabbithole.core.config import load_settings

        # The options become the settings the app factory loads (in this process or uvicorn's reloader).
        if host is not None:
            os.environ["RABBITHOLE_SERVER__HOST"] = host
        if port is not None:
            os.environ["RABBITHOLE_SERVER__PORT"] = str(port)
        settings = load_settings()  # bad settings end here with one message naming the variable
        settings.server.require_token_off_loopback()
        if settings.database.url:
            # the schema migrated before the server starts (workers starting at once take turns); a database
            # that cannot be reached ends here as bad settings do, naming its host and database
            from rabbithole.migrations import migrate

            storage = settings.storage
            migrate(settings.database.url, storage.catalog_path, storage.sqlite_busy_timeout_ms)
        uvicorn.run(
            "rabbithole.api.main:create_app",
            factory=True,
            host=settings.server.host,
            port=settings.server.port,
            reload=reload,
            root_path=settings.server.root_path,
        )
