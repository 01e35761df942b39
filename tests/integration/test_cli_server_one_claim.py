"""One claim per run, whoever executes it: the CLI (`rabbithole research`, a subprocess as a user runs it)
and a real server (uvicorn) on one data folder. The CLI's --resume of a server's run that ended in error
executes it once under the run's lease (the server's POST resume is refused 409 meanwhile), with its
progress in the run's event log (the server shows the run done, its events numbered without a gap); the CLI
refuses a run the server executes; a server started while a fresh CLI run executes leaves it to the CLI."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from fixtures.api_server import serving
from fixtures.run_data import process_env, run_data_copy, settings_over
from fixtures.run_kb import RUN_COLLECTION
from rabbithole.api.main import create_app
from rabbithole.core.config import Settings
from rabbithole.core.errors import RunBusyError
from rabbithole.devtools.fake_ollama import FakeOllama
from rabbithole.runs.event_log import RunEventLog
from rabbithole.runs.leases import RunLeases
from rabbithole.runs.store import RunStore

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(600)]

QUESTION = "Welche Grenzwerte gelten für beruflich exponierte Personen?"
QUICK: dict[str, Any] = {
    "question": QUESTION,
    "collections": [RUN_COLLECTION],
    "mode": "quick",
    "settings": {"depth": 0},
}
#: Each model answer takes this long while the CLI executes: a wide window for the server's requests.
SLOW_MS = 150
#: Each model answer takes this long while the server executes: it outlasts the start of a CLI process.
VERY_SLOW_MS = 1500


@asynccontextmanager
async def server(settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    with serving(create_app(settings)) as url:
        async with httpx.AsyncClient(base_url=url, timeout=60) as client:
            yield client


def cli(args: list[str], data_dir: Path, fake: FakeOllama) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "rabbithole", *args],
        env=process_env(data_dir, fake),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


async def status_of(client: httpx.AsyncClient, run_id: str) -> dict[str, Any]:
    response = await client.get(f"/api/runs/{run_id}")
    assert response.status_code == 200, response.text
    detail: dict[str, Any] = response.json()
    return detail


async def wait_status(client: httpx.AsyncClient, run_id: str, *statuses: str) -> dict[str, Any]:
    while (detail := await status_of(client, run_id))["run"]["status"] not in statuses:
        await asyncio.sleep(0.05)
    return detail


async def wait_claimed(leases: RunLeases, run_id: str, process: subprocess.Popen[str]) -> None:
    """Until some process holds the run's lease (the CLI, once it started)."""
    while leases.holder(run_id) is None:
        assert process.poll() is None, process.communicate()
        await asyncio.sleep(0.05)


async def watch(
    client: httpx.AsyncClient, run_id: str, after: int, connected: asyncio.Event
) -> list[tuple[int, str]]:
    """The (number, type) of each event a stream of the run receives after ``after``, until it ends."""
    seen: list[tuple[int, str]] = []
    async with client.stream("GET", f"/api/runs/{run_id}/events", params={"after": after}) as response:
        assert response.status_code == 200
        connected.set()
        number, kind = 0, ""
        async for line in response.aiter_lines():
            if line.startswith("id: "):
                number = int(line[4:])
            elif line.startswith("event: "):
                kind = line[7:]
            elif line == "" and kind:
                seen.append((number, kind))
                kind = ""
    return seen


def finish(process: subprocess.Popen[str]) -> tuple[int, str, str]:
    out, err = process.communicate(timeout=300)
    return process.returncode, out, err


