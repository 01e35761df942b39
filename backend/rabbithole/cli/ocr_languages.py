"""The CLI's part of a collection's OCR languages: `rabbithole collections NAME --ocr-languages deu,eng`
(or `default`), `rabbithole collections NAME --reread-ocr`, and `rabbithole ingest ... --ocr-languages`."""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer

from rabbithole.core.errors import InvalidRequestError

if TYPE_CHECKING:
    from rabbithole.ingestion.reports import IngestEvent, IngestReport
    from rabbithole.services import Services

#: what --ocr-languages takes to go back to the server's default
DEFAULT_WORD = "default"
OCR_LANGUAGES_HELP = (
    "The Tesseract languages the collection's scans and images are read in, in order: codes joined by ',' "
    "or '+' (deu,eng), as `tesseract --list-langs` lists them; 'default' for the server's "
    "ingestion.ocr.languages."
)


def parse_codes(text: str) -> list[str]:
    """``deu,eng`` or ``deu+eng`` as a list of codes; ``default`` (or nothing) as []."""
    if text.strip().lower() == DEFAULT_WORD:
        return []
    codes = [code.strip() for code in text.replace("+", ",").split(",")]
    if not all(codes):
        raise InvalidRequestError(
            f"--ocr-languages '{text}': give codes joined by ',' (deu,eng), or '{DEFAULT_WORD}'"
        )
    return codes


def set_languages(services: Services, collection: str, codes: list[str], *, create: bool = False) -> None:
    """The collection's OCR languages (checked: OcrLanguageError names a code that cannot be used); a
    collection that does not exist yet is created first where ``create``."""
    if create and services.catalog.collection(collection) is None:
        services.create_collection(collection, codes)
        return
    services.set_ocr_languages(collection, codes)


def reread(services: Services, collection: str, quiet: bool) -> tuple[IngestReport, dict[str, str]]:
    """Read the collection's documents that OCR read in other languages again, from their originals; the
    report, and the documents whose original is gone (with the reason). NothingToRereadError when none."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    from rabbithole.ingestion.ocr.collection_ocr import reread_plan
    from rabbithole.ingestion.reports import IngestReport

    services.catalog.require_collection(collection)
    plan = reread_plan(services.catalog, services.settings.ingestion.ocr, collection, services.uploads.find)
    report = IngestReport()
    pipeline = services.ingestion_pipeline()
    console = Console(stderr=True)
    with Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[file]}"),
        console=console,
        disable=quiet,
    ) as progress:
        task = progress.add_task(collection, total=len(plan.file_names), file="")

        def on_event(event: IngestEvent) -> None:
            if event.stage == "file":
                progress.advance(task)
            progress.update(task, file=event.file_name)

        report.collections.extend(plan.read_again(pipeline, collection, on_event))
    return report, plan.missing


def describe_languages(languages: list[str], own: bool, read_otherwise: int) -> str:
    """``OCR in deu+eng (the server's default); 2 documents read in other languages``."""
    where = "its own" if own else "the server's default"
    line = f"OCR in {'+'.join(languages)} ({where})"
    if read_otherwise:
        plural = "s" if read_otherwise != 1 else ""
        line += f"; {read_otherwise} document{plural} read by OCR in other languages"
    return line


def echo_missing(missing: dict[str, str]) -> None:
    for file_name, reason in missing.items():
        typer.echo(f"{file_name}: not read again: {reason}", err=True)
