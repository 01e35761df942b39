"""`rabbithole report`: a long multi-section report from an outline the user approves (or --yes)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from rabbithole.cli.errors import handle_errors
from rabbithole.cli.run_ids import resolve_run_id
from rabbithole.core.errors import InvalidRequestError, RunStateError

if TYPE_CHECKING:  # the terminal's modules (and rich) are imported when a report runs: fast CLI start-up
    from rich.console import Console

    from rabbithole.cli.run_terminal import Answer
    from rabbithole.research.models import ResearchResult


def _answer(yes: bool, console: Console) -> Answer:
    """Ask for the outline in the terminal, or with --yes approve it as proposed."""

    def answer(payload: dict[str, Any]) -> Any:
        if payload.get("kind") != "outline":
            raise RunStateError(f"the run waits for a {payload.get('kind')} answer: not a report")
        from rabbithole.cli.report_terminal import ask_outline

        return {"action": "approve"} if yes else ask_outline(console, payload)

    return answer


def _report(
    topic: str | None, collections: list[str], yes: bool, resume: str | None, overrides: dict[str, Any]
) -> ResearchResult:
    import asyncio  # only where a run starts: the CLI's start-up does not pay for it

    from rich.console import Console

    from rabbithole.cli.report_terminal import ReportProgress
    from rabbithole.cli.run_terminal import NewRun, run_in_terminal

    console = Console(stderr=True, soft_wrap=True)
    resume = resolve_run_id(resume) if resume else None  # a unique start of the id will do
    new = None if resume else NewRun(topic or "", collections, "report", overrides)
    return asyncio.run(
        run_in_terminal("report", new, resume, _answer(yes, console), ReportProgress(console), console)
    )


def register(app: typer.Typer) -> None:
    @app.command()
    @handle_errors
    def report(
        topic: str | None = typer.Argument(None, help="The report's topic (German, English, ...)."),
        collection: list[str] = typer.Option([], "--collection", "-c", help="Collection(s) to research."),
        guidance: str | None = typer.Option(
            None, "--guidance", "-g", help="Audience, length, required sections."
        ),
        section: list[str] = typer.Option([], "--section", "-s", help="A section the outline should have."),
        refinement_rounds: int | None = typer.Option(
            None, "--refinement-rounds", min=0, max=5, help="Review rounds."
        ),
        yes: bool = typer.Option(False, "--yes", "-y", help="Do not ask: approve the outline as proposed."),
        resume: str | None = typer.Option(
            None,
            "--resume",
            help="Continue a report run that stopped or waits: its id, or a unique start of it.",
        ),
        as_json: bool = typer.Option(False, "--json", help="Print the result as one JSON object."),
        as_markdown: bool = typer.Option(False, "--markdown", help="Print the report as Markdown."),
        docx: Path | None = typer.Option(
            None, "--docx", dir_okay=False, help="Also write the report as a Word document to this file."
        ),
        depth: int | None = typer.Option(None, "--depth", "-d", min=0, max=10, help="Reference hops."),
        k: int | None = typer.Option(None, "--k", "-k", min=1, max=100, help="Hits per query."),
        model: str | None = typer.Option(None, "--model", help="Chat model for this run."),
        concurrency: int | None = typer.Option(
            None, "--concurrency", min=1, max=32, help="Parallel sections."
        ),
    ) -> None:
        """Write a report on a topic: approve the outline, then sections researched in parallel, graded,
        refined and compiled with one citation numbering."""
        if resume is None and (not topic or not topic.strip()):
            raise InvalidRequestError("give a topic (or --resume RUN_ID)")
        if resume is None and not collection:
            raise InvalidRequestError("name the collection to research with --collection")
        overrides = {
            key: value
            for key, value in {
                "depth": depth,
                "k": k,
                "model": model,
                "concurrency": concurrency,
                "guidance": guidance,
                "sections": section or None,
                "refinement_rounds": refinement_rounds,
            }.items()
            if value is not None
        }
        from rabbithole.cli.result_output import check_docx_target, emit_result

        check_docx_target(docx)
        result = _report(topic, collection, yes, resume, overrides)
        emit_result(result, result.report_markdown, docx=docx, as_json=as_json, as_markdown=as_markdown)
