"""Run events on their way from the run service to the clients: persisted first (``EventWriter``, a thread
of its own, so the server's event loop never waits for SQLite), then, back on the event loop and in order,
folded into the live progress of runs executing here and published to the clients watching them
(``EventBroker``).

    publisher = EventPublisher(run_events, broker, live_progress, on_unsaved=report)
    publisher.emit(run_id, "phase", {"phase": "plan"})    # returns at once; published once persisted
    await publisher.flush()                               # what was emitted is persisted and published
    await publisher.delete_run(run_id)                    # after the run's queued events
    await publisher.close()                               # at shutdown: writes what is queued

An event that could not be persisted is never published; ``on_unsaved(run_id, events, error)`` is called
on the event loop with the run's events that were lost.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Mapping
from typing import Any

from rabbithole.api.runs.broker import EventBroker
from rabbithole.api.runs.progress import RunProgress
from rabbithole.runs.event_log import NewEvent, RunEvent, RunEventLog
from rabbithole.runs.event_writer import EventWriter

log = logging.getLogger(__name__)

Unsaved = Callable[[str, list[NewEvent], Exception], None]


class EventPublisher:
    def __init__(
        self,
        events: RunEventLog,
        broker: EventBroker,
        progress: Mapping[str, RunProgress],
        *,
        on_unsaved: Unsaved,
    ) -> None:
        self.broker = broker
        self.progress = progress
        self.on_unsaved = on_unsaved
        self._loop: asyncio.AbstractEventLoop | None = None
        self.writer = EventWriter(events, on_persisted=self._persisted, on_failed=self._failed)

    def emit(self, run_id: str, kind: str, data: dict[str, Any]) -> None:
        """Queue the event; it is published once persisted. Call it on the event loop."""
        if self._loop is None:
            self._loop = asyncio.get_running_loop()
        self.writer.submit(NewEvent.of(run_id, kind, data))

    async def flush(self) -> None:
        """Wait until every event emitted before is persisted and published (or reported unsaved)."""
        await asyncio.wrap_future(self.writer.barrier())

    async def delete_run(self, run_id: str) -> None:
        await asyncio.wrap_future(self.writer.delete_run(run_id))

    async def close(self) -> None:
        """Persist and publish what is queued, then stop the writer."""
        if self._loop is None:
            self._loop = asyncio.get_running_loop()
        await asyncio.to_thread(self.writer.close)  # its last hand-overs run on the loop before this returns

    # -- from the writer's thread ----------------------------------------------------------------------

    def _persisted(self, events: list[RunEvent]) -> None:
        self._call(self._publish, events)

    def _failed(self, run_id: str, events: list[NewEvent], exc: Exception) -> None:
        log.error("run %s: %d events could not be persisted: %s", run_id, len(events), exc)
        self._call(self.on_unsaved, run_id, events, exc)

    def _call(self, callback: Callable[..., None], *args: Any) -> None:
        loop = self._loop
        if loop is None or loop.is_closed():
            return  # no event loop to publish on (a test's writer, a server that stopped)
        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
            loop.call_soon_threadsafe(callback, *args)

    # -- on the event loop -----------------------------------------------------------------------------

    def _publish(self, events: list[RunEvent]) -> None:
        for event in events:
            live = self.progress.get(event.run_id)
            if live is not None:
                live.add(event)
            self.broker.publish(event)
