"""The run event writer: one thread persisting the events of all runs in batches. Events are numbered per
run from 1 without gaps in the order submitted, handed on only after their transaction committed (another
connection reads them at that moment), written at close, deleted in their place in the queue; a write that
fails is reported with its error and its events are never handed on, while the other runs go on."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from rabbithole.runs.event_log import NewEvent, RunEvent, RunEventLog
from rabbithole.runs.event_writer import EventWriter, EventWriterClosedError

pytestmark = pytest.mark.timeout(60)


class Recorder:
    """What the writer hands on and reports, and whether a second connection saw each event then."""

    def __init__(self, path: Path) -> None:
        self.reader = RunEventLog(path)
        self.persisted: list[RunEvent] = []
        self.visible: list[bool] = []
        self.failed: list[tuple[str, list[NewEvent], Exception]] = []
        self.threads: set[str] = set()
        self.lock = threading.Lock()

    def on_persisted(self, events: list[RunEvent]) -> None:
        with self.lock:
            self.threads.add(threading.current_thread().name)
            for event in events:
                stored = self.reader.after(event.run_id, event.seq - 1)
                self.visible.append(bool(stored) and stored[0].seq == event.seq)
                self.persisted.append(event)

    def on_failed(self, run_id: str, events: list[NewEvent], exc: Exception) -> None:
        with self.lock:
            self.failed.append((run_id, events, exc))

    def of(self, run_id: str) -> list[tuple[int, str, dict[str, object]]]:
        return [(e.seq, e.type, e.data) for e in self.persisted if e.run_id == run_id]


@pytest.fixture
def catalog(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "catalog.sqlite3"
    RunEventLog(path).close()  # the table exists
    yield path


def _writer(path: Path, recorder: Recorder, **kwargs: int) -> EventWriter:
    return EventWriter(
        RunEventLog(path), on_persisted=recorder.on_persisted, on_failed=recorder.on_failed, **kwargs
    )


def test_events_of_interleaved_runs_are_numbered_in_order_and_handed_on_once_committed(catalog: Path) -> None:
    recorder = Recorder(catalog)
    writer = _writer(catalog, recorder, max_batch=7)  # many batches, each mixing runs
    for n in range(120):
        writer.submit(NewEvent.of(f"run-{n % 3}", "task_progress", {"n": n, "type": "dropped"}))
    writer.barrier().result(timeout=30)

    assert recorder.threads == {"run-event-writer"} and all(recorder.visible)
    assert not recorder.failed
    for r in range(3):
        mine = recorder.of(f"run-{r}")
        assert [seq for seq, _, _ in mine] == list(range(1, 41))
        assert [data for _, _, data in mine] == [{"n": n} for n in range(r, 120, 3)]
        stored = recorder.reader.after(f"run-{r}")
        assert [(e.seq, e.type, e.data) for e in stored] == mine
    writer.close()


def test_numbering_continues_after_another_writer_and_after_a_delete(catalog: Path) -> None:
    recorder = Recorder(catalog)
    writer = _writer(catalog, recorder)
    writer.submit(NewEvent.of("a", "phase", {"phase": "plan"}))
    writer.barrier().result(timeout=30)
    other = RunEventLog(catalog)  # e.g. a second process, after the run's lease moved
    assert other.append("a", "phase", {"phase": "dig"}).seq == 2
    writer.submit(NewEvent.of("a", "phase", {"phase": "synthesis"}))
    writer.barrier().result(timeout=30)
    assert [e.seq for e in other.after("a")] == [1, 2, 3] and recorder.of("a")[-1][0] == 3

    writer.submit(NewEvent.of("a", "done", {"status": "done"}))
    writer.delete_run("a").result(timeout=30)  # after the event submitted before it
    assert other.after("a") == []
    writer.submit(NewEvent.of("a", "status", {"status": "queued"}))
    writer.close()
    assert [e.seq for e in other.after("a")] == [1]
    assert [seq for seq, _, _ in recorder.of("a")] == [1, 3, 4, 1] and not recorder.failed


def test_close_writes_what_is_queued_and_refuses_more(catalog: Path) -> None:
    recorder = Recorder(catalog)
    writer = _writer(catalog, recorder)
    for n in range(300):
        writer.submit(NewEvent.of("r", "task_progress", {"n": n}))
    writer.close()
    reopened = RunEventLog(catalog)
    assert [e.seq for e in reopened.after("r")] == list(range(1, 301))
    assert len(recorder.persisted) == 300 and all(recorder.visible)
    with pytest.raises(EventWriterClosedError):
        writer.submit(NewEvent.of("r", "done", {}))
    writer.close()  # again: nothing happens


def test_a_failed_write_is_reported_and_never_handed_on_while_other_runs_go_on(catalog: Path) -> None:
    with sqlite3.connect(catalog) as conn:  # a real SQLite failure, for one run only
        conn.execute(
            "CREATE TRIGGER refuse BEFORE INSERT ON run_events WHEN NEW.run_id = 'bad' "
            "BEGIN SELECT RAISE(ABORT, 'disk says no'); END"
        )
    recorder = Recorder(catalog)
    writer = _writer(catalog, recorder)
    for n in range(40):
        writer.submit(NewEvent.of("bad" if n % 4 == 0 else "good", "task_progress", {"n": n}))
    writer.close()

    assert [seq for seq, _, _ in recorder.of("good")] == list(range(1, 31))
    assert recorder.of("bad") == [] and RunEventLog(catalog).after("bad") == []
    failed = [event.data["n"] for run_id, events, _ in recorder.failed for event in events]
    assert {run_id for run_id, _, _ in recorder.failed} == {"bad"} and failed == list(range(0, 40, 4))
    assert all("disk says no" in str(exc) for _, _, exc in recorder.failed)
