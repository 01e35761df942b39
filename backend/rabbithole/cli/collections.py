"""`rabbithole collections` and `rabbithole registry`: what is ingested, and the names of its documents."""

from __future__ import annotations

import json
import shlex
from typing import Any

import typer

from rabbithole.cli.errors import handle_errors
from rabbithole.cli.services import open_services


def register(app: typer.Typer) -> None:
    @app.command()
    @handle_errors
    def collections(as_json: bool = typer.Option(False, "--json", help="JSON output.")) -> None:
        """List collections (how many documents and chunks, the embedding model), the files the last
        ingestion could not read, with the reason, and a vector index found damaged; `rabbithole registry
        -c NAME` lists a collection's documents."""
        from rabbithole.store.damage import DAMAGE_FILE, DamageRecord

        with open_services() as services:
            data: list[dict[str, Any]] = []
            damaged = DamageRecord(services.settings.storage.data_dir / DAMAGE_FILE).load()
            for info in services.catalog.list_collections():
                data.append(
                    {
                        "name": info.name,
                        "embedding_model": info.embedding_model,
                        "documents": info.documents,
                        "chunks": info.chunks,
                        "problems": [
                            {"file": p.file_name, "kind": p.kind, "severity": p.severity, "reason": p.reason}
                            for p in services.catalog.problems(info.name)
                        ],
                        "vector_index_damage": damaged.get(info.name),
                    }
                )
        if as_json:
            typer.echo(json.dumps(data, ensure_ascii=False, indent=2))
            return
        from rich.console import Console  # rich where a command prints: the CLI starts without it

        console = Console(soft_wrap=True)
        if not data:
            console.print("no collections yet: run `rabbithole ingest kb`")
        for c in data:
            documents = f"{c['documents']} document{'' if c['documents'] == 1 else 's'}"
            console.print(
                f"[bold]{c['name']}[/]: {documents}, {c['chunks']} chunks ({c['embedding_model']})",
                highlight=False,
            )
            for p in c["problems"]:
                console.print(f"  {p['severity']}: {p['file']}: {p['reason']}", highlight=False)
            if c["vector_index_damage"]:
                console.print(
                    f"  error: the vector index is damaged ({c['vector_index_damage']}); rebuild it: "
                    f"rabbithole rebuild {shlex.quote(c['name'])}",
                    highlight=False,
                )

    @app.command()
    @handle_errors
    def registry(
        collection: str = typer.Option(..., "--collection", "-c", help="The collection."),
        resolve: str | None = typer.Option(None, help='Resolve a name, e.g. "des Atomgesetzes".'),
        as_json: bool = typer.Option(False, "--json", help="JSON output."),
    ) -> None:
        """Show a collection's document registry (titles, abbreviations, synonyms), or resolve a name."""
        with open_services() as services:
            services.catalog.require_collection(collection)
            reg = services.registry(collection)
        if resolve is not None:
            hit = reg.resolve(resolve)
            out = (
                None
                if hit is None
                else {
                    "document": hit.document,
                    "synonym": hit.synonym,
                    "match": str(hit.match),
                    "confidence": hit.confidence,
                }
            )
            typer.echo(json.dumps(out, ensure_ascii=False) if as_json else (out or "unresolved"))
            if hit is None:
                raise typer.Exit(code=1)
            return
        data = reg.to_dict()
        if as_json:
            typer.echo(json.dumps(data, ensure_ascii=False, indent=2))
            return
        from rich.console import Console
        from rich.table import Table

        table = Table("document", "abbreviation", "short names", "synonyms")
        for entry in reg.entries:
            table.add_row(
                entry.file_name, entry.abbreviation, ", ".join(entry.short_names), str(len(entry.synonyms))
            )
        Console().print(table)
