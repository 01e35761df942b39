"""Drive a run in the terminal, for `rabbithole research` and `rabbithole report`: create it (or pick up
the one named by --resume), answer its interrupts until it ends, and, when nobody can answer (stdin
closed), leave it waiting and exit with EXIT_WAITING and the command that resumes it. The run executes
under its lease, with its events in the run event log (``runs/local_run.py``), as on a server: a run a
server (or another CLI) executes is refused (``RunBusyError``), and the server's view follows this one.
Ctrl-C and SIGTERM cancel it (``run_signals.py``): marked cancelled, its lease released, EXIT_CANCELLED."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import typer
from rich.console import Console

from rabbithole.cli.run_signals import StopSignals
from rabbithole.core.config import load_settings
from rabbithole.core.errors import InvalidRequestError

if TYPE_CHECKING:
    from rabbithole.research.models import ResearchResult, RunMode
    from rabbithole.runs.local_run import LocalRun
    from rabbithole.runs.runner import ResearchRunner, RunView

#: Exit code when the run waits for input nobody gave (stdin closed): EX_TEMPFAIL.
EXIT_WAITING = 75
#: Exit code when Ctrl-C or SIGTERM stopped the command (128 + SIGINT, as for any Ctrl-C): a run it executed
#: is cancelled, one that waited for an answer keeps waiting; --resume continues either.
EXIT_CANCELLED = 130

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
    local: LocalRun,
    runner: ResearchRunner,
    view: RunView,
    answer: Answer,
    progress: ProgressSink,
    stop: StopSignals | None = None,
) -> RunView:
    """Answer interrupts until the run ends (``stop``: a signal interrupts a prompt)."""
    while view.interrupt is not None:
        if stop is None:
            reply = answer(view.interrupt)
        else:
            with stop.prompting():
                reply = answer(view.interrupt)
        view = await local.advance(runner, reply, on_event=progress)
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
    """Start ``new`` (or continue ``resume``) and drive it to its result. Ctrl-C or SIGTERM cancels the
    run and exits with EXIT_CANCELLED (during a prompt: the run keeps waiting for its answer)."""
    started: list[str] = []  # the run's id, once there is one
    with StopSignals() as stop:
        try:
            return await _run(command, new, resume, answer, progress, console, stop, started)
        except asyncio.CancelledError:
            if stop.received is None:
                raise  # not a signal's doing
            task = asyncio.current_task()
            if task is not None:
                task.uncancel()
            where = f"run {started[0]} cancelled" if started else "cancelled before the run started"
            tail = f"; continue it: rabbithole {command} --resume {started[0]}" if started else ""
            console.print(f"{where} ({stop.name}){tail}", highlight=False)
            raise typer.Exit(EXIT_CANCELLED) from None


async def _run(
    command: Command,
    new: NewRun | None,
    resume: str | None,
    answer: Answer,
    progress: ProgressSink,
    console: Console,
    stop: StopSignals,
    started: list[str],
) -> ResearchResult:
    from rabbithole.runs.local_run import LocalRun
    from rabbithole.runs.runner import ResearchRunner
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
            created = await asyncio.to_thread(
                runner.create, new.question, new.collections, new.mode, new.overrides, claim=(owner, until)
            )
            run_id = created.id
        started.append(run_id)
        # the run's lease: no other process executes it meanwhile
        async with LocalRun(services, run_id, owner) as local:
            try:
                view = await _start(command, local, runner, run_id, resume, progress, console)
                view = await drive(local, runner, view, answer, progress, stop)
            except typer.Abort:  # stdin closed, or a signal interrupted the prompt
                why = f"stopped ({stop.name})" if stop.received else "no answer"
                console.print(
                    f"{why}; the run waits for input: rabbithole {command} --resume {run_id}",
                    highlight=False,
                )
                raise typer.Exit(EXIT_CANCELLED if stop.received else EXIT_WAITING) from None
            except asyncio.CancelledError:
                await _cancelled_before_it_ran(runner, run_id)
                raise
        assert view.result is not None
        return view.result


async def _start(
    command: Command,
    local: LocalRun,
    runner: ResearchRunner,
    run_id: str,
    resume: str | None,
    progress: ProgressSink,
    console: Console,
) -> RunView:
    """The run advanced to its first interrupt or its end (a resumed run that waits: as it is)."""
    if not resume:
        console.print(f"run {run_id}", highlight=False)
        return await local.advance(runner, on_event=progress)
    current = await runner.view(resume)
    _check_command(command, resume, current.record.mode)
    console.print(
        f"run {resume}: {current.record.status}, phase {current.record.phase or '-'}", highlight=False
    )
    if current.interrupt is not None:
        return current
    return await local.advance(runner, on_event=progress)


async def _cancelled_before_it_ran(runner: ResearchRunner, run_id: str) -> None:
    """A new run cancelled before its graph started stays queued: marked cancelled here (under its lease
    still), so no server adopts a run its user stopped. A run that executed: the runner marked it."""
    if (await runner.runs.get(run_id, with_result=False)).status == "queued":
        await runner.lifecycle(None).end(run_id, "cancelled", "cancelled")
