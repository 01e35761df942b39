"""`rabbithole research --server URL`: the same terminal interaction as a local run, driven through a
running server's HTTP API. The run executes on the server (POST /api/runs); its events (SSE) are shown as
local progress; interrupts are answered in the terminal and sent with POST /api/runs/{id}/resume; the
result comes from the report endpoints. A run keeps executing on the server when this client stops."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import typer
from rich.console import Console

from rabbithole.cli.remote_client import RemoteRuns
from rabbithole.cli.research_terminal import Progress, answer_interrupt
from rabbithole.cli.run_terminal import EXIT_WAITING
from rabbithole.core.errors import RunFailedError, RunStateError
from rabbithole.research.models import ResearchResult


@dataclass(frozen=True, slots=True)
class RemoteOutcome:
    result: ResearchResult
    markdown: str


def _follow(client: RemoteRuns, run_id: str, after: int, progress: Progress) -> tuple[str, int]:
    """Show the run's events after ``after`` until it needs input or ends: ("interrupt" | "done" |
    "stream_ended", the last event's number). Raises RunFailedError / RunStateError as a local run would."""
    for event in client.events(run_id, after):
        after = int(event["seq"])
        progress(event)
        kind = event.get("type")
        if kind == "interrupt":
            return "interrupt", after
        if kind == "error":
            raise RunFailedError(str(event.get("message", "the run failed")))
        if kind == "done":
            status = event.get("status", "done")
            if status != "done":
                raise RunStateError(f"run {run_id} is {status}")
            return "done", after
    return "stream_ended", after


def _drive(
    client: RemoteRuns,
    run_id: str,
    after: int,
    ask_first: bool,
    yes: bool,
    console: Console,
    progress: Progress,
) -> None:
    """Follow the run (``ask_first``: answer its pending interrupt first), answering each interrupt, until
    it is done."""
    while True:
        if ask_first:
            interrupt = client.detail(run_id).interrupt
            if interrupt is not None:
                answer = answer_interrupt(console, interrupt.model_dump(mode="json"), yes)
                try:
                    client.resume(run_id, answer)
                except RunStateError as exc:  # another client answered first: show what follows
                    console.print(f"[yellow]{exc}[/]", highlight=False)
        outcome, after = _follow(client, run_id, after, progress)
        if outcome == "done":
            return
        ask_first = True
        if outcome == "stream_ended":
            run = client.detail(run_id).run
            if run.status == "done":
                return
            if run.status == "error":
                raise RunFailedError(run.error or f"run {run_id} failed")
            if run.status == "cancelled":
                raise RunStateError(f"run {run_id} is cancelled")


def research_remote(
    server: str,
    token: str | None,
    question: str | None,
    collections: list[str],
    mode: str,
    yes: bool,
    resume: str | None,
    overrides: dict[str, Any],
) -> RemoteOutcome:
    console = Console(stderr=True, soft_wrap=True)
    progress = Progress(console)
    client = RemoteRuns(server, token)
    try:
        if resume:
            detail = client.detail(resume)
            run_id, after = resume, detail.last_event
            console.print(
                f"run {run_id}: {detail.run.status}, phase {detail.run.phase or '-'}", highlight=False
            )
            if detail.interrupt is None and detail.run.status not in ("queued", "running"):
                client.resume(run_id, {})  # continue a stopped run; a finished one: 409, "is finished"
        else:
            assert question is not None
            run_id = client.create(question, collections, mode, overrides).run_id
            after = 0
            console.print(f"run {run_id}", highlight=False)
        try:
            _drive(client, run_id, after, bool(resume), yes, console, progress)
        except typer.Abort:
            console.print(
                "no answer; the run waits for input: "
                f"rabbithole research --resume {run_id} --server {server}",
                highlight=False,
            )
            raise typer.Exit(EXIT_WAITING) from None
        return RemoteOutcome(client.report(run_id), client.report_markdown(run_id))
    finally:
        client.close()
