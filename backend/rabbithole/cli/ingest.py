"""`rabbithole ingest PATH`: incremental ingestion with progress bars and a per-file problem report."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from rabbithole.cli.errors import handle_errors
from rabbithole.cli.ocr_languages import OCR_LANGUAGES_HELP, parse_codes, set_languages
from rabbithole.cli.services import open_services
from rabbithole.core.errors import InvalidRequestError

if TYPE_CHECKING:  # rich is imported where progress bars or a problem table are shown
    from rich.progress import TaskID

    from rabbithole.ingestion.reports import IngestEvent, IngestReport
    from rabbithole.services import Services

#: exit code when some files could not be ingested (the rest was)
EXIT_PARTIAL = 3


def register(app: typer.Typer) -> None:
    @app.command()
    @handle_errors
    def ingest(
        path: Path = typer.Argument(
            ...,
            help="A document (PDF, DOCX, HTML, Markdown, text), a collection folder, or a folder of "
            "collections (kb/).",
        ),
        collection: str | None = typer.Option(None, "--collection", "-c", help="Collection name."),
        reindex: bool = typer.Option(False, help="Drop the collection's index and ingest everything anew."),
        quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bars."),
        ocr_languages: str | None = typer.Option(
            None,
            "--ocr-languages",
            help=f"{OCR_LANGUAGES_HELP} Stored as the collection's setting (created where it is new) "
            "before its files are read; without it, each collection's own setting applies.",
        ),
    ) -> None:
        """Ingest documents (PDF, DOCX, HTML, Markdown, text, PNG/JPEG/TIFF images): unchanged files are
        skipped, changed ones replaced, removed ones dropped. Scans are read by OCR in each collection's
        languages (`rabbithole collections NAME --ocr-languages`)."""
        from rabbithole.core.config import load_settings
        from rabbithole.ingestion.unchanged import unchanged_report

        settings = load_settings()
        storage = settings.storage
        # the light path: nothing changed, so nothing heavy needs loading (it reads the SQLite catalog file;
        # with database.url the catalog is in PostgreSQL, and a catalog file there is not the index's)
        codes = parse_codes(ocr_languages) if ocr_languages is not None else None
        if not reindex and not settings.database.url and codes is None:
            timeout = storage.sqlite_busy_timeout_ms
            unchanged = unchanged_report(path, storage.catalog_path, collection, timeout)
            if unchanged is not None:
                print_report(unchanged)
                return
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        console = Console(stderr=True)
        with open_services(settings) as services:
            if codes is not None:
                _set_languages_of(services, path, collection, codes)
            pipeline = services.ingestion_pipeline()
            with Progress(
                TextColumn("[bold]{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("{task.fields[file]}"),
                TimeElapsedColumn(),
                console=console,
                disable=quiet,
                transient=False,
            ) as progress:
                tasks: dict[str, TaskID] = {}

                def on_event(event: IngestEvent) -> None:
                    if event.collection not in tasks:
                        tasks[event.collection] = progress.add_task(
                            event.collection, total=event.total, file=""
                        )
                    progress.update(tasks[event.collection], completed=event.done, file=event.file_name)

                report = pipeline.ingest(path, collection=collection, reindex=reindex, progress=on_event)
        print_report(report)
        if codes is not None:
            _note_read_otherwise(services, report)
        if report.failed:
            count = len(report.failed)
            typer.echo(
                f"{count} file{'s' if count > 1 else ''} could not be ingested (listed above); the rest is "
                f"ingested (exit code {EXIT_PARTIAL})",
                err=True,
            )
            raise typer.Exit(code=EXIT_PARTIAL)


def _set_languages_of(services: Services, path: Path, collection: str | None, codes: list[str]) -> None:
    """--ocr-languages: the languages of the one collection ``path`` holds."""
    from rabbithole.ingestion.discovery import discover

    sources = discover(path, collection)
    if len(sources) != 1:
        names = ", ".join(s.collection for s in sources)
        raise InvalidRequestError(
            f"--ocr-languages sets one collection's languages, and {path} holds {len(sources)} ({names}): "
            "point at one collection's folder, or set each with `rabbithole collections NAME --ocr-languages`"
        )
    set_languages(services, sources[0].collection, codes, create=True)


def _note_read_otherwise(services: Services, report: IngestReport) -> None:
    """Documents left as OCR read them in other languages (unchanged files are not read again)."""
    from rabbithole.ingestion.ocr.collection_ocr import collection_ocr

    for c in report.collections:
        otherwise = collection_ocr(services.catalog, services.settings.ingestion.ocr, c.collection)
        count = len(otherwise.read_otherwise)
        if count:
            typer.echo(
                f"{c.collection}: {count} document{'s' if count > 1 else ''} read by OCR in other languages "
                f"than {'+'.join(otherwise.languages)}; read them again with: rabbithole collections "
                f"{shlex.quote(c.collection)} --reread-ocr",
                err=True,
            )


def print_report(report: IngestReport) -> None:
    """One summary line per collection on stderr, and a table of its problems (rich is imported for the
    table only: a re-run over an unchanged folder prints its line without it)."""
    for c in report.collections:
        typer.echo(
            f"{typer.style(c.collection, bold=True)}: {len(c.added)} added, {len(c.updated)} updated, "
            f"{len(c.unchanged)} unchanged, {len(c.removed)} removed, {len(c.failed)} failed; "
            f"{c.pages} pages, {c.chunks} chunks in {c.seconds:.1f} s",
            err=True,
        )
        if c.problems:
            from rich.console import Console
            from rich.table import Table

            console = Console(stderr=True, soft_wrap=True)
            table = Table("file", "severity", "reason", show_lines=False)
            for p in c.problems:
                colour = "red" if p.severity == "error" else "yellow"
                table.add_row(p.file_name, f"[{colour}]{p.severity}[/]", p.reason)
            console.print(table)
