"""Runs research graphs: creates runs in the run store, starts and resumes them on the checkpointer, streams
their progress events, and changes their state through the run lifecycle (``lifecycle.py``: each status
written once, its ``status`` event published).

    runner = ResearchRunner(services)                  # services opened with ``await services.aopen()``
    record = runner.create("Wann ...?", ["sample"], mode="interactive")
    view = await runner.advance(record.id, on_event=print)          # -> waits for a clarification answer
    view = await runner.advance(record.id, resume={"answer": "/end"})
    view = await runner.advance(record.id, resume={"tasks": None})  # approve the plan as proposed

``advance`` is ``prepare`` (the checks: a run that cannot start raises and is left as it is) and ``execute``
(from there on every failure ends the run once, in ``error``, with its ``status`` and ``error`` events).
``on_event`` receives every event of the run: the graph's progress, the ``status`` events of its
transitions, ``interrupt``, ``report``, ``error`` and ``done``.

A run stopped by a crash or an error resumes from its last checkpoint with ``advance(run_id)``; tasks
that finished are not dug again. Resuming a finished run is a ``RunStateError``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, NoReturn

from langgraph.types import Command

from rabbithole.core.disk_full import disk_full_error
from rabbithole.core.errors import InvalidRequestError, RabbitholeError, RunFailedError, RunStateError
from rabbithole.research.context import ResearchContext, RunOverrides
from rabbithole.research.models import ResearchResult, RunMode, RunStatus
from rabbithole.research.run import build_research_graph
from rabbithole.runs.aio import AsyncRunStore
from rabbithole.runs.database_lost import database_lost_error
from rabbithole.runs.graph_inputs import graph_config, interrupt_of, research_context
from rabbithole.runs.graph_inputs import graph_input as graph_input_of
from rabbithole.runs.lifecycle import Change, RunLifecycle
from rabbithole.runs.live_calls import LiveCalls, checkpoint_calls
from rabbithole.runs.run_events import DoneEvent, interrupt_event
from rabbithole.runs.store import RunOrigin, RunRecord, RunStore
from rabbithole.runs.unsaved_status import UnsavedStatuses

if TYPE_CHECKING:
    from rabbithole.services import Services

log = logging.getLogger(__name__)

#: Receives each event of a run ({"type": ..., ...}); may be a coroutine function.
EventSink = Callable[[dict[str, Any]], Awaitable[None] | None]
#: Overrides only report mode takes.
REPORT_OVERRIDES = ("guidance", "sections", "refinement_rounds", "max_search_depth")


@dataclass(frozen=True, slots=True)
class RunView:
    """A run as a client sees it: its record, the pending interrupt's payload, the result when done."""

    record: RunRecord
    interrupt: dict[str, Any] | None = None
    result: ResearchResult | None = None
    llm_calls: dict[str, int] | None = None  # so far, from the checkpoint (``view``; None: not read)


@dataclass(frozen=True, slots=True)
class RunStart:
    """A run checked and ready to execute (``ResearchRunner.prepare``)."""

    record: RunRecord
    graph: Any
    context: ResearchContext
    config: dict[str, Any]
    graph_input: Any = None
    llm_calls: LiveCalls = field(default_factory=LiveCalls)  # the checkpoint's count so far
    finished: bool = False  # the graph finished, but the process stopped before the store recorded it


