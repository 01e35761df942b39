"""The progress events of ingestion jobs: numbered per job and kept in the database (``JobStore``), so any
server process replays them after any number; the process executing a job also wakes its own followers at
once.

Workers (ingestion threads) append: the event is stored first, then this process's subscribers are woken
thread-safely. A follower reads the stored events after the last one it has whenever it is woken, and at
least every ``POLL_S`` seconds (the events of a job another process executes arrive that way), so a replay
followed by live events has no gap and no repeat."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Literal

from rabbithole.ingestion.job_models import JOB_EVENT_TYPES, JobEvent, JobEventType
from rabbithole.ingestion.job_store import JobStore

__all__ = ["JOB_EVENT_TYPES", "POLL_S", "JobEvent", "JobEventLog", "JobEventType"]

#: Seconds a follower waits for a wake-up before it reads the stored events again.
POLL_S = 0.5


class JobEventLog:
    """The events of every job: this process's appended and stored, everyone's read back."""

    def __init__(self, store: JobStore) -> None:
        self.store = store
        self._numbers: dict[str, int] = {}
        self._subscribers: dict[str, set[tuple[asyncio.AbstractEventLoop, asyncio.Event]]] = {}
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
        """Number, store and announce one event of a job this process executes."""
        with self._lock:
            seq = self._numbers.get(job_id, 0) + 1
            self._numbers[job_id] = seq
            event = JobEvent(
                seq=seq,
                type=type_,
                job_id=job_id,
                created_at=datetime.now(UTC),
                file_name=file_name,
                reason=reason,
                status=status,
                done=done,
                total=total,
            )
            self.store.append(event)
            if type_ == "done":
                del self._numbers[job_id]
            subscribers = list(self._subscribers.get(job_id, ()))
        for loop, woken in subscribers:
            try:
                loop.call_soon_threadsafe(woken.set)
            except RuntimeError:  # that loop has closed: its subscriber is gone
                continue
        return event

    def after(self, job_id: str, seq: int) -> list[JobEvent]:
        """The stored events of ``job_id`` numbered above ``seq`` (blocking: call it in a thread)."""
        return self.store.events_after(job_id, seq)

    @contextmanager
    def subscription(self, job_id: str) -> Iterator[asyncio.Event]:
        """An event set whenever this process appends to ``job_id`` (for a follower in the running loop)."""
        woken = asyncio.Event()
        entry = (asyncio.get_running_loop(), woken)
        with self._lock:
            self._subscribers.setdefault(job_id, set()).add(entry)
        try:
            yield woken
        finally:
            with self._lock:
                subscribers = self._subscribers.get(job_id)
                if subscribers is not None:
                    subscribers.discard(entry)
                    if not subscribers:
                        del self._subscribers[job_id]
