"""How `rabbithole research` and `rabbithole report` hand their result over: an optional Word file, then the
result as JSON, as Markdown text, or rendered in the terminal with its warnings."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.console import Console

from rabbithole.core.errors import InvalidRequestError

if TYPE_CHECKING:
    from rabbithole.research.models import ResearchResult


def check_docx_target(docx: Path | None) -> None:
    """Refuse ``--docx`` into a folder that does not exist before the run starts, not after it."""
    if docx is not None and not docx.expanduser().absolute().parent.is_dir():
        raise InvalidRequestError(f"--docx: the folder of {docx} does not exist")


def emit_result(
    result: ResearchResult, markdown: str, *, docx: Path | None, as_json: bool, as_markdown: bool
) -> None:
    """``markdown``: the report's text as printed with ``--markdown`` (a remote run's own rendering)."""
    if docx is not None:
        from rabbithole.research.export.docx import write_docx

        written = write_docx(result, docx.expanduser())
        Console(stderr=True, soft_wrap=True).print(f"report written to {written}", highlight=False)
    if as_json:
        typer.echo(result.model_dump_json(indent=2))
    elif as_markdown:
        typer.echo(markdown)
    else:
        from rich.markdown import Markdown  # markdown-it and its rules: only for a report printed here

        console = Console()
        console.print(Markdown(result.report_markdown))
        for warning in result.warnings:
            console.print(f"[yellow]warning:[/] {warning}", highlight=False)
