"""The runs' storage on both backends (``database_url``: the SQLite catalog file, a PostgreSQL database),
through the public APIs: the run store, the event log, the event writer's batches, the leases, and two
processes racing to claim 20 runs (each claimed exactly once)."""

from __future__ import annotations

import multiprocessing
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from rabbithole.runs.event_log import NewEvent, RunEvent, RunEventLog
from rabbithole.runs.event_writer import EventWriter
from rabbithole.runs.leases import RunLeases
from rabbithole.runs.store import RunStore

pytestmark = pytest.mark.timeout(300)


def test_the_run_store(tmp_path: Path, database_url: str) -> None:
    store = RunStore(tmp_path / "catalog.sqlite3", url=database_url)
    try:
        first = store.create("Welche Grenzwerte?", ["sample"], "quick", {"max_tasks": 2})
        second = store.create("Which limits?", ["sample", "other"], "deep", status="waiting", origin="server")
        assert [r.id for r in store.list()] == [second.id, first.id]  # newest first
        assert [r.id for r in store.list(status=["waiting"])] == [second.id]
        assert store.count() == 2 and store.count(status=["queued"]) == 1
        assert store.ids_starting_with(first.id[:6]) == [first.id]
        assert store.ids_starting_with("%") == [] and store.ids_starting_with("_") == []  # no LIKE patterns

        store.update(first.id, status="running", phase="plan", language="de")
        record = store.get(first.id)
        assert (record.status, record.phase, record.language) == ("running", "plan", "de")
        assert record.collections == ["sample"] and record.overrides == {"max_tasks": 2}
        assert record.created_at.tzinfo is not None and record.updated_at >= record.created_at
        assert abs(record.created_at - datetime.now(UTC)) < timedelta(hours=1)  # stored in UTC
        store.update(first.id, error="Ollama is down")
        assert store.get(first.id).error == "Ollama is down"
        store.update(first.id, status="error")
        assert store.get(first.id).error == "Ollama is down"  # kept unless given
        assert store.get(second.id).origin == "server"

        store.delete(first.id)
        assert [r.id for r in store.list()] == [second.id]
    finally:
        store.close()


def test_the_event_log(tmp_path: Path, database_url: str) -> None:
    path = tmp_path / "catalog.sqlite3"
    log = RunEventLog(path, url=database_url)
    reader = RunEventLog(path, url=database_url)  # another connection pool (another process)
    try:
        assert log.append("a", "phase", {"phase": "plan", "type": "ignored"}).seq == 1
        batch = log.append_batch(
            [
                NewEvent.of("a", "progress", {"done": 1, "note": "Größe"}),
                NewEvent.of("b", "phase", {"phase": "dig"}),
                NewEvent.of("a", "progress", {"done": 2}),
            ]
        )
        assert [(e.run_id, e.seq) for e in batch] == [("a", 2), ("b", 1), ("a", 3)]
        assert [e.seq for e in reader.after("a")] == [1, 2, 3]
        assert [e.data.get("done") for e in reader.after("a", 1)] == [1, 2]
        assert reader.after("a", 0, types=("phase",))[0].data == {"phase": "plan"}
        assert reader.after("a")[1].data["note"] == "Größe"
        latest = reader.latest("a")
        assert latest is not None and latest.seq == 3 and latest.created_at.tzinfo is not None
        progress, last = reader.progress_events("a", ("progress",))
        assert [e.seq for e in progress] == [2, 3] and last == 3
        assert reader.last_seq("b") == 1 and reader.last_seq("nobody") == 0
        log.delete_run("a")
        assert reader.after("a") == [] and reader.last_seq("b") == 1
    finally:
        log.close()
        reader.close()


def test_the_event_writer_numbers_each_run_from_its_last_event(tmp_path: Path, database_url: str) -> None:
    path = tmp_path / "catalog.sqlite3"
    log = RunEventLog(path, url=database_url)
    log.append("a", "phase", {"phase": "plan"})  # written before, by another process
    persisted: list[RunEvent] = []
    failed: list[tuple[str, list[NewEvent], Exception]] = []
    done = threading.Event()

    def on_persisted(events: list[RunEvent]) -> None:
        persisted.extend(events)
        if len(persisted) >= 40:
            done.set()

    writer = EventWriter(
        RunEventLog(path, url=database_url),
        on_persisted=on_persisted,
        on_failed=lambda run_id, events, exc: failed.append((run_id, events, exc)),
    )
    try:
        for n in range(20):
            writer.submit(NewEvent.of("a", "progress", {"n": n}))
            writer.submit(NewEvent.of("b", "progress", {"n": n}))
        assert done.wait(60)
    finally:
        writer.close()
    assert failed == []
    assert [e.seq for e in log.after("a")] == list(range(1, 22))
    assert [e.data["n"] for e in log.after("b")] == list(range(20))
    log.close()


def test_leases(tmp_path: Path, database_url: str) -> None:
    store = RunStore(tmp_path / "catalog.sqlite3", url=database_url)
    ours = RunLeases(store.engine, "worker-1", lease_s=30)
    theirs = RunLeases(store.engine, "worker-2", lease_s=30)
    try:
        run = store.create("q", ["c"], "quick")
        assert ours.claim(run.id) and ours.claim(run.id)  # taken, then renewed
        assert not theirs.claim(run.id)
        assert ours.holder(run.id) == "worker-1"
        assert theirs.renew([run.id]) == {run.id}  # not theirs to renew
        assert ours.renew([run.id]) == set()
        assert not theirs.claim(run.id, statuses=["queued"])
        ours.release(run.id)
        assert ours.holder(run.id) is None
        assert not theirs.claim(run.id, statuses=["running"])  # checked in the same statement
        assert theirs.claim(run.id, statuses=["queued"])

        created = store.create("q2", ["c"], "quick", claim=ours.new_claim())
        assert store.get(created.id) and not theirs.claim(created.id)
        expiring = RunLeases(store.engine, "worker-3", lease_s=0.001)
        late = store.create("q3", ["c"], "quick")
        assert expiring.claim(late.id)
        threading.Event().wait(0.05)  # let its lease run out
        assert theirs.claim(late.id, expired_only=True)  # a lease let expire is free
        assert theirs.holder(late.id) == "worker-2"
    finally:
        store.close()


def _claim_all(path: str, url: str, run_ids: list[str], owner: str, barrier: Any, out: Any) -> None:
    store = RunStore(Path(path), url=url)
    leases = RunLeases(store.engine, owner, lease_s=600)
    barrier.wait()
    won = [run_id for run_id in run_ids if leases.claim(run_id)]
    out.put((owner, won))
    store.close()


def test_two_processes_racing_claim_each_run_once(tmp_path: Path, database_url: str) -> None:
    path = tmp_path / "catalog.sqlite3"
    store = RunStore(path, url=database_url)
    run_ids = [store.create(f"q{n}", ["c"], "quick").id for n in range(20)]
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(2)
    out = context.Queue()
    workers = [
        context.Process(
            target=_claim_all, args=(str(path), database_url, run_ids, f"worker-{n}", barrier, out)
        )
        for n in range(2)
    ]
    for worker in workers:
        worker.start()
    results = dict(out.get(timeout=240) for _ in workers)
    for worker in workers:
        worker.join(timeout=60)
        assert worker.exitcode == 0
    claimed = [run_id for won in results.values() for run_id in won]
    assert sorted(claimed) == sorted(run_ids)  # every run claimed, none twice
    leases = RunLeases(store.engine, "observer", lease_s=600)
    for owner, won in results.items():
        assert all(leases.holder(run_id) == owner for run_id in won)  # the database agrees
    store.close()
