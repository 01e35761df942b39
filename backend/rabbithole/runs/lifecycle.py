"""The one place a run's state changes: each transition writes the run store once and publishes what it
changed, the run's ``status`` event (through the caller's publisher: the server's event writer, the CLI's
event log, a library caller's callback) and the run-list change (the server's broker).

    life = RunLifecycle(AsyncRunStore(store), UnsavedStatuses(store), publish, on_change=changed)
    await life.transition(run_id, "running", error=None)   # written once, one status event
    await life.transition(run_id, "done", phase="done", result=result)  # its report event, then status
    await life.fail(run_id, message)   # never raises: status (or kept in memory), status + error events
    await life.phase(run_id, {"type": "phase", "phase": "plan"})   # a graph's event, as streamed

The runner (``runner.py``) and the server's run service (``api/runs/service.py``) both go through it; neither
writes a status of its own. A run's result is written once, here, with its status; its ``report`` event is
persisted as a reference to it (``event_log.py``). Store calls run in a thread (``AsyncRunStore``).
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from rabbithole.research.models import ResearchResult, RunStatus
from rabbithole.runs.aio import AsyncRunStore
from rabbithole.runs.run_events import ErrorEvent, ReportEvent, RunnerEvent, StatusEvent
from rabbithole.runs.store import Keep, RunRecord
from rabbithole.runs.unsaved_status import UnsavedStatuses

log = logging.getLogger(__name__)

#: Delivers one event of a run ({"type": ..., ...}) to whoever records or shows it; may be a coroutine.
Publish = Callable[[str, dict[str, Any]], Awaitable[None] | None]
#: Publishes a run-list change ({change: status | phase, run_id, status, phase}).
Change = Callable[[dict[str, Any]], None]


class RunLifecycle:
    def __init__(
        self,
        runs: AsyncRunStore,
        unsaved: UnsavedStatuses,
        publish: Publish | None = None,
        *,
        on_change: Change | None = None,
    ) -> None:
        self.runs = runs
        self.unsaved = unsaved
        self._publish = publish
        self._on_change = on_change

    async def emit(self, run_id: str, event: RunnerEvent) -> None:
        """Deliver an event the runner makes."""
        await self.forward(run_id, event.model_dump(mode="json", by_alias=True))

    async def forward(self, run_id: str, event: dict[str, Any]) -> None:
        """Deliver an event of the run as a graph streamed it (its ``type`` in ``event``)."""
        if self._publish is None:
            return
        delivered = self._publish(run_id, event)
        if inspect.isawaitable(delivered):
            await delivered

    async def transition(
        self,
        run_id: str,
        status: RunStatus,
        *,
        phase: str | None = None,
        error: str | type[Keep] | None = Keep,
        result: ResearchResult | None = None,
    ) -> RunRecord:
        """Write the run's new state once, then publish it: its ``report`` event first when ``result`` is
        given, then its ``status`` event and the run-list change. Raises what the store raises (nothing
        is published then)."""
        record = await self.runs.update(run_id, status=status, phase=phase, error=error, result=result)
        self.unsaved.forget(run_id)
        if result is not None:
            await self.emit(run_id, ReportEvent(result=result))
        await self.announce(record)
        return record

    async def announce(self, record: RunRecord) -> None:
        """Publish the run's status as the store holds it (a run just created: written by its insert)."""
        error = record.error if record.status == "error" and record.error else None
        await self.emit(record.id, StatusEvent(status=record.status, phase=record.phase, error=error))
        self._change("status", record.id, record.status, record.phase)

    async def end(self, run_id: str, status: RunStatus, error: str | None) -> None:
        """End the run in ``status`` whatever else fails; never raises. The status is written, or kept in
        memory where the store cannot take it (``UnsavedStatuses``: shown in its place, written later);
        its ``status`` event is published (a failure to deliver it is logged: the caller's own error is
        the one that matters)."""
        written = await asyncio.to_thread(self.unsaved.record, run_id, status, error)
        phase = written.phase if written is not None else await self._phase_or_nothing(run_id)
        data = StatusEvent(status=status, phase=phase, error=error if status == "error" and error else None)
        try:
            await self.emit(run_id, data)
        except Exception:
            log.exception("run %s: its status event (%s) could not be delivered", run_id, status)
        self._change("status", run_id, status, phase)

    async def fail(self, run_id: str, message: str) -> None:
        """End the run in ``error`` with ``message`` (``end``), then publish its ``error`` event; never
        raises."""
        await self.end(run_id, "error", message)
        try:
            await self.emit(run_id, ErrorEvent(message=message))
        except Exception:  # the publisher's own trouble (a full disk again) must not hide the run's error
            log.exception("run %s: its error event could not be delivered", run_id)

    async def park(self, run_id: str) -> None:
        """The run goes back to ``queued`` without an event (a server that stops: the run continues at its
        next start); never raises."""
        await asyncio.to_thread(self.unsaved.record, run_id, "queued", None)

    async def phase(self, run_id: str, event: dict[str, Any]) -> None:
        """The run entered a phase: written once, its ``phase`` event published, and the run-list change."""
        record = await self.runs.update(run_id, phase=str(event["phase"]))
        await self.forward(run_id, event)
        self._change("phase", run_id, record.status, record.phase)

    async def language(self, run_id: str, event: dict[str, Any]) -> None:
        """The run's language was detected: written once, its ``language`` event published."""
        await self.runs.update(run_id, language=str(event["language"]))
        await self.forward(run_id, event)

    async def _phase_or_nothing(self, run_id: str) -> str:
        try:
            return (await self.runs.get(run_id, with_result=False)).phase
        except Exception:
            return ""

    def _change(self, change: str, run_id: str, status: str, phase: str) -> None:
        if self._on_change is not None:
            self._on_change({"change": change, "run_id": run_id, "status": status, "phase": phase})