class ResearchRunner:
    def __init__(
        self, services: Services, store: RunStore | None = None, *, on_change: Change | None = None
    ) -> None:
        """``on_change``: where the run-list changes of the runs it executes go (the server's broker)."""
        self.services = services
        self.store = store or services.runs
        self.runs = AsyncRunStore(self.store)
        self.on_change = on_change
        self._graphs: dict[str, Any] = {}
        self._graph_lock = asyncio.Lock()
        # LLM calls so far of the runs this runner executes now: the checkpoint's count when the run
        # (re)started plus what the graph's steps (subgraphs' included) reported since, so ``view`` of a
        # running run needs no checkpoint read
        self._live_calls: dict[str, LiveCalls] = {}
        # final statuses the store could not take yet (a full disk): shown by ``view``, written later
        self.unsaved = UnsavedStatuses(self.store)

    def lifecycle(self, on_event: EventSink | None) -> RunLifecycle:
        """The lifecycle of a run this runner executes, publishing its events to ``on_event``."""
        publish = None if on_event is None else lambda _run_id, event: on_event(event)
        return RunLifecycle(self.runs, self.unsaved, publish, on_change=self.on_change)

    async def graph(self, mode: RunMode = "interactive") -> Any:
        """The compiled graph of a mode: the research run, or report mode's graph."""
        kind = "report" if mode == "report" else "research"
        async with self._graph_lock:
            if kind not in self._graphs:
                from rabbithole.research.report import build_report_graph

                build = build_report_graph if kind == "report" else build_research_graph
                self._graphs[kind] = build(await self.services.checkpointer())
            return self._graphs[kind]

    # -- creating ------------------------------------------------------------------------------------

    def create(
        self,
        question: str,
        collections: Sequence[str],
        mode: RunMode = "interactive",
        overrides: RunOverrides | dict[str, Any] | None = None,
        *,
        origin: RunOrigin = "cli",
        claim: tuple[str, datetime] | None = None,
        run_id: str | None = None,
        created_by: int | None = None,
        private: bool = False,
    ) -> RunRecord:
        """A new run (queued); nothing runs until ``advance``. ``created_by``, ``private``: the account that
        starts it, and whether only it may see it (accounts mode). Bad input is an InvalidRequestError.
        ``origin``: who created it (the server or the CLI), which decides how its errors say to resume it;
        ``claim``: the lease it is created with (its creator executes it); ``run_id``: its id, if chosen.
        The overrides are validated here, once, and stored as validated (``RunRecord.settings``).
        Synchronous (the store's insert): async code calls it in a thread."""
        question = " ".join(question.split())
        if not question:
            raise InvalidRequestError("the question is empty")
        if not collections:
            raise InvalidRequestError("name at least one collection to research")
        for collection in collections:
            self.services.catalog.require_collection(collection)
        if mode not in ("interactive", "quick", "report"):
            raise InvalidRequestError(f"mode must be 'interactive', 'quick' or 'report', got '{mode}'")
        checked = (
            overrides if isinstance(overrides, RunOverrides) else RunOverrides.model_validate(overrides or {})
        )
        report_only = sorted(set(checked.model_dump(exclude_none=True)) & set(REPORT_OVERRIDES))
        if mode != "report" and report_only:
            raise InvalidRequestError(f"{', '.join(report_only)}: only for report mode")
        return self.store.create(
            question,
            list(dict.fromkeys(collections)),
            mode,
            checked.model_dump(exclude_none=True),
            origin=origin,
            claim=claim,
            run_id=run_id,
            created_by=created_by,
            private=private,
        )

    # -- running -------------------------------------------------------------------------------------

    def context(self, record: RunRecord) -> ResearchContext:
        """The run's runtime context (``graph_inputs.research_context``)."""
        return research_context(self.services, record)

    def config(self, run_id: str, context: ResearchContext) -> dict[str, Any]:
        return graph_config(run_id, context)

    async def advance(
        self,
        run_id: str,
        resume: Any = None,
        *,
        on_event: EventSink | None = None,
        on_cancel: RunStatus | None = "cancelled",
    ) -> RunView:
        """Run until the next interrupt, the end or an error: ``prepare``, then ``execute``. ``resume``: the
        answer to the pending interrupt. Raises RunStateError (finished run; an answer where none is
        expected or none where one is), RunFailedError (the run stopped in its error state; resumable)
        and domain errors. ``on_cancel``: the status a cancelled run ends in (None: the caller decides)."""
        try:
            start = await self.prepare(run_id, resume)
        except asyncio.CancelledError:
            if on_cancel is not None:
                await self.lifecycle(on_event).end(run_id, on_cancel, "cancelled")
            raise
        return await self.execute(start, on_event=on_event, on_cancel=on_cancel)

    async def prepare(self, run_id: str, resume: Any = None) -> RunStart:
        """Check that the run can go on with ``resume`` and load what it needs; raises (RunStateError, a
        domain error) without touching the run."""
        record = await self.runs.get(run_id, with_result=False)
        graph = await self.graph(record.mode)
        context = self.context(record)
        config = self.config(run_id, context)
        snapshot = await graph.aget_state(config, subgraphs=True)
        pending = interrupt_of(snapshot)
        if not snapshot.values and not snapshot.next:
            if resume is not None:
                raise RunStateError(f"run {run_id} has not started; there is nothing to answer")
            graph_input: Any = graph_input_of(record, context)
        elif pending is not None:
            if resume is None:
                raise RunStateError(f"run {run_id} waits for input ({pending.get('kind', 'answer')})")
            graph_input = Command(resume=resume)
        elif "result" in snapshot.values and not snapshot.next:
            if record.status == "done":
                raise RunStateError(f"run {run_id} is finished; there is nothing to resume")
            # the graph finished, but the process stopped before the store recorded it
            return RunStart(record, graph, context, config, finished=True)
        else:
            # stopped between steps: a crash, an error, or a kill after a step's tasks wrote their results
            # but before the next checkpoint (then ``next`` is empty although the graph goes on)
            if resume is not None:
                raise RunStateError(f"run {run_id} does not wait for input")
            graph_input = None  # continue from the last checkpoint
        return RunStart(record, graph, context, config, graph_input, checkpoint_calls(snapshot))

    async def execute(
        self, start: RunStart, *, on_event: EventSink | None = None, on_cancel: RunStatus | None = "cancelled"
    ) -> RunView:
        """Execute a prepared run until its next interrupt, its end or an error. Whatever fails ends the run
        once, in ``error`` (``_fail``); a cancelled run ends in ``on_cancel`` (None: left to the caller)."""
        run_id = start.record.id
        life = self.lifecycle(on_event)
        self._live_calls[run_id] = start.llm_calls
        try:
            if not start.finished:
                await life.transition(run_id, "running", error=None)
                await self._stream(start, life)
            return await self._settle(start, life)
        except asyncio.CancelledError:
            if on_cancel is not None:
                await life.end(run_id, on_cancel, "cancelled")
            raise
        except Exception as exc:
            await self._fail(start.record, exc, life)
        finally:
            self._live_calls.pop(run_id, None)

    async def _stream(self, start: RunStart, life: RunLifecycle) -> None:
        run_id = start.record.id
        async for namespace, mode, chunk in start.graph.astream(
            start.graph_input,
            start.config,
            context=start.context,
            stream_mode=["custom", "tasks"],
            subgraphs=True,
        ):
            if mode == "tasks":  # a step of the run graph or of a subgraph: its calls
                start.llm_calls.task_finished(tuple(namespace), chunk)
            elif mode == "custom" and isinstance(chunk, dict):
                if chunk.get("type") == "phase":
                    await life.phase(run_id, chunk)
                elif chunk.get("type") == "language":
                    await life.language(run_id, chunk)
                else:
                    await life.forward(run_id, chunk)

    async def _fail(self, record: RunRecord, exc: Exception, life: RunLifecycle) -> NoReturn:
        """End the run in its error state, whatever failed (a domain error, a full disk, a bug): once,
        through the lifecycle (the status written or kept until it can be, the ``status`` and ``error``
        events published), then a RunFailedError (resumable) or, for a bug, the exception itself is
        raised."""
        known = exc if isinstance(exc, RabbitholeError) else disk_full_error(exc) or database_lost_error(exc)
        if known is None:
            message = f"internal error: {type(exc).__name__}: {exc}"
            log.error("run %s failed", record.id, exc_info=exc)
        elif isinstance(known, RunFailedError):
            message = f"{known} ({resume_advice(record)})"
        else:
            message = f"{known}. The run can be resumed from its last checkpoint: {resume_advice(record)}"
        await life.fail(record.id, message)
        if known is None:
            raise exc
        raise RunFailedError(message) from exc

    async def _settle(self, start: RunStart, life: RunLifecycle) -> RunView:
        run_id = start.record.id
        snapshot = await start.graph.aget_state(start.config)
        pending = interrupt_of(snapshot)
        if pending is not None:
            record = await life.transition(run_id, "waiting_for_input")
            await life.emit(run_id, interrupt_event(pending))
            return RunView(record, interrupt=pending)
        if snapshot.next:  # pragma: no cover - astream returns only at an interrupt, the end or an error
            raise RunStateError(f"run {run_id} stopped before {snapshot.next}")
        result: ResearchResult = snapshot.values["result"]
        record = await life.transition(run_id, "done", phase="done", result=result)
        await life.emit(run_id, DoneEvent())
        return RunView(record, result=result)

    async def view(self, run_id: str) -> RunView:
        record = self.unsaved.overlay(await self.runs.get(run_id))
        if record.status == "done":
            return RunView(record, result=record.result)
        live = self._live_calls.get(run_id)
        if live is not None and record.status == "running":  # executing here: no interrupt pending
            return RunView(record, llm_calls=live.total())
        graph = await self.graph(record.mode)
        snapshot = await graph.aget_state({"configurable": {"thread_id": run_id}}, subgraphs=True)
        return RunView(record, interrupt=interrupt_of(snapshot), llm_calls=checkpoint_calls(snapshot).total())


def resume_advice(record: RunRecord) -> str:
    """How to continue a run that stopped, the way that fits where it lives: a server's run through the
    API (or the web app), a CLI run with its command."""
    if record.origin == "server":
        return f"POST /api/runs/{record.id}/resume (or Resume in the web app)"
    command = "report" if record.mode == "report" else "research"
    return f"rabbithole {command} --resume {record.id}"


async def run_research(
    services: Services,
    question: str,
    collections: Sequence[str],
    *,
    mode: RunMode = "quick",
    overrides: RunOverrides | dict[str, Any] | None = None,
    on_event: EventSink | None = None,
) -> ResearchResult:
    """A quick run from start to result (an interactive run that asks is a RunStateError)."""
    runner = ResearchRunner(services)
    record = runner.create(question, collections, mode, overrides)
    view = await runner.advance(record.id, on_event=on_event)
    if view.result is None:
        raise RunStateError(f"run {record.id} waits for input; use ResearchRunner to answer it")
    return view.result
