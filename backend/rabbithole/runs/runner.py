"""Runs research graphs: creates runs in the run store, starts and resumes them on the checkpointer,
streams their progress events, and records status, phase, errors and results.

    runner = ResearchRunner(services)                  # services opened with ``await services.aopen()``
    record = runner.create("Wann ...?", ["sample"], mode="interactive")
    view = await runner.advance(record.id, on_event=print)          # -> waits for a clarification answer
    view = await runner.advance(record.id, resume={"answer": "/end"})
    view = await runner.advance(record.id, resume={"tasks": None})  # approve the plan as proposed

A run stopped by a crash or an error resumes from its last checkpoint with ``advance(run_id)``; tasks
that finished are not dug again. Resuming a finished run is a ``RunStateError``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, NoReturn

from langgraph.types import Command

from rabbithole.core.disk_full import disk_full_error
from rabbithole.core.errors import InvalidRequestError, RabbitholeError, RunFailedError, RunStateError
from rabbithole.embeddings.memo import TextVectors
from rabbithole.research.context import ResearchContext, RunOverrides
from rabbithole.research.llm_step import merge_counts
from rabbithole.research.models import ResearchResult, RunMode
from rabbithole.research.run import build_research_graph
from rabbithole.runs.store import RunOrigin, RunRecord, RunStore
from rabbithole.runs.unsaved_status import UnsavedStatuses

if TYPE_CHECKING:
    from rabbithole.services import Services

log = logging.getLogger(__name__)

EventSink = Callable[[dict[str, Any]], None]
#: Overrides only report mode takes.
REPORT_OVERRIDES = ("guidance", "sections", "refinement_rounds", "max_search_depth")
#: Supersteps a run may take (clarification rounds and extraction batches loop).
RECURSION_LIMIT = 400


@dataclass(frozen=True, slots=True)
class RunView:
    """A run as a client sees it: its record, the pending interrupt's payload, the result when done."""

    record: RunRecord
    interrupt: dict[str, Any] | None = None
    result: ResearchResult | None = None
    llm_calls: dict[str, int] | None = None  # so far, from the checkpoint (``view``; None: not read)


