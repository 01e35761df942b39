"""Batches of run events written with as few trips into SQLite as possible: one INSERT statement per batch
on a connection of its own in autocommit mode (the statement is its transaction: all or nothing), numbered
from each run's last number, which it remembers between batches.

Why not the SQLAlchemy session of ``RunEventLog.append_batch``: the thread that writes shares the GIL with
the server's busy event loop, and each call into SQLite releases the GIL and waits for it again (up to the
switch interval, 5 ms, while the loop runs Python code). A session's select, insert, commit and pool
reset cost several such waits per batch; one prepared statement and one step cost two.

The remembered numbers are checked by the table's primary key: a run whose events another writer added
meanwhile (another process after a lease moved, ``RunEventLog.append``) makes the INSERT fail on a
duplicate (run_id, seq); the numbers of the batch's runs are then read again and the batch written once
more. A batch that fails leaves nothing behind (and the numbers of its runs are read again next time).

    appender = BatchAppender(catalog_path)
    events = appender.append([NewEvent.of(run_id, "phase", {"phase": "plan"}), ...])
    appender.forget(run_id)       # after the run's events were deleted
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rabbithole.runs.event_log import NewEvent, RunEvent, encode

_COLUMNS = "(run_id, seq, type, data_json, created_at)"


class BatchAppender:
    """Not thread-safe: one thread (the event writer's) uses it."""

    def __init__(self, path: Path, busy_timeout_ms: int = 30_000) -> None:
        self._conn = sqlite3.connect(
            path, timeout=busy_timeout_ms / 1000, isolation_level=None, check_same_thread=False
        )
        self._conn.execute(f"PRAGMA busy_timeout={int(busy_timeout_ms)}")
        self._conn.execute("PRAGMA synchronous=NORMAL")  # WAL (set by the catalog): see docs/api.md
        self._last: dict[str, int] = {}

    def close(self) -> None:
        self._conn.close()

    def forget(self, run_id: str) -> None:
        self._last.pop(run_id, None)

    def append(self, new: Sequence[NewEvent]) -> list[RunEvent]:
        if not new:
            return []
        runs = {event.run_id for event in new}
        self._read_last([run for run in runs if run not in self._last])
        try:
            return self._insert(new)
        except sqlite3.IntegrityError:  # another writer added events to one of the runs meanwhile
            self._read_last(list(runs))
            return self._insert(new)
        except BaseException:
            for run in runs:
                self.forget(run)
            raise

    def _read_last(self, runs: list[str]) -> None:
        if not runs:
            return
        marks = ", ".join("?" for _ in runs)
        query = f"SELECT run_id, MAX(seq) FROM run_events WHERE run_id IN ({marks}) GROUP BY run_id"
        found = dict(self._conn.execute(query, runs).fetchall())
        for run in runs:
            self._last[run] = int(found.get(run) or 0)

    def _insert(self, new: Sequence[NewEvent]) -> list[RunEvent]:
        last = dict(self._last)
        params: list[Any] = []
        stored: list[RunEvent] = []
        for event in new:
            seq = last[event.run_id] + 1
            last[event.run_id] = seq
            data_json, data = encode(event)  # a report's result: a reference to the run's
            created = event.created_at.replace(tzinfo=None).isoformat(sep=" ", timespec="microseconds")
            params += [event.run_id, seq, event.type, data_json, created]
            stored.append(RunEvent(event.run_id, seq, event.type, data, event.created_at))
        values = ", ".join("(?, ?, ?, ?, ?)" for _ in new)
        self._conn.execute(f"INSERT INTO run_events {_COLUMNS} VALUES {values}", params)
        self._last.update(last)
        return stored
