"""The progress events of ingestion jobs: numbered per job, kept in memory for the life of the server
process (as the jobs are), replayable after any number and followed live by any number of clients.

Workers (ingestion threads) append; the event loop's subscribers are woken thread-safely. A subscriber
subscribes before it reads the backlog and drops live events numbered at or below the last one it has, so
a replay followed by live events has no gap and no repeat."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Literal

from pydantic import BaseModel, Field

JobEventType = Literal["queued", "parsing", "embedding", "ingested", "unchanged", "failed", "done"]
JOB_EVENT_TYPES: tuple[JobEventType, ...] = (
    "queued",
    "parsing",
    "embedding",
    "ingested",
    "unchanged",
    "failed",
    "done",
)


class JobEvent(BaseModel):
    """One step of an ingestion job: per file (queued, parsing, embedding, ingested, unchanged, failed
    with its reason), then ``done`` with the job's outcome."""

    seq: int = Field(description="The event's number in its job: 1, 2, ...")
    type: JobEventType
    job_id: str
    created_at: datetime
    file_name: str | None = None
    reason: str | None = Field(None, description="Why the file (or, on done, the job) failed.")
    status: Literal["done", "failed"] | None = Field(None, description="On done: the job's outcome.")
    done: int = Field(description="Files processed so far.")
    total: int = Field(description="Files to ingest.")


class JobEventLog:
    """The events of every job of this process, thread-safe."""

    def __init__(self) -> None:
        self._events: dict[str, list[JobEvent]] = {}
        self._subscribers: dict[str, set[tuple[asyncio.AbstractEventLoop, asyncio.Queue[JobEvent]]]] = {}
        self._lock = threading.Lock()

    def append(
        self,
        job_id: str,
        type_: JobEventType,
        *,
        done: int,
        total: int,
        file_name: str | None = None,
        reason: str | None = None,
        status: Literal["done", "failed"] | None = None,
    ) -> JobEvent:
        with self._lock:
            events = self._events.setdefault(job_id, [])
            event = JobEvent(
                seq=len(events) + 1,
                type=type_,
                job_id=job_id,
                created_at=datetime.now(UTC),
                file_name=file_name,
                reason=reason,
                status=status,
                done=done,
                total=total,
            )
            events.append(event)
            subscribers = list(self._subscribers.get(job_id, ()))
        for loop, queue in subscribers:
            try:
                loop.call_soon_threadsafe(queue.put_nowait, event)
            except RuntimeError:  # that loop has closed: its subscriber is gone
                continue
        return event

    def after(self, job_id: str, seq: int) -> list[JobEvent]:
        with self._lock:
            return [e for e in self._events.get(job_id, ()) if e.seq > seq]

    @contextmanager
    def subscription(self, job_id: str) -> Iterator[asyncio.Queue[JobEvent]]:
        """Live events of ``job_id`` for a subscriber in the running event loop."""
        queue: asyncio.Queue[JobEvent] = asyncio.Queue()
        entry = (asyncio.get_running_loop(), queue)
        with self._lock:
            self._subscribers.setdefault(job_id, set()).add(entry)
        try:
            yield queue
        finally:
            with self._lock:
                subscribers = self._subscribers.get(job_id)
                if subscribers is not None:
                    subscribers.discard(entry)
                    if not subscribers:
                        del self._subscribers[job_id]
