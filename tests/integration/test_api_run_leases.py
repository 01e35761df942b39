"""Two `rabbithole serve` processes on one data directory, started together after a third was killed
with SIGKILL mid-run: every run the dead server left is taken over and executed by exactly one of them
(the run lease in the runs table), to the end, its events numbered without a gap or a repeat."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from fixtures.api_server import start_server_process, stop_server_process
from fixtures.data_copy import copy_data_dir
from fixtures.run_http import QUICK
from rabbithole.core.config import Settings
from rabbithole.devtools.fake_ollama import FakeOllama
from rabbithole.runs.event_log import RunEventLog
from rabbithole.runs.store import RunStore

pytestmark = pytest.mark.timeout(420)


@pytest.fixture(scope="module")
def slow_ollama() -> Iterator[FakeOllama]:
    with FakeOllama(latency_ms=100) as fake:
        yield fake


@pytest.fixture
def data_dir(run_kb: Settings, tmp_path: Path) -> Path:
    """A copy of the small KB's data directory whose only unfinished runs are this test's."""
    copy = tmp_path / "data"
    copy_data_dir(run_kb.storage.data_dir, copy)
    registry = RunStore(copy / run_kb.storage.catalog_path.relative_to(run_kb.storage.data_dir))
    for record in registry.list(status=["running", "queued", "waiting_for_input"], limit=100_000):
        registry.update(record.id, status="cancelled", error="not this test's")
    registry.close()
    return copy


def _env(data_dir: Path, ollama: FakeOllama) -> dict[str, str]:
    return {
        **os.environ,
        "RABBITHOLE_STORAGE__DATA_DIR": str(data_dir),
        "RABBITHOLE_LLM__BASE_URL": ollama.url,
        "RABBITHOLE_LLM__REQUEST_TIMEOUT_S": "20",
        "RABBITHOLE_RESEARCH__MAX_RUNNING_RUNS": "1",
        "RABBITHOLE_RESEARCH__RUN_LEASE_S": "20",  # far above a stall of a loaded test machine
    }


def test_two_servers_take_over_each_run_once(
    data_dir: Path, run_kb: Settings, slow_ollama: FakeOllama, tmp_path: Path
) -> None:
    env = _env(data_dir, slow_ollama)
    first, url = start_server_process(env, tmp_path / "first.log")
    started: list[subprocess.Popen[str]] = [first]
    try:
        runs = [httpx.post(f"{url}/api/runs", json=QUICK, timeout=30).json()["run_id"] for _ in range(3)]
        while httpx.get(f"{url}/api/runs/{runs[0]}", timeout=30).json()["run"]["phase"] != "dig":
            time.sleep(0.05)
        os.kill(first.pid, signal.SIGKILL)  # no shutdown: its leases are left to expire
        first.wait()

        catalog = data_dir / run_kb.storage.catalog_path.relative_to(run_kb.storage.data_dir)
        events = RunEventLog(catalog)
        before = {run_id: len(events.after(run_id)) for run_id in runs}
        assert before[runs[0]] > 0

        with ThreadPoolExecutor(2) as pool:  # the two start together and race for the runs
            both = list(pool.map(lambda n: start_server_process(env, tmp_path / f"server-{n}.log"), [0, 1]))
        started += [process for process, _ in both]
        urls = [u for _, u in both]

        for run_id in runs:
            while httpx.get(f"{urls[0]}/api/runs/{run_id}", timeout=30).json()["run"]["status"] != "done":
                time.sleep(0.2)
        time.sleep(1.0)  # a second executor, were there one, would be adding events now

        for run_id in runs:
            log = events.after(run_id)
            assert [e.seq for e in log] == list(range(1, len(log) + 1))
            after = [e.data["status"] for e in log[before[run_id] :] if e.type == "status"]
            assert after == ["running", "done"], (run_id, after)  # executed once, by one server
            assert [e.type for e in log].count("done") == 1
            for other in urls[1:]:
                seen = httpx.get(f"{other}/api/runs/{run_id}", timeout=30).json()
                assert seen["run"]["status"] == "done" and seen["last_event"] == len(log)
        events.close()
    finally:
        for process in started:
            stop_server_process(process)
