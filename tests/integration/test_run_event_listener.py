"""Run events and run-list changes across workers on PostgreSQL (``runs/listener.py``,
``runs/change_sender.py``): one worker appends (its own event log, its own connections), another listens.
Every event arrives once and in order, live from the notifications; a listening connection that drops catches
up from the last event it handed on, and from what a client that started watching meanwhile already has."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from rabbithole.runs.change_sender import ChangeSender
from rabbithole.runs.event_log import NewEvent, RunEvent, RunEventLog
from rabbithole.runs.listener import RunEventListener

pytestmark = pytest.mark.timeout(300)

WAIT_S = 60.0


class Received:
    """What a listener handed on, in order (from its thread)."""

    def __init__(self) -> None:
        self.events: list[RunEvent] = []
        self.changes: list[dict[str, Any]] = []
        self._cond = threading.Condition()

    def add_events(self, events: list[RunEvent]) -> None:
        with self._cond:
            self.events.extend(events)
            self._cond.notify_all()

    def add_change(self, change: dict[str, Any]) -> None:
        with self._cond:
            self.changes.append(change)
            self._cond.notify_all()

    def seqs(self, run_id: str) -> list[int]:
        with self._cond:
            return [event.seq for event in self.events if event.run_id == run_id]

    def wait(self, done: Callable[[], bool]) -> None:
        with self._cond:
            assert self._cond.wait_for(done, WAIT_S), (self.events, self.changes)


def _wait_until(check: Callable[[], bool]) -> None:
    deadline = time.monotonic() + WAIT_S
    while not check():
        assert time.monotonic() < deadline
        time.sleep(0.02)


@pytest.fixture
def logs(tmp_path: Path, postgres_url: str) -> Iterator[tuple[RunEventLog, RunEventLog]]:
    """Two workers' event logs over one database: the one that appends, the one that listens."""
    writer = RunEventLog(tmp_path / "unused.sqlite3", url=postgres_url)
    reader = RunEventLog(tmp_path / "unused.sqlite3", url=postgres_url)
    yield writer, reader
    writer.close()
    reader.close()


def _listener(reader: RunEventLog, received: Received, watched: set[str], **kwargs: Any) -> RunEventListener:
    listener = RunEventListener(
        reader,
        origin="worker-b",
        wants=watched.__contains__,
        on_events=received.add_events,
        on_change=received.add_change,
        **kwargs,
    )
    listener.start()
    assert listener.listening(WAIT_S)
    return listener


def _append(log: RunEventLog, run_id: str, count: int) -> None:
    log.append_batch([NewEvent.of(run_id, "task_progress", {"n": n}) for n in range(count)])


def test_every_event_of_a_watched_run_arrives_once_in_order(logs: tuple[RunEventLog, RunEventLog]) -> None:
    writer, reader = logs
    received = Received()
    listener = _listener(reader, received, {"run-a", "run-b"})
    try:
        for batch in (1, 3, 2, 5, 1):  # batches of several runs, as the event writer's
            _append(writer, "run-a", batch)
            _append(writer, "run-b", 1)
            writer.append("run-unwatched", "phase", {"phase": "plan"})
        received.wait(lambda: len(received.seqs("run-a")) >= 12 and len(received.seqs("run-b")) >= 5)
        writer.append("run-a", "done", {"status": "done"})
        received.wait(lambda: len(received.seqs("run-a")) >= 13)

        assert received.seqs("run-a") == list(range(1, 14))
        assert received.seqs("run-b") == list(range(1, 6))
        assert received.seqs("run-unwatched") == []  # no client watches it: not even read
        assert [e.type for e in received.events if e.run_id == "run-a"][-1] == "done"
        assert received.events[-1].data == {"status": "done"}
    finally:
        listener.stop()


def test_a_dropped_connection_catches_up_from_the_last_event_handed_on(
    logs: tuple[RunEventLog, RunEventLog],
) -> None:
    writer, reader = logs
    received = Received()
    watched = {"run-a"}
    listener = _listener(reader, received, watched, retry_s=3.0)
    try:
        _append(writer, "run-a", 3)
        received.wait(lambda: len(received.seqs("run-a")) == 3)
        writer.append("run-c", "phase", {"phase": "plan"})  # a run a client watches from event 1 on
        _append(writer, "run-a", 1)  # notified after run-c's event: once it arrived, run-c's was read
        received.wait(lambda: len(received.seqs("run-a")) == 4)
        listener.watch("run-c", 1)  # (its stream read event 1 from the log)
        watched.add("run-c")

        listener.drop_connection()
        _wait_until(lambda: not listener.listening())
        _append(writer, "run-a", 4)  # while nobody listens: these notifications are lost
        _append(writer, "run-c", 2)
        assert not listener.listening()  # appended before the listener was back

        received.wait(lambda: len(received.seqs("run-a")) >= 8 and len(received.seqs("run-c")) >= 2)
        assert listener.listening(WAIT_S)
        _append(writer, "run-a", 1)  # live again
        received.wait(lambda: len(received.seqs("run-a")) >= 9)
        assert received.seqs("run-a") == list(range(1, 10))
        assert received.seqs("run-c") == [2, 3]  # after what its client had
    finally:
        listener.stop()


def test_run_list_changes_reach_the_other_workers_only(logs: tuple[RunEventLog, RunEventLog]) -> None:
    writer, reader = logs
    received = Received()
    listener = _listener(reader, received, set())
    own = ChangeSender(reader.engine, origin="worker-b")
    other = ChangeSender(writer.engine, origin="worker-a")
    try:
        own.send({"change": "status", "run_id": "mine", "status": "running", "phase": ""})
        own.close()  # sent (and skipped by its own worker's listener)
        for status in ("queued", "running", "done"):
            other.send({"change": "status", "run_id": "theirs", "status": status, "phase": "plan"})
        other.send({"change": "deleted", "run_id": "theirs"})
        received.wait(lambda: len(received.changes) >= 4)
        assert received.changes == [
            {"change": "status", "run_id": "theirs", "status": "queued", "phase": "plan"},
            {"change": "status", "run_id": "theirs", "status": "running", "phase": "plan"},
            {"change": "status", "run_id": "theirs", "status": "done", "phase": "plan"},
            {"change": "deleted", "run_id": "theirs"},
        ]
    finally:
        other.close()
        listener.stop()
