"""A local run stopped by a signal (issue 30): `rabbithole research` and `rabbithole report`, subprocesses as
a user runs them, stopped by SIGTERM (a service manager, `kill`, a closed terminal session) end as Ctrl-C
(SIGINT) ends them: the run is marked cancelled (its status, its final event), its lease is released, and
the process exits with EXIT_CANCELLED; never a run left "running" that no process executes."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from fixtures.run_data import process_env, run_data_copy, settings_over
from fixtures.run_kb import RUN_COLLECTION
from rabbithole.cli.run_terminal import EXIT_CANCELLED
from rabbithole.core.config import Settings
from rabbithole.devtools.fake_ollama import FakeOllama
from rabbithole.runs.event_log import RunEventLog
from rabbithole.runs.leases import RunLeases
from rabbithole.runs.store import RunStore

pytestmark = pytest.mark.timeout(600)

#: Each model answer takes this long: the run is still executing when the signal arrives.
SLOW_MS = 400

COMMANDS = {
    "research": [
        "research",
        "Welche Grenzwerte gelten für beruflich exponierte Personen?",
        "-c",
        RUN_COLLECTION,
        "--mode",
        "quick",
        "--yes",
        "--depth",
        "0",
    ],
    "report": ["report", "Grenzwerte beruflich exponierter Personen", "-c", RUN_COLLECTION, "--yes"],
}


def wait_executing(registry: RunStore, fake: FakeOllama, process: subprocess.Popen[str]) -> str:
    """The id of the run ``process`` created, once it executes it: status running, and the model asked."""
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        assert process.poll() is None, process.communicate()
        running = registry.list(status=["running"], limit=10)
        if running and fake.model_requests():
            return running[0].id
        time.sleep(0.05)
    raise AssertionError("the run never started executing")


@pytest.mark.parametrize(
    ("command", "sig"),
    [("research", signal.SIGTERM), ("report", signal.SIGTERM), ("research", signal.SIGINT)],
    ids=["research-sigterm", "report-sigterm", "research-ctrl-c"],
)
def test_a_signal_cancels_the_run_releases_its_lease_and_exits_cancelled(
    command: str, sig: signal.Signals, run_kb: Settings, fake_ollama: FakeOllama, tmp_path: Path
) -> None:
    data_dir = run_data_copy(run_kb, tmp_path / "data")
    settings = settings_over(data_dir, fake_ollama)
    registry = RunStore(settings.storage.catalog_path)
    leases = RunLeases(registry.engine, "the test", lease_s=60)
    fake_ollama.set_latency(SLOW_MS)
    env = process_env(data_dir, fake_ollama)
    process = subprocess.Popen(
        [sys.executable, "-m", "rabbithole", *COMMANDS[command]],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        run_id = wait_executing(registry, fake_ollama, process)
        process.send_signal(sig)
        _, err = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()

    assert process.returncode == EXIT_CANCELLED, err
    assert "Traceback" not in err, err
    assert f"run {run_id} cancelled" in err and f"rabbithole {command} --resume {run_id}" in err, err
    listed = subprocess.run(
        [sys.executable, "-m", "rabbithole", "runs", "--json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    statuses = {row["run_id"]: row["status"] for row in json.loads(listed.stdout)}
    assert statuses[run_id] == "cancelled"
    assert leases.holder(run_id) is None  # released: a server or `--resume` may execute it at once
    events = RunEventLog(settings.storage.catalog_path)
    log = events.after(run_id)
    assert (log[-1].type, log[-1].data) == ("done", {"status": "cancelled"})
    assert [e.data["status"] for e in log if e.type == "status"][-1] == "cancelled"
    events.close()
    registry.close()


def test_sigterm_at_a_prompt_stops_the_command_and_the_run_keeps_waiting(
    run_kb: Settings, fake_ollama: FakeOllama, tmp_path: Path
) -> None:
    """The terminal asks the clarification questions (stdin open, nobody answers): SIGTERM ends the command
    at once; the run waits for its answer, resumable, no process holding it."""
    data_dir = run_data_copy(run_kb, tmp_path / "data")
    settings = settings_over(data_dir, fake_ollama)
    registry = RunStore(settings.storage.catalog_path)
    leases = RunLeases(registry.engine, "the test", lease_s=60)
    interactive = [arg for arg in COMMANDS["research"] if arg not in ("--mode", "quick", "--yes")]
    process = subprocess.Popen(
        [sys.executable, "-m", "rabbithole", *interactive],
        env=process_env(data_dir, fake_ollama),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 300
        while not (waiting := registry.list(status=["waiting_for_input"], limit=10)):
            assert process.poll() is None and time.monotonic() < deadline, process.communicate()
            time.sleep(0.05)
        run_id = waiting[0].id
        time.sleep(1.0)  # the terminal prints the questions and waits for an answer
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()

    assert process.returncode == EXIT_CANCELLED, err
    assert "Traceback" not in err, err
    assert f"the run waits for input: rabbithole research --resume {run_id}" in err, err
    assert registry.get(run_id, with_result=False).status == "waiting_for_input"
    assert leases.holder(run_id) is None
    registry.close()
