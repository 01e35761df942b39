"""The order in which ingestion jobs write a collection: one at a time, uploads waiting together merged.

Two jobs writing one collection's vector index at the same time corrupted it (50 parallel uploads crashed
the server and left an index that crashed every start). So each collection has a queue, drained by one
task: the uploads waiting when it is free are ingested together in one run (one BM25 index and one registry
build for all of them, not one per upload), a rebuild runs alone, all in the order they were started.
Waiting holds no thread; the work runs in a worker thread."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

log = logging.getLogger(__name__)


@dataclass(slots=True)
class UploadWork:
    """Files of one upload job, stored under ``root``."""

    job_id: str
    root: Path
    paths: list[Path]


@dataclass(slots=True)
class ExclusiveWork:
    """Work that runs alone in its turn (a rebuild)."""

    job_id: str
    run: Callable[[], None]


Work = UploadWork | ExclusiveWork


@dataclass(slots=True)
class _CollectionQueue:
    waiting: list[Work] = field(default_factory=list)
    drainer: asyncio.Task[None] | None = None


def next_turn(waiting: list[Work]) -> tuple[list[Work], list[Work]]:
    """The work of the next turn and what stays waiting: the leading uploads of one folder together, or
    the leading exclusive work alone."""
    if not waiting:
        return [], []
    first = waiting[0]
    if isinstance(first, ExclusiveWork):
        return [first], waiting[1:]
    count = 1
    while count < len(waiting):
        item = waiting[count]
        if not isinstance(item, UploadWork) or item.root != first.root:
            break
        count += 1
    return waiting[:count], waiting[count:]


class CollectionQueues:
    """Per collection, the waiting work and the task draining it. ``ingest(collection, uploads)`` runs a
    turn of merged uploads (in a worker thread); exclusive work runs its own callable."""

    def __init__(self, ingest: Callable[[str, list[UploadWork]], None]) -> None:
        self._ingest = ingest
        self._queues: dict[str, _CollectionQueue] = {}

    def submit(self, collection: str, work: Work) -> asyncio.Task[None] | None:
        """Queue ``work``; returns the task that drains the collection's queue when this call started it."""
        queue = self._queues.setdefault(collection, _CollectionQueue())
        queue.waiting.append(work)
        if queue.drainer is not None:
            return None
        queue.drainer = asyncio.get_running_loop().create_task(self._drain(collection, queue))
        return queue.drainer

    async def _drain(self, collection: str, queue: _CollectionQueue) -> None:
        try:
            while queue.waiting:
                turn, queue.waiting = next_turn(queue.waiting)
                first = turn[0]
                try:
                    if isinstance(first, ExclusiveWork):
                        await asyncio.to_thread(first.run)
                    else:
                        uploads = [w for w in turn if isinstance(w, UploadWork)]
                        await asyncio.to_thread(self._ingest, collection, uploads)
                except Exception:  # the work reports its own failures to its jobs; this is a bug
                    log.exception("a job turn of collection %s failed", collection)
        finally:
            queue.drainer = None
