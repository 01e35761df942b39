"""Three API workers (`rabbithole serve` processes) over one throwaway PostgreSQL, one `chroma run` server
and one fake Ollama: runs created through one worker stream through the others, every event once and in
order; a worker killed with SIGKILL mid-run leaves its runs to the others, which continue them from their
checkpoints with event numbers that go on without a gap or a repeat; runs submitted at once across the
workers, and runs the workers find unclaimed as they start together, each execute exactly once."""

from __future__ import annotations

import threading
import time
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest

from fixtures.run_kb import RUN_COLLECTION
from fixtures.sse import Sse, assert_every_event_once, read_stream, running_starts
from fixtures.team import TeamBackend, WorkerProcess
from rabbithole.devtools.fake_ollama import FakeOllama
from rabbithole.runs.store import RunStore

pytestmark = pytest.mark.timeout(900)

QUESTION = "Welche Grenzwerte gelten für beruflich exponierte Personen?"
QUICK: dict[str, Any] = {
    "question": QUESTION,
    "collections": [RUN_COLLECTION],
    "mode": "quick",
    "settings": {"depth": 0},
}
WAIT_S = 300.0


def _create(worker: WorkerProcess) -> str:
    created = httpx.post(f"{worker.url}/api/runs", json=QUICK, timeout=60)
    assert created.status_code == 201, created.text
    run_id: str = created.json()["run_id"]
    return run_id


def _wait_done(workers: list[WorkerProcess], run_ids: list[str]) -> None:
    """Poll the runs through the workers in turn until each is done."""
    deadline = time.monotonic() + WAIT_S
    pending = list(run_ids)
    turn = 0
    while pending:
        worker = workers[turn % len(workers)]
        turn += 1
        run = httpx.get(f"{worker.url}/api/runs/{pending[0]}", timeout=60).json()["run"]
        assert run["status"] in ("queued", "running", "done"), run
        if run["status"] == "done":
            pending.pop(0)
            continue
        assert time.monotonic() < deadline, f"not done in {WAIT_S:.0f} s: {pending}"
        time.sleep(0.2)


def _phases(events: list[Sse]) -> list[str]:
    return [e.data["phase"] for e in events if e.type == "phase"]


def test_a_killed_workers_runs_finish_elsewhere_and_every_stream_sees_every_event_once(
    team: TeamBackend, fake_ollama: FakeOllama, tmp_path: Path
) -> None:
    fake_ollama.set_latency(300)  # runs are mid-way when their worker is killed
    research = {"run_lease_s": 3, "max_running_runs": 4}
    with team.workers(3, fake_ollama, tmp_path, **research) as (first, second, third):
        run_ids = [_create(first) for _ in range(3)]  # claimed by the first worker, executed there
        seen: dict[tuple[int, str], list[Sse]] = defaultdict(list)
        lock = threading.Lock()

        def follow(worker: WorkerProcess, run_id: str) -> list[Sse]:
            def note(event: Sse) -> None:
                with lock:
                    seen[(worker.number, run_id)].append(event)

            return read_stream(f"{worker.url}/api/runs/{run_id}/events", on_event=note, deadline_s=WAIT_S)

        with ThreadPoolExecutor(6) as pool:
            streams = {
                (worker.number, run_id): pool.submit(follow, worker, run_id)
                for worker in (second, third)
                for run_id in run_ids
            }
            deadline = time.monotonic() + WAIT_S
            while True:  # every run past its plan, none ended: then the first worker dies
                with lock:
                    started = [_phases(seen[(2, run_id)]) for run_id in run_ids]
                    ended = [e for events in seen.values() for e in events if e.type in ("done", "error")]
                assert not ended, ended
                if all(len(phases) >= 2 for phases in started):
                    break
                assert time.monotonic() < deadline, started
                time.sleep(0.05)
            first.kill()
            before = {run_id: len(seen[(2, run_id)]) for run_id in run_ids}
            results = {key: future.result(timeout=WAIT_S) for key, future in streams.items()}

        for run_id in run_ids:
            through_second, through_third = results[(2, run_id)], results[(3, run_id)]
            assert_every_event_once(through_second, run_id)
            assert [(e.id, e.type, e.data) for e in through_third] == [
                (e.id, e.type, e.data) for e in through_second
            ]
            assert running_starts(through_second) == 2  # the first worker's, then its successor's
            resumed = next(
                n
                for n, e in enumerate(through_second)
                if n >= before[run_id] and e.type == "status" and e.data["status"] == "running"
            )
            # continued from its checkpoint: the phases it had finished are not gone through again
            assert _phases(through_second[:resumed])[0] not in _phases(through_second[resumed:])
            replayed = read_stream(f"{second.url}/api/runs/{run_id}/events")
            assert [(e.id, e.type) for e in replayed] == [(e.id, e.type) for e in through_second]
            detail = httpx.get(f"{third.url}/api/runs/{run_id}", timeout=60).json()
            assert detail["run"]["status"] == "done" and detail["result"]["sources"]


def test_runs_submitted_at_once_across_the_workers_each_execute_once(
    team: TeamBackend, fake_ollama: FakeOllama, tmp_path: Path
) -> None:
    fake_ollama.set_latency(20)
    settings = team.settings(fake_ollama)
    store = RunStore(settings.storage.catalog_path, url=team.database_url)
    try:  # unclaimed queued runs: the workers race for them as they start
        unclaimed = [
            store.create(QUESTION, [RUN_COLLECTION], "quick", {"depth": 0}, origin="server").id
            for _ in range(6)
        ]
    finally:
        store.close()
    with team.workers(3, fake_ollama, tmp_path, max_running_runs=4) as workers:
        with ThreadPoolExecutor(20) as pool:
            submitted = list(pool.map(_create, [workers[n % 3] for n in range(20)]))
        run_ids = unclaimed + submitted
        _wait_done(workers, run_ids)
        for n, run_id in enumerate(run_ids):
            events = read_stream(f"{workers[n % 3].url}/api/runs/{run_id}/events")
            assert_every_event_once(events, run_id)
            assert running_starts(events) == 1, [(e.id, e.type, e.data.get("status")) for e in events]