async def test_the_cli_resumes_a_servers_failed_run_once_and_the_server_follows(
    run_kb: Settings, fake_ollama: FakeOllama, tmp_path: Path
) -> None:
    data_dir = run_data_copy(run_kb, tmp_path / "data")
    settings = settings_over(data_dir, fake_ollama)
    events = RunEventLog(settings.storage.catalog_path)
    watcher = RunLeases(RunStore(settings.storage.catalog_path).engine, "the test", lease_s=60)
    async with server(settings) as client:
        # every model call fails (a model that stays unreachable): the run ends in its error state
        fake_ollama.fault("error", times=None, path="/api/chat")
        run_id = (await client.post("/api/runs", json=QUICK)).json()["run_id"]
        failed = await wait_status(client, run_id, "error", "done")
        assert failed["run"]["status"] == "error", failed["run"]
        assert f"POST /api/runs/{run_id}/resume" in failed["run"]["error"]  # a server's run, resumed there
        before = events.after(run_id)

        fake_ollama.reset()
        fake_ollama.set_latency(SLOW_MS)
        resumed = cli(["research", "--resume", run_id, "--json"], data_dir, fake_ollama)
        await wait_claimed(watcher, run_id, resumed)
        refused = await client.post(f"/api/runs/{run_id}/resume", json={})  # while the CLI executes it
        assert refused.status_code == 409, refused.text
        assert refused.json()["error"]["type"] == "RunBusyError"
        assert "executed by another process" in refused.json()["error"]["message"]
        assert resumed.poll() is None  # it was refused during the CLI's execution, not after it
        connected = asyncio.Event()
        watched = asyncio.create_task(watch(client, run_id, len(before), connected))
        await asyncio.wait_for(connected.wait(), 30)
        assert resumed.poll() is None  # the stream opened while the CLI executes the run

        code, _, err = await asyncio.to_thread(finish, resumed)
        followed = await asyncio.wait_for(watched, 60)  # the stream followed the CLI's run to its end
        assert code == 0, err
        done = await status_of(client, run_id)
        assert done["run"]["status"] == "done" and done["run"]["error"] is None
        assert done["result"]["sources"]
        calls_made = len(fake_ollama.model_requests())

    log = events.after(run_id)
    assert [e.seq for e in log] == list(range(1, len(log) + 1))  # no gap, no repeat
    assert log[: len(before)] == before
    added = log[len(before) :]
    statuses = [e.data["status"] for e in added if e.type == "status"]
    assert statuses == ["running", "done"], statuses  # executed once, by the CLI
    kinds = [e.type for e in added]
    assert "task_progress" in kinds and "report" in kinds and kinds[-1] == "done"  # the CLI's progress
    assert done["last_event"] == len(log)
    assert followed == [(e.seq, e.type) for e in added], "a stream must follow a run the CLI executes"
    assert sum(done["result"]["llm_calls"].values()) - sum(failed["llm_calls"].values()) == calls_made
    events.close()


async def test_the_cli_refuses_a_run_the_server_executes(
    run_kb: Settings, fake_ollama: FakeOllama, tmp_path: Path
) -> None:
    data_dir = run_data_copy(run_kb, tmp_path / "data")
    settings = settings_over(data_dir, fake_ollama)
    async with server(settings) as client:
        fake_ollama.set_latency(VERY_SLOW_MS)  # the server still executes it when the CLI has started
        run_id = (await client.post("/api/runs", json=QUICK)).json()["run_id"]
        await wait_status(client, run_id, "running")
        code, _, err = finish(cli(["research", "--resume", run_id], data_dir, fake_ollama))
        assert code == RunBusyError.exit_code, err
        assert "executed by another process" in err and "Traceback" not in err
        assert (await status_of(client, run_id))["run"]["status"] == "running"  # the CLI changed nothing
        fake_ollama.set_latency(0)
        done = await wait_status(client, run_id, "done", "error")
        assert done["run"]["status"] == "done", done["run"]


async def test_a_server_started_during_a_fresh_cli_run_leaves_it_to_the_cli(
    run_kb: Settings, fake_ollama: FakeOllama, tmp_path: Path
) -> None:
    data_dir = run_data_copy(run_kb, tmp_path / "data")
    settings = settings_over(data_dir, fake_ollama)
    registry = RunStore(settings.storage.catalog_path)
    watcher = RunLeases(registry.engine, "the test", lease_s=60)
    fake_ollama.set_latency(SLOW_MS)
    fresh = cli(
        ["research", QUESTION, "-c", RUN_COLLECTION, "--mode", "quick", "--yes", "--depth", "0"],
        data_dir,
        fake_ollama,
    )
    while not (mine := registry.list(status=["running"], limit=10)):
        assert fresh.poll() is None, fresh.communicate()
        await asyncio.sleep(0.05)
    run_id = mine[0].id
    await wait_claimed(watcher, run_id, fresh)
    async with server(settings) as client:  # its start-up adopts running runs nobody executes
        assert (await client.post(f"/api/runs/{run_id}/resume", json={})).status_code == 409
        code, _, err = finish(fresh)
        assert code == 0, err
        assert (await status_of(client, run_id))["run"]["status"] == "done"
    log = RunEventLog(settings.storage.catalog_path)
    statuses = [e.data["status"] for e in log.after(run_id) if e.type == "status"]
    assert statuses == ["running", "done"], statuses  # the CLI's execution only
    log.close()
    registry.close()
