"""A run lease whose owner was killed (``kill -9``: no release, its lease still valid for minutes) is taken
over at once by a process on the same host, and a server starting on the data folder of its killed
predecessor resumes that run at start-up instead of waiting for the lease to expire."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from sqlalchemy import select

from fixtures.api_server import serving
from fixtures.run_data import run_data_copy, settings_over
from fixtures.run_kb import RUN_COLLECTION
from rabbithole.api.main import create_app
from rabbithole.core.config import Settings
from rabbithole.devtools.fake_ollama import FakeOllama
from rabbithole.runs.leases import RunLeases, parse_owner
from rabbithole.runs.store import RunRow, RunStore

pytestmark = pytest.mark.timeout(300)

#: Far longer than the test: the old code would not take the lease over before the test's timeout.
LEASE_S = 300

CLAIMER = """
import sys, time
from pathlib import Path
from rabbithole.runs.store import RunStore, RunRow
from rabbithole.runs.leases import RunLeases, process_owner
leases = RunLeases(RunStore(Path(sys.argv[1])).engine, process_owner(), float(sys.argv[3]))
assert leases.claim(sys.argv[2])
print(leases.owner, flush=True)
time.sleep(600)
"""


def claim_and_kill(catalog: Path, run_id: str) -> str:
    """A process claims the run's lease, then is killed with SIGKILL (and reaped); its owner string."""
    process = subprocess.Popen(
        [sys.executable, "-c", CLAIMER, str(catalog), run_id, str(LEASE_S)], stdout=subprocess.PIPE, text=True
    )
    assert process.stdout is not None
    owner = process.stdout.readline().strip()
    process.kill()
    process.wait()
    assert parse_owner(owner) is not None and parse_owner(owner).pid == process.pid  # type: ignore[union-attr]
    return owner


def owner_of(registry: RunStore, run_id: str) -> str | None:
    with registry.engine.connect() as conn:
        return conn.scalar(select(RunRow.owner).where(RunRow.id == run_id))


def test_a_killed_owners_lease_is_taken_over_at_once(tmp_path: Path) -> None:
    registry = RunStore(tmp_path / "catalog.db")
    run = registry.create("q", ["c"], "quick")
    dead = claim_and_kill(tmp_path / "catalog.db", run.id)
    leases = RunLeases(registry.engine, "successor", lease_s=LEASE_S)

    assert leases.holder(run.id) is None  # a dead process holds nothing
    assert leases.claim(run.id, expired_only=True, statuses=("queued",))
    assert owner_of(registry, run.id) == "successor" != dead
    assert not RunLeases(registry.engine, "third", lease_s=LEASE_S).claim(run.id)  # a live owner is kept
    registry.close()


def test_a_live_owners_lease_of_an_old_format_is_respected(tmp_path: Path) -> None:
    registry = RunStore(tmp_path / "catalog.db")
    run = registry.create("q", ["c"], "quick")
    old = RunLeases(registry.engine, f"{socket.gethostname()}:999999999:0123abcd", lease_s=LEASE_S)
    assert old.claim(run.id)  # a pid that cannot exist, but no start time: nothing tells it is dead
    assert not RunLeases(registry.engine, "successor", lease_s=LEASE_S).claim(run.id)
    registry.close()


@pytest.mark.asyncio
async def test_a_restarted_server_resumes_its_killed_predecessors_run_at_start(
    run_kb: Settings, fake_ollama: FakeOllama, tmp_path: Path
) -> None:
    data_dir = run_data_copy(run_kb, tmp_path / "data")
    settings = settings_over(data_dir, fake_ollama, run_lease_s=LEASE_S)
    registry = RunStore(settings.storage.catalog_path)
    question = "Welche Grenzwerte gelten für beruflich exponierte Personen?"
    run = registry.create(
        question, [RUN_COLLECTION], "quick", {"depth": 0}, status="running", origin="server"
    )
    dead = claim_and_kill(settings.storage.catalog_path, run.id)  # the server that was executing it

    with serving(create_app(settings)) as url:
        owner = owner_of(registry, run.id)  # its start-up is over: it adopted what it could
        assert owner is not None and owner != dead
        assert parse_owner(owner) is not None and parse_owner(owner).pid == os.getpid()  # type: ignore[union-attr]
        async with httpx.AsyncClient(base_url=url, timeout=60) as client:
            while (detail := (await client.get(f"/api/runs/{run.id}")).json())["run"]["status"] != "done":
                assert detail["run"]["status"] in ("running", "queued"), detail["run"]
                await asyncio.sleep(0.1)
            assert detail["result"]["sources"]
    registry.close()
