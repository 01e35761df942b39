"""Fan-out of live run events to the clients that watch them: one ``asyncio.Queue`` per client, for one
run's events or for the run-list changes of all runs. Lives in the server's event loop; publishing never
blocks (queues are unbounded: a slow client costs memory, never a lost event).

The events come from this worker's publisher (runs it executes) and, on the server backend, from the other
workers through the run event listener (``runs/listener.py``); a run-list change published here is also
handed to ``relay_change`` (the ``ChangeSender`` that tells the other workers), and one received from
another worker (``receive_change``) only to the clients here."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from rabbithole.runs.event_log import RunEvent

#: Put into a run's queues when the run is deleted: the stream ends.
CLOSED = None


class EventBroker:
    def __init__(self) -> None:
        #: Where a change published here goes besides this worker's clients (the other workers).
        self.relay_change: Callable[[dict[str, Any]], None] | None = None
        self._runs: dict[str, set[asyncio.Queue[RunEvent | None]]] = {}
        self._global: set[asyncio.Queue[dict[str, Any]]] = set()
        self._global_seq = 0

    @contextmanager
    def run_subscription(self, run_id: str) -> Iterator[asyncio.Queue[RunEvent | None]]:
        queue: asyncio.Queue[RunEvent | None] = asyncio.Queue()
        self._runs.setdefault(run_id, set()).add(queue)
        try:
            yield queue
        finally:
            subscribers = self._runs.get(run_id)
            if subscribers is not None:
                subscribers.discard(queue)
                if not subscribers:
                    del self._runs[run_id]

    @contextmanager
    def global_subscription(self) -> Iterator[asyncio.Queue[dict[str, Any]]]:
        queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self._global.add(queue)
        try:
            yield queue
        finally:
            self._global.discard(queue)

    def publish(self, event: RunEvent) -> None:
        for queue in self._runs.get(event.run_id, ()):
            queue.put_nowait(event)

    def publish_change(self, change: dict[str, Any]) -> None:
        """A run-list change ({change: status | phase | deleted, run_id, ...}) made here, numbered per
        process; also relayed to the other workers."""
        self._fan_out(change)
        if self.relay_change is not None:
            self.relay_change(change)

    def receive_change(self, change: dict[str, Any]) -> None:
        """A run-list change another worker made: to the clients here (a deleted run's streams end)."""
        if change.get("change") == "deleted" and isinstance(change.get("run_id"), str):
            self.close_run(change["run_id"])
        self._fan_out(change)

    def _fan_out(self, change: dict[str, Any]) -> None:
        self._global_seq += 1
        numbered = {**change, "seq": self._global_seq}
        for queue in self._global:
            queue.put_nowait(numbered)

    def close_run(self, run_id: str) -> None:
        for queue in self._runs.get(run_id, ()):
            queue.put_nowait(CLOSED)

    def subscribers(self, run_id: str) -> int:
        return len(self._runs.get(run_id, ()))
