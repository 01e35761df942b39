"""`rabbithole export FOLDER` and `rabbithole import FOLDER`: move an installation between the embedded
backend (SQLite + embedded Chroma under storage.data_dir) and the server backend (database.url +
vectors.url), either way. Each prints what both sides hold, counted, and fails when the counts differ."""

from __future__ import annotations

from pathlib import Path

import typer

from rabbithole.cli.errors import handle_errors


def _table(title: str, left: str, right: str, moved: object) -> None:
    from rabbithole.transfer.installation import Moved

    assert isinstance(moved, Moved)
    typer.echo(title)
    typer.echo(f"  {'':12} {left:>12} {right:>12}")
    before, after = moved.before.as_dict(), moved.after.as_dict()
    for name, value in before.items():
        typer.echo(f"  {name:12} {value:>12} {after[name]:>12}")
    for note in moved.notes:
        typer.echo(f"note: {note}")


def register(app: typer.Typer) -> None:
    @app.command("export")
    @handle_errors
    def export(
        folder: Path = typer.Argument(..., help="A new (or empty) folder to write the installation into."),
    ) -> None:
        """Write this installation (catalog, runs and events, ingestion jobs, vectors, uploaded PDFs) into
        FOLDER, for `rabbithole import` with other settings (docs/deployment.md, "Moving an installation")."""
        from rabbithole.core.config import load_settings
        from rabbithole.transfer.installation import export_installation

        moved = export_installation(load_settings(), folder)
        _table(f"exported {moved.where} into {folder}: counts agree", "installation", "folder", moved)

    @app.command("import")
    @handle_errors
    def import_(
        folder: Path = typer.Argument(..., help="A folder `rabbithole export` wrote."),
        replace: bool = typer.Option(
            False, "--replace", help="Delete what this installation holds first (refused otherwise)."
        ),
    ) -> None:
        """Load FOLDER (written by `rabbithole export`) into this installation, which must be empty (or
        --replace): the embedded one, or the server backend of RABBITHOLE_DATABASE__URL and
        RABBITHOLE_VECTORS__URL."""
        from rabbithole.core.config import load_settings
        from rabbithole.transfer.installation import import_installation

        moved = import_installation(load_settings(), folder, replace=replace)
        _table(f"imported {folder} into {moved.where}: counts agree", "folder", "installation", moved)
