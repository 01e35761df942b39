"""`rabbithole rebuild COLLECTION`: rebuild a collection's vectors from the catalog (the repair of a damaged
vector index; the documents, their texts and the PDFs are not needed)."""

from __future__ import annotations

import typer

from rabbithole.cli.errors import handle_errors
from rabbithole.cli.services import open_services


def register(app: typer.Typer) -> None:
    @app.command()
    @handle_errors
    def rebuild(
        collection: str = typer.Argument(..., help="The collection whose vectors are rebuilt."),
        quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress line per document."),
    ) -> None:
        """Rebuild a collection's vector index from the catalog (after it was reported damaged)."""
        with open_services() as services:

            def progress(done: int, total: int, file_name: str) -> None:
                if not quiet:
                    typer.echo(f"[{done}/{total}] {file_name}", err=True)

            report = services.rebuild_vectors(collection, progress)
        documents = f"{report.documents} document{'' if report.documents == 1 else 's'}"
        typer.echo(f"{report.collection}: {documents}, {report.vectors} vectors rebuilt", err=True)