class ResearchRunner:
    def __init__(self, services: Services, store: RunStore | None = None) -> None:
        self.services = services
        self.store = store or services.runs
        self._graphs: dict[str, Any] = {}
        self._graph_lock = asyncio.Lock()
        # LLM calls so far of the runs this runner executes now: the checkpoint's count when the run
        # (re)started plus what the run graph's steps reported since, so ``view`` of a running run needs
        # no checkpoint read
        self._live_calls: dict[str, dict[str, int]] = {}
        # final statuses the store could not take yet (a full disk): shown by ``view``, written later
        self.unsaved = UnsavedStatuses(self.store)

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
    ) -> RunRecord:
        """A new run (queued); nothing runs until ``advance``. Bad input is an InvalidRequestError.
        ``origin``: who created it (the server or the CLI), which decides how its errors say to resume it;
        ``claim``: the lease it is created with (its creator executes it)."""
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
        )

    # -- running -------------------------------------------------------------------------------------

    def context(self, record: RunRecord) -> ResearchContext:
        services = self.services
        overrides = RunOverrides.model_validate(record.overrides)
        research = services.settings.research
        changed = {
            key: value
            for key, value in overrides.model_dump(exclude_none=True).items()
            if key in ("k", "concurrency", "max_tasks", "max_clarify_rounds")
        }
        if changed:
            research = research.model_copy(update=changed)
            research = research.model_copy(update={"min_tasks": min(research.min_tasks, research.max_tasks)})
        depth = overrides.depth if overrides.depth is not None else services.settings.references.max_depth
        report = services.settings.report_mode
        report_changed = {
            key: value
            for key, value in overrides.model_dump(exclude_none=True).items()
            if key in ("refinement_rounds", "max_search_depth")
        }
        if report_changed:
            report = report.model_copy(update=report_changed)
        web = None
        if record.mode == "report":  # optional web research for the sections (off unless configured)
            searcher = services.web_searcher
            if searcher is not None:
                from rabbithole.web.research import web_evidence_search

                web = web_evidence_search(searcher)
        return ResearchContext(
            llm=services.llm_for(overrides.model),
            searcher=services.searcher,
            embedder=services.embedder,
            catalog=services.catalog,
            reference_engine=services.reference_engine,
            detector=services.language_detector,
            settings=research,
            depth=depth,
            report=report,
            web=web,
            vectors=TextVectors(services.embedder) if record.mode == "report" else None,
        )

    def config(self, run_id: str, context: ResearchContext) -> dict[str, Any]:
        return {
            "configurable": {"thread_id": run_id},
            "max_concurrency": context.settings.concurrency,
            "recursion_limit": RECURSION_LIMIT,
        }

    async def advance(self, run_id: str, resume: Any = None, *, on_event: EventSink | None = None) -> RunView:
        """Run until the next interrupt, the end or an error. ``resume``: the answer to the pending
        interrupt. Raises RunStateError (finished run; an answer where none is expected or none where
        one is), RunFailedError (the run stopped in its error state; resumable) and domain errors."""
        record = self.store.get(run_id, with_result=False)
        graph = await self.graph(record.mode)
        context = self.context(record)
        config = self.config(run_id, context)
        snapshot = await graph.aget_state(config)
        pending = _interrupt_of(snapshot)
        if not snapshot.values and not snapshot.next:
            if resume is not None:
                raise RunStateError(f"run {run_id} has not started; there is nothing to answer")
            graph_input: Any = self._input(record, context)
        elif pending is not None:
            if resume is None:
                raise RunStateError(f"run {run_id} waits for input ({pending.get('kind', 'answer')})")
            graph_input = Command(resume=resume)
        elif "result" in snapshot.values and not snapshot.next:
            if record.status == "done":
                raise RunStateError(f"run {run_id} is finished; there is nothing to resume")
            # the graph finished, but the process stopped before the store recorded it
            return await self._settle(run_id, graph, config, on_event or (lambda _event: None))
        else:
            # stopped between steps: a crash, an error, or a kill after a step's tasks wrote their results
            # but before the next checkpoint (then ``next`` is empty although the graph goes on)
            if resume is not None:
                raise RunStateError(f"run {run_id} does not wait for input")
            graph_input = None  # continue from the last checkpoint
        sink = on_event or (lambda _event: None)
        self._live_calls[run_id] = dict((snapshot.values or {}).get("llm_calls") or {})
        try:
            self.store.update(run_id, status="running", error=None)
            self.unsaved.forget(run_id)
            async for namespace, mode, chunk in graph.astream(
                graph_input, config, context=context, stream_mode=["custom", "updates"], subgraphs=True
            ):
                if mode == "updates" and not namespace and isinstance(chunk, dict):
                    for update in chunk.values():  # a step of the run graph: its calls, subgraphs' included
                        if isinstance(update, dict) and isinstance(update.get("llm_calls"), dict):
                            merged = merge_counts(self._live_calls.get(run_id), update["llm_calls"])
                            self._live_calls[run_id] = merged
                elif mode == "custom" and isinstance(chunk, dict):
                    if chunk.get("type") == "phase":
                        self.store.update(run_id, phase=str(chunk["phase"]))
                    elif chunk.get("type") == "language":
                        self.store.update(run_id, language=str(chunk["language"]))
                    sink(chunk)
            return await self._settle(run_id, graph, config, sink)
        except asyncio.CancelledError:
            self.unsaved.record(run_id, "cancelled", "cancelled")
            raise
        except Exception as exc:
            self._fail(record, exc, sink)
        finally:
            self._live_calls.pop(run_id, None)

    def _fail(self, record: RunRecord, exc: Exception, sink: EventSink) -> NoReturn:
        """End the run in its error state, whatever failed (a domain error, a full disk, a bug): the status
        is written (or kept until it can be), the ``error`` event goes to the sink, and a RunFailedError
        (resumable) or, for a bug, the exception itself is raised."""
        known = exc if isinstance(exc, RabbitholeError) else disk_full_error(exc)
        if known is None:
            message = f"internal error: {type(exc).__name__}: {exc}"
            log.error("run %s failed", record.id, exc_info=exc)
        elif isinstance(known, RunFailedError):
            message = f"{known} ({resume_advice(record)})"
        else:
            message = f"{known}. The run can be resumed from its last checkpoint: {resume_advice(record)}"
        self.unsaved.record(record.id, "error", message)
        try:
            sink({"type": "error", "message": message})
        except Exception:  # the sink's own trouble (a full disk again) must not hide the run's error
            log.exception("run %s: its error event could not be delivered", record.id)
        if known is None:
            raise exc
        raise RunFailedError(message) from exc

    @staticmethod
    def _input(record: RunRecord, context: ResearchContext) -> dict[str, Any]:
        graph_input: dict[str, Any] = {
            "question": record.question,
            "collections": record.collections,
            "mode": record.mode,
        }
        if record.mode == "report":
            overrides = RunOverrides.model_validate(record.overrides)
            rounds = context.report.refinement_rounds if context.report is not None else 1
            graph_input |= {
                "guidance": overrides.guidance or "",
                "sections_hint": list(overrides.sections or []),
                "refinement_rounds": rounds,
            }
        return graph_input

    async def _settle(self, run_id: str, graph: Any, config: dict[str, Any], sink: EventSink) -> RunView:
        snapshot = await graph.aget_state(config)
        pending = _interrupt_of(snapshot)
        if pending is not None:
            self.store.update(run_id, status="waiting_for_input")
            sink({"type": "interrupt", **pending})
            return RunView(self.store.get(run_id, with_result=False), interrupt=pending)
        if snapshot.next:  # pragma: no cover - astream returns only at an interrupt, the end or an error
            raise RunStateError(f"run {run_id} stopped before {snapshot.next}")
        result: ResearchResult = snapshot.values["result"]
        self.store.update(run_id, status="done", phase="done", result=result)
        sink({"type": "report", "result": result.model_dump(mode="json")})
        sink({"type": "done", "status": "done"})
        return RunView(self.store.get(run_id), result=result)

    async def view(self, run_id: str) -> RunView:
        record = self.unsaved.overlay(self.store.get(run_id))
        if record.status == "done":
            return RunView(record, result=record.result)
        live = self._live_calls.get(run_id)
        if live is not None and record.status == "running":  # executing here: no interrupt pending
            return RunView(record, llm_calls=dict(live))
        graph = await self.graph(record.mode)
        snapshot = await graph.aget_state({"configurable": {"thread_id": run_id}})
        calls = dict((snapshot.values or {}).get("llm_calls") or {})
        return RunView(record, interrupt=_interrupt_of(snapshot), llm_calls=calls)


def resume_advice(record: RunRecord) -> str:
    """How to continue a run that stopped, the way that fits where it lives: a server's run through the
    API (or the web app), a CLI run with its command."""
    if record.origin == "server":
        return f"POST /api/runs/{record.id}/resume (or Resume in the web app)"
    command = "report" if record.mode == "report" else "research"
    return f"rabbithole {command} --resume {record.id}"


def _interrupt_of(snapshot: Any) -> dict[str, Any] | None:
    """The payload of the pending interrupt (the run graph's or a subgraph's), if any."""
    for item in getattr(snapshot, "interrupts", ()) or ():
        value = getattr(item, "value", None)
        if isinstance(value, dict):
            return value
    for task in getattr(snapshot, "tasks", ()) or ():
        for item in getattr(task, "interrupts", ()) or ():
            value = getattr(item, "value", None)
            if isinstance(value, dict):
                return value
    return None


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
