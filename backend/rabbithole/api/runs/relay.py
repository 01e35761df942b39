"""Several workers over one PostgreSQL: what one worker's clients need from the others (server backend only;
the embedded SQLite backend has no relay).

- the events of runs another worker executes, for the clients watching them here: the run event listener
  (``runs/listener.py``) reads them from the event log when PostgreSQL notifies their append, and they are
  published to this worker's broker, in order, on the event loop;
- the run-list changes: those made here are sent to the other workers (``runs/change_sender.py``), theirs
  are published to the clients here (``EventBroker.receive_change``).

    relay = WorkerRelay(run_events, broker, origin=owner, executing=lambda run_id: run_id in active)
    await relay.start()
    relay.watch(run_id, last_seq)     # a stream has the run's events up to last_seq
    await relay.stop()
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Any

from rabbithole.api.runs.broker import EventBroker
from rabbithole.runs.change_sender import ChangeSender
from rabbithole.runs.event_log import RunEvent, RunEventLog
from rabbithole.runs.listener import RunEventListener

log = logging.getLogger(__name__)

#: How long the start waits for the listening connection (it keeps trying after that).
LISTEN_WAIT_S = 10.0


class WorkerRelay:
    def __init__(
        self, events: RunEventLog, broker: EventBroker, *, origin: str, executing: Callable[[str], bool]
    ) -> None:
        """``executing(run_id)``: whether this worker executes the run (its events are published here)."""
        self.events = events
        self.broker = broker
        self.origin = origin
        self.executing = executing
        self.listener = RunEventListener(
            events, origin=origin, wants=self._wants, on_events=self._events_in, on_change=self._change_in
        )
        self._sender: ChangeSender | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    async def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._sender = ChangeSender(self.events.engine, origin=self.origin)
        self.broker.relay_change = self._sender.send
        self.listener.start()
        if not await asyncio.to_thread(self.listener.listening, LISTEN_WAIT_S):
            log.warning("not yet listening for the run events of other workers; still trying")

    async def stop(self) -> None:
        self.broker.relay_change = None
        await asyncio.to_thread(self.listener.stop)
        if self._sender is not None:
            await asyncio.to_thread(self._sender.close)

    def watch(self, run_id: str, seq: int) -> None:
        """A stream has the run's events up to ``seq``: should the listening connection drop, what was
        appended meanwhile is read from there."""
        self.listener.watch(run_id, seq)

    # -- from the listener's thread --------------------------------------------------------------------

    def _wants(self, run_id: str) -> bool:
        return self.broker.subscribers(run_id) > 0 and not self.executing(run_id)

    def _events_in(self, events: list[RunEvent]) -> None:
        self._call(self._publish, events)

    def _change_in(self, change: dict[str, Any]) -> None:
        self._call(self.broker.receive_change, change)

    def _call(self, callback: Callable[..., None], *args: Any) -> None:
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile (the server stops)
            loop.call_soon_threadsafe(callback, *args)

    # -- on the event loop -----------------------------------------------------------------------------

    def _publish(self, events: list[RunEvent]) -> None:
        for event in events:
            self.broker.publish(event)
