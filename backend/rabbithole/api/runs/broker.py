"""Fan-out of live run events to the clients that watch them: one ``asyncio.Queue`` per client, for one
run's events or for the run-list changes of all runs. Lives in the server's event loop; publishing never
blocks (queues are unbounded: a slow client costs memory, never a lost event)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from rabbithole.runs.event_log import RunEvent

#: Put into a run's queues when the run is deleted: the stream ends.
CLOSED = None


class EventBroker:
    def __init__(self) -> None:
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
        """A run-list change ({change: status | phase | deleted, run_id, ...}), numbered per process."""
        self._global_seq += 1
        numbered = {**change, "seq": self._global_seq}
        for queue in self._global:
            queue.put_nowait(numbered)

    def close_run(self, run_id: str) -> None:
        for queue in self._runs.get(run_id, ()):
            queue.put_nowait(CLOSED)

    def subscribers(self, run_id: str) -> int:
        return len(self._runs.get(run_id, ()))
