"""`rabbithole research` (start, answer and resume research runs) and `rabbithole runs` (list them)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from rich.console import Console
from rich.markdown import Markdown
from rich.table import Table

from rabbithole.cli.errors import handle_errors
from rabbithole.cli.research_terminal import END, Progress, ask_clarification, ask_plan
from rabbithole.core.config import load_settings
from rabbithole.core.errors import InvalidRequestError

if TYPE_CHECKING:
    from rabbithole.research.models import ResearchResult
    from rabbithole.research.runner import ResearchRunner, RunView

#: Exit code when the run waits for input nobody gave (stdin closed): EX_TEMPFAIL.
EXIT_WAITING = 75


async def _drive(
    runner: ResearchRunner, view: RunView, yes: bool, console: Console, progress: Progress
) -> RunView:
    """Answer interrupts (ask in the terminal, or the defaults with --yes) until the run ends."""
    while view.interrupt is not None:
        payload = view.interrupt
        if payload.get("kind") == "clarification":
            answer: Any = {"answer": END} if yes else ask_clarification(console, payload)
        else:
            answer = {"tasks": None} if yes else ask_plan(console, payload)
        view = await runner.advance(view.record.id, answer, on_event=progress)
    return view


async def _research(
    question: str | None,
    collections: list[str],
    mode: str,
    yes: bool,
    resume: str | None,
    overrides: dict[str, Any],
) -> ResearchResult:
    from rabbithole.research.runner import ResearchRunner
    from rabbithole.services import Services

    console = Console(stderr=True, soft_wrap=True)
    progress = Progress(console)
    services = Services(load_settings())
    async with services:
        runner = ResearchRunner(services)
        if resume:
            current = await runner.view(resume)
            if current.record.mode == "report":
                raise InvalidRequestError(f"run {resume} is a report: rabbithole report --resume {resume}")
            console.print(
                f"run {resume}: {current.record.status}, phase {current.record.phase or '-'}", highlight=False
            )
            view = (
                current if current.interrupt is not None else await runner.advance(resume, on_event=progress)
            )
        else:
            assert question is not None
            record = runner.create(question, collections, mode, overrides)  # type: ignore[arg-type]
            console.print(f"run {record.id}", highlight=False)
            view = await runner.advance(record.id, on_event=progress)
        try:
            view = await _drive(runner, view, yes, console, progress)
        except typer.Abort:
            console.print(
                f"no answer; the run waits for input: rabbithole research --resume {view.record.id}",
                highlight=False,
            )
            raise typer.Exit(EXIT_WAITING) from None
        assert view.result is not None
        return view.result


def register(app: typer.Typer) -> None:
    @app.command()
    @handle_errors
    def research(
        question: str | None = typer.Argument(None, help="The research question (German, English, ...)."),
        collection: list[str] = typer.Option([], "--collection", "-c", help="Collection(s) to research."),
        mode: str = typer.Option(
            "interactive", "--mode", "-m", help="interactive (clarify, approve) or quick."
        ),
        yes: bool = typer.Option(
            False, "--yes", "-y", help="Do not ask: end clarification, approve the plan."
        ),
        resume: str | None = typer.Option(None, "--resume", help="Continue a run that stopped or waits."),
        as_json: bool = typer.Option(False, "--json", help="Print the result as one JSON object."),
        as_markdown: bool = typer.Option(False, "--markdown", help="Print the report as Markdown."),
        docx: Path | None = typer.Option(
            None, "--docx", dir_okay=False, help="Also write the report as a Word document to this file."
        ),
        depth: int | None = typer.Option(None, "--depth", "-d", min=0, max=10, help="Reference hops."),
        k: int | None = typer.Option(None, "--k", "-k", min=1, max=100, help="Hits per query."),
        model: str | None = typer.Option(None, "--model", help="Chat model for this run."),
        concurrency: int | None = typer.Option(None, "--concurrency", min=1, max=32, help="Parallel tasks."),
        server: str | None = typer.Option(
            None, "--server", help="Run it on a Rabbithole server (e.g. http://127.0.0.1:8000) over its API."
        ),
        token: str | None = typer.Option(
            None, "--token", envvar="RABBITHOLE_API_TOKEN", help="The server's bearer token (server.token)."
        ),
    ) -> None:
        """Research a question over a collection: clarify, plan, dig, and a cited report."""
        if resume is None and (not question or not question.strip()):
            raise InvalidRequestError("give a question (or --resume RUN_ID)")
        if resume is None and not collection:
            raise InvalidRequestError("name the collection to research with --collection")
        if mode not in ("interactive", "quick"):
            raise InvalidRequestError(f"--mode must be interactive or quick, got '{mode}'")
        overrides = {
            key: value
            for key, value in {"depth": depth, "k": k, "model": model, "concurrency": concurrency}.items()
            if value is not None
        }
        if docx is not None and not docx.expanduser().absolute().parent.is_dir():
            raise InvalidRequestError(f"--docx: the folder of {docx} does not exist")
        if server:
            from rabbithole.cli.research_remote import research_remote

            remote = research_remote(server, token, question, collection, mode, yes, resume, overrides)
            result, markdown = remote.result, remote.markdown
        else:
            result = asyncio.run(_research(question, collection, mode, yes, resume, overrides))
            markdown = result.report_markdown
        if docx is not None:
            from rabbithole.research.export.docx import write_docx

            written = write_docx(result, docx.expanduser())
            Console(stderr=True, soft_wrap=True).print(f"report written to {written}", highlight=False)
        if as_json:
            typer.echo(result.model_dump_json(indent=2))
        elif as_markdown:
            typer.echo(markdown)
        else:
            console = Console()
            console.print(Markdown(result.report_markdown))
            for warning in result.warnings:
                console.print(f"[yellow]warning:[/] {warning}", highlight=False)

    @app.command()
    @handle_errors
    def runs(
        status: list[str] = typer.Option([], "--status", "-s", help="Only runs with this status."),
        limit: int = typer.Option(20, "--limit", "-n", min=1, max=1000, help="How many (newest first)."),
        as_json: bool = typer.Option(False, "--json", help="JSON output."),
    ) -> None:
        """List research runs."""
        from rabbithole.research.registry import RunRegistry

        settings = load_settings()
        registry = RunRegistry(settings.storage.catalog_path, settings.storage.sqlite_busy_timeout_ms)
        try:
            records = registry.list(status=status or None, limit=limit)
        finally:
            registry.close()
        rows = [r.summary() for r in records]
        if as_json:
            typer.echo(json.dumps([r.model_dump(mode="json") for r in rows], ensure_ascii=False, indent=2))
            return
        table = Table(show_header=True, header_style="bold")
        for column in ("run", "status", "phase", "created", "question"):
            table.add_column(column)
        for r in rows:
            table.add_row(r.run_id, r.status, r.phase, r.created_at.isoformat()[:19], r.question)
        Console().print(table)
