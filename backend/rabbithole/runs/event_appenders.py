"""What the event writer (``event_writer.py``) appends its batches with, by backend: on SQLite the
``BatchAppender`` (``event_batches.py``: one INSERT statement on a connection of its own, the numbers
remembered between batches); on PostgreSQL the event log's own ``append_batch`` (one transaction that reads
the runs' last numbers and inserts the batch: nothing to remember, so a run whose lease moved to this process
continues its numbering where the last process left it). A batch whose numbers another writer took
meanwhile fails on the table's primary key and is written once more with the numbers read again. A batch
whose connection died in its transaction (PostgreSQL restarted) is looked for (``RunEventLog.committed``) and
written again only when its transaction did not commit."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from sqlalchemy.exc import DBAPIError, IntegrityError

from rabbithole.catalog.db import is_postgresql
from rabbithole.runs.event_batches import BatchAppender
from rabbithole.runs.event_log import NewEvent, RunEvent, RunEventLog


class EventAppender(Protocol):
    def append(self, new: Sequence[NewEvent]) -> list[RunEvent]: ...

    def forget(self, run_id: str) -> None: ...

    def close(self) -> None: ...


class LogAppender:
    """Batches through ``RunEventLog.append_batch`` (PostgreSQL)."""

    def __init__(self, events: RunEventLog) -> None:
        self._events = events

    def append(self, new: Sequence[NewEvent]) -> list[RunEvent]:
        try:
            return self._append(new)
        except DBAPIError as exc:
            if not exc.connection_invalidated:
                raise
        # The connection died during the batch's transaction (PostgreSQL restarted): it may have committed
        # before the answer was lost. Written again only if it did not, on a new connection (which waits
        # for a restarting server: catalog/db.py, wait_for_restarts).
        stored = self._events.committed(new)
        return stored if stored is not None else self._append(new)

    def _append(self, new: Sequence[NewEvent]) -> list[RunEvent]:
        try:
            return self._events.append_batch(new)
        except IntegrityError:  # another writer numbered events of one of these runs meanwhile
            return self._events.append_batch(new)

    def forget(self, run_id: str) -> None:
        """Nothing is remembered between batches."""

    def close(self) -> None:
        """The event log's engine is its owner's to close."""


def appender_for(events: RunEventLog) -> EventAppender:
    """The appender for the event log's backend."""
    if is_postgresql(events.engine):
        return LogAppender(events)
    return BatchAppender(events.path, events.busy_timeout_ms)
