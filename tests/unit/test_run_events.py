"""Run events: numbered per run from 1 without gaps (also across a reopened database), read after a
number, deleted with their run; the todo list and warnings a run's detail derives from them."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from rabbithole.api.runs.progress import RunProgress
from rabbithole.runs.event_log import RunEvent, RunEventLog


def test_events_are_numbered_per_run_and_continue_after_a_reopen(tmp_path: Path) -> None:
    path = tmp_path / "catalog.sqlite3"
    log = RunEventLog(path)
    assert [log.append("a", "phase", {"phase": p}).seq for p in ("clarify", "plan")] == [1, 2]
    assert log.append("b", "status", {"status": "queued", "type": "ignored"}).seq == 1
    log.close()

    reopened = RunEventLog(path)
    event = reopened.append("a", "done", {"status": "done"})
    assert event.seq == 3 and event.data == {"status": "done"}
    assert [(e.seq, e.type) for e in reopened.after("a", 1)] == [(2, "phase"), (3, "done")]
    assert [e.seq for e in reopened.after("a", 0, types=("phase",))] == [1, 2]
    latest = reopened.latest("a")
    assert latest is not None and latest.seq == 3 and reopened.last_seq("a") == 3
    payload = latest.payload()
    assert payload["type"] == "done" and payload["seq"] == 3 and payload["run_id"] == "a"
    assert datetime.fromisoformat(payload["created_at"]).tzinfo is not None

    reopened.delete_run("a")
    assert reopened.after("a") == [] and reopened.latest("a") is None and reopened.last_seq("a") == 0
    assert [e.seq for e in reopened.after("b")] == [1]
    reopened.close()


def _event(seq: int, kind: str, **data: Any) -> RunEvent:
    return RunEvent("r", seq, kind, data, datetime.now(UTC))


def test_todo_states_follow_the_last_plan_and_the_progress_after_it() -> None:
    events = [
        _event(1, "todo", tasks=[{"id": "t1", "title": "Old", "state": "pending"}]),
        _event(2, "todo", tasks=[{"id": "t1", "title": "A", "state": "pending"}, {"id": "t2", "title": "B"}]),
        _event(3, "task_progress", task_id="t1", step="searching", state="running"),
        _event(4, "task_progress", task_id="t2", step="searching", state="running"),
        _event(5, "task_progress", task_id="t1", step="extracting"),
        _event(6, "task_progress", task_id="t1", step="done", state="done"),
        _event(7, "task_progress", task_id="t9", step="done", state="done"),
        _event(8, "warning", message="gate output invalid: all followed"),
    ]
    progress = RunProgress.of(events)
    todo = progress.todo()
    assert [(t.id, t.title, t.state) for t in todo] == [("t1", "A", "done"), ("t2", "B", "running")]
    assert progress.warnings == ["gate output invalid: all followed"] and progress.last_seq == 8
    assert RunProgress.of([]).todo() == [] and RunProgress.of([], last_seq=4).last_seq == 4


def test_progress_kept_event_by_event_equals_the_fold_of_the_stored_events(tmp_path: Path) -> None:
    """A run executing in the server keeps its progress live, one event at a time; a reader of the
    database folds the same events; both must agree, whatever other events come between."""
    log = RunEventLog(tmp_path / "catalog.sqlite3")
    live = RunProgress()
    script: list[tuple[str, dict[str, Any]]] = [
        ("status", {"status": "running"}),
        ("todo", {"tasks": [{"id": "t1", "title": "A"}, {"id": "t2", "title": "B"}]}),
        ("task_progress", {"task_id": "t2", "state": "running"}),
        ("warning", {"message": "slow model"}),
        ("phase", {"phase": "dig"}),
        ("task_progress", {"task_id": "t2", "state": "error"}),
    ]
    for kind, data in script:
        live.add(log.append("r", kind, data))
    stored = RunProgress.of(log.after("r", 0, types=("todo", "task_progress", "warning")), log.last_seq("r"))
    assert live == stored and live.last_seq == 6
    assert [(t.id, t.state) for t in live.todo()] == [("t1", "pending"), ("t2", "error")]
    log.close()


def test_an_event_already_folded_changes_nothing() -> None:
    """A run's live progress is read from the database while events are on their way from the writer;
    such an event arrives after the read that already holds it, and must not count twice."""
    stored = RunProgress.of([_event(1, "warning", message="slow model")], last_seq=2)
    stored.add(_event(1, "warning", message="slow model"))
    stored.add(_event(2, "todo", tasks=[{"id": "t1", "title": "A"}]))
    assert stored.warnings == ["slow model"] and stored.todo() == [] and stored.last_seq == 2
    stored.add(_event(3, "warning", message="gate output invalid"))
    assert stored.warnings == ["slow model", "gate output invalid"] and stored.last_seq == 3


def test_progress_events_and_the_last_number_are_read_together(tmp_path: Path) -> None:
    log = RunEventLog(tmp_path / "catalog.sqlite3")
    for kind, data in [("todo", {"tasks": []}), ("warning", {"message": "w"}), ("phase", {"phase": "dig"})]:
        log.append("r", kind, data)
    events, last = log.progress_events("r", ("todo", "warning"))
    assert [(e.seq, e.type) for e in events] == [(1, "todo"), (2, "warning")] and last == 3
    assert log.progress_events("other", ("todo",)) == ([], 0)
    log.close()
