"""`rabbithole research` (start, answer and resume research runs) and `rabbithole runs` (list them)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from rabbithole.cli.errors import handle_errors
from rabbithole.cli.run_ids import resolve_run_id
from rabbithole.core.config import load_settings
from rabbithole.core.errors import InvalidRequestError

if TYPE_CHECKING:
    from rabbithole.research.models import ResearchResult


def _research(
    question: str | None,
    collections: list[str],
    mode: str,
    yes: bool,
    resume: str | None,
    overrides: dict[str, Any],
) -> ResearchResult:
    import asyncio  # only where a run starts: the CLI's start-up does not pay for it

    from rich.console import Console  # the terminal's modules (and rich): only where a run starts

    from rabbithole.cli.research_terminal import Progress, answer_interrupt
    from rabbithole.cli.run_terminal import NewRun, run_in_terminal

    console = Console(stderr=True, soft_wrap=True)
    resume = resolve_run_id(resume) if resume else None  # a unique start of the id will do
    new = None if resume else NewRun(question or "", collections, mode, overrides)  # type: ignore[arg-type]
    return asyncio.run(
        run_in_terminal(
            "research",
            new,
            resume,
            lambda payload: answer_interrupt(console, payload, yes),
            Progress(console),
            console,
        )
    )


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
        resume: str | None = typer.Option(
            None, "--resume", help="Continue a run that stopped or waits: its id, or a unique start of it."
        ),
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
        from rabbithole.cli.result_output import check_docx_target, emit_result

        check_docx_target(docx)
        if server:
            from rabbithole.cli.research_remote import research_remote

            remote = research_remote(server, token, question, collection, mode, yes, resume, overrides)
            result, markdown = remote.result, remote.markdown
        else:
            result = _research(question, collection, mode, yes, resume, overrides)
            markdown = result.report_markdown
        emit_result(result, markdown, docx=docx, as_json=as_json, as_markdown=as_markdown)

    @app.command()
    @handle_errors
    def runs(
        status: list[str] = typer.Option([], "--status", "-s", help="Only runs with this status."),
        limit: int = typer.Option(20, "--limit", "-n", min=1, max=1000, help="How many (newest first)."),
        as_json: bool = typer.Option(False, "--json", help="JSON output."),
    ) -> None:
        """List research runs, newest first, with their whole ids (`--resume` takes one, or a unique start
        of it)."""
        from rabbithole.runs.store import RunStore

        settings = load_settings()
        storage = settings.storage
        store = RunStore(storage.catalog_path, storage.sqlite_busy_timeout_ms, url=settings.database.url)
        try:
            records = store.list(status=status or None, limit=limit)
        finally:
            store.close()
        rows = [r.summary() for r in records]
        if as_json:
            typer.echo(json.dumps([r.model_dump(mode="json") for r in rows], ensure_ascii=False, indent=2))
            return
        from rabbithole.cli.run_list import run_lines

        for line in run_lines(rows):
            typer.echo(line)
