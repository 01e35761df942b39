"""Drive a run in the terminal, for `rabbithole research` and `rabbithole report`: create it (or pick up
the one named by --resume), answer its interrupts until it ends, and, when nobody can answer (stdin
closed), leave it waiting and exit with EXIT_WAITING and the command that resumes it. The run executes
under its lease, with its events in the run event log (``research/local_run.py``), as on a server: a run a
server (or another CLI) executes is refused (``RunBusyError``), and the server's view follows this one."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import typer
from rich.console import Console

from rabbithole.core.config import load_settings
from rabbithole.core.errors import InvalidRequestError

if TYPE_CHECKING:
    from rabbithole.research.local_run import LocalRun
    from rabbithole.research.models import ResearchResult, RunMode
    from rabbithole.research.runner import ResearchRunner, RunView

#: Exit code when the run waits for input nobody gave (stdin closed): EX_TEMPFAIL.
EXIT_WAITING = 75

Command = Literal["research", "report"]
#: The answer to an interrupt's payload (asks in the terminal, or the defaults of --yes; typer.Abort
#: when stdin is closed).
Answer = Callable[[dict[str, Any]], Any]
ProgressSink = Callable[[dict[str, Any]], None]


@dataclass(frozen=True, slots=True)
class NewRun:
    question: str
    collections: list[str]
    mode: RunMode
    overrides: dict[str, Any]


async def drive(
    local: LocalRun, runner: ResearchRunner, view: RunView, answer: Answer, progress: ProgressSink
) -> RunView:
    """Answer interrupts until the run ends."""
    while view.interrupt is not None:
        view = await local.advance(runner, answer(view.interrupt), on_event=progress)
    return view


def _check_command(command: Command, run_id: str, mode: str) -> None:
    """A report run is resumed by `report`, any other by `research`."""
    if command == "research" and mode == "report":
        raise InvalidRequestError(f"run {run_id} is a report: rabbithole report --resume {run_id}")
    if command == "report" and mode != "report":
        raise InvalidRequestError(f"run {run_id} is a research run: rabbithole research --resume {run_id}")


async def run_in_terminal(
    command: Command,
    new: NewRun | None,
    resume: str | None,
    answer: Answer,
    progress: ProgressSink,
    console: Console,
) -> ResearchResult:
    """Start ``new`` (or continue ``resume``) and drive it to its result."""
    from rabbithole.research.local_run import LocalRun
    from rabbithole.research.runner import ResearchRunner
    from rabbithole.services import Services

    services = Services(load_settings())
    async with services:
        runner = ResearchRunner(services)
        owner: str | None = None
        if resume:
            run_id = resume
        else:
            assert new is not None
            owner, until = LocalRun.new_claim(services)  # no server adopts it before this process claims it
            created = runner.create(
                new.question, new.collections, new.mode, new.overrides, claim=(owner, until)
            )
            run_id = created.id
        # the run's lease: no other process executes it meanwhile
        with LocalRun(services, run_id, owner) as local:
            if resume:
                current = await runner.view(resume)
                _check_command(command, resume, current.record.mode)
                console.print(
                    f"run {resume}: {current.record.status}, phase {current.record.phase or '-'}",
                    highlight=False,
                )
                view = current
                if current.interrupt is None:
                    view = await local.advance(runner, on_event=progress)
            else:
                console.print(f"run {run_id}", highlight=False)
                view = await local.advance(runner, on_event=progress)
            try:
                view = await drive(local, runner, view, answer, progress)
            except typer.Abort:
                console.print(
                    f"no answer; the run waits for input: rabbithole {command} --resume {view.record.id}",
                    highlight=False,
                )
                raise typer.Exit(EXIT_WAITING) from None
        assert view.result is not None
        return view.result
