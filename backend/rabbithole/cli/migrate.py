"""`rabbithole migrate`: bring the database's schema up to date (PostgreSQL through its Alembic migrations;
the embedded SQLite catalog is brought up to date the way every start does). Every start migrates too; this
command does it before the servers start, and says what it did."""

from __future__ import annotations

import typer

from rabbithole.cli.errors import handle_errors


def register(app: typer.Typer) -> None:
    @app.command()
    @handle_errors
    def migrate() -> None:
        """Bring the database's schema up to date (RABBITHOLE_DATABASE__URL, or the SQLite catalog)."""
        from rabbithole.core.config import load_settings
        from rabbithole.migrations import migrate as migrate_database

        settings = load_settings()
        storage = settings.storage
        message = migrate_database(
            settings.database.url, storage.catalog_path, storage.sqlite_busy_timeout_ms
        )
        typer.echo(message)
