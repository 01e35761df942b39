"""`rabbithole collections` and `rabbithole registry`: what is ingested, and the names of its documents."""

from __future__ import annotations

import json
import shlex
from typing import Any

import typer

from rabbithole.cli.errors import handle_errors
from rabbithole.cli.ingest import print_report as _print_report
from rabbithole.cli.ocr_languages import OCR_LANGUAGES_HELP, describe_languages, parse_codes
from rabbithole.cli.services import open_services
from rabbithole.core.errors import InvalidRequestError

#: exit code when some documents could not be read again (the rest was)
EXIT_PARTIAL = 3


def register(app: typer.Typer) -> None:
    @app.command()
    @handle_errors
    def collections(
        name: str | None = typer.Argument(None, help="Only this collection (to change its settings)."),
        ocr_languages: str | None = typer.Option(None, "--ocr-languages", help=OCR_LANGUAGES_HELP),
        reread_ocr: bool = typer.Option(
            False,
            "--reread-ocr",
            help="Read the collection's documents that OCR read in other languages again, from their "
            "original files, in its OCR languages.",
        ),
        quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar (--reread-ocr)."),
        as_json: bool = typer.Option(False, "--json", help="JSON output."),
    ) -> None:
        """List collections (how many documents and chunks, the embedding model, the OCR languages), the
        files the last ingestion could not read, with the reason, and a vector index found damaged;
        `rabbithole registry -c NAME` lists a collection's documents. With NAME: that collection, and
        --ocr-languages changes the languages its scans are read in, --reread-ocr reads the documents OCR
        read in other languages again."""
        from rabbithole.cli.ocr_languages import echo_missing, reread, set_languages
        from rabbithole.ingestion.ocr.collection_ocr import collection_ocr
        from rabbithole.store.damage import DAMAGE_FILE, DamageRecord

        if name is None and (ocr_languages is not None or reread_ocr):
            raise InvalidRequestError("--ocr-languages and --reread-ocr need the collection's NAME")
        failed = 0
        with open_services() as services:
            if name is not None:
                services.catalog.require_collection(name)
            if name is not None and ocr_languages is not None:
                set_languages(services, name, parse_codes(ocr_languages))
            if name is not None and reread_ocr:
                report, missing = reread(services, name, quiet)
                _print_report(report)
                echo_missing(missing)
                failed = len(report.failed) + len(missing)
            data: list[dict[str, Any]] = []
            damaged = DamageRecord(services.settings.storage.data_dir / DAMAGE_FILE).load()
            for info in services.catalog.list_collections():
                if name is not None and info.name != name:
                    continue
                ocr = collection_ocr(
                    services.catalog, services.settings.ingestion.ocr, info.name, info.ocr_languages
                )
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
                        "ocr_languages": list(ocr.languages),
                        "ocr_languages_own": ocr.own,
                        "ocr_read_otherwise": sorted(ocr.read_otherwise),
                    }
                )
        if as_json:
            typer.echo(json.dumps(data, ensure_ascii=False, indent=2))
        else:
            _print_collections(data)
        if failed:
            typer.echo(
                f"{failed} document{'s' if failed > 1 else ''} could not be read again (listed above) "
                f"(exit code {EXIT_PARTIAL})",
                err=True,
            )
            raise typer.Exit(code=EXIT_PARTIAL)

    def _print_collections(data: list[dict[str, Any]]) -> None:
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
            otherwise = len(c["ocr_read_otherwise"])
            ocr = describe_languages(c["ocr_languages"], c["ocr_languages_own"], otherwise)
            if otherwise:
                ocr += f": rabbithole collections {shlex.quote(c['name'])} --reread-ocr reads them again"
            console.print(f"  {ocr}", highlight=False)
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
