"""One owner of a run's life (issue 25), over real HTTP (uvicorn in a thread, the app's lifespan running, the
fake Ollama): each transition writes the run's status once and publishes exactly one ``status`` event; a run's
result is stored once, with the run, while its persisted ``report`` event holds only a reference, and every
SSE client (live, replaying from the start, replaying with Last-Event-ID) still receives the whole report.

The store's writes are counted by the database itself: a trigger on the runs table records every UPDATE of a
run's row that leaves its claim alone (whoever writes it: the store, the runner, the service), with the status
before and after. Every such write must be accounted for by exactly one event: a ``status`` event (the
status a transition wrote), a ``phase`` or a ``language`` event."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, closing
from pathlib import Path
from typing import Any

import httpx
import pytest

from fixtures.api_server import serving
from fixtures.run_http import INTERACTIVE, QUICK, wait_for
from rabbithole.api.main import create_app
from rabbithole.core.config import Settings
from rabbithole.devtools.fake_ollama import FakeOllama
from rabbithole.runs.store import RunStore

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(300)]


Server = Callable[[], Any]
Event = tuple[str, str, dict[str, Any]]  # (id, type, data)


@pytest.fixture
def server(run_kb: Settings, fake_ollama: FakeOllama) -> Iterator[Server]:
    """``async with server() as client``: an httpx client of a real uvicorn serving the app over the small KB,
    whose runs table records its writes (``run_writes``)."""
    catalog = run_kb.storage.catalog_path
    RunStore(catalog).close()  # the runs table exists
    with closing(sqlite3.connect(catalog)) as conn:
        conn.executescript(
            "CREATE TABLE IF NOT EXISTS run_writes "
            "(n INTEGER PRIMARY KEY, run_id TEXT, before TEXT, after TEXT);"
            "CREATE TRIGGER IF NOT EXISTS record_run_writes AFTER UPDATE ON research_runs "
            "WHEN new.owner IS old.owner AND new.lease_until IS old.lease_until BEGIN "
            "INSERT INTO run_writes (run_id, before, after) VALUES (new.id, old.status, new.status); END;"
        )

    @asynccontextmanager
    async def start() -> AsyncIterator[httpx.AsyncClient]:
        settings = run_kb.model_copy(update={"llm": fake_ollama.settings()})
        with serving(create_app(settings)) as url:
            async with httpx.AsyncClient(base_url=url, timeout=60) as client:
                yield client

    yield start


def run_writes(catalog: Path, run_id: str) -> list[tuple[str, str]]:
    """The writes of the run's row other than its claim's: (status before, status after), in order."""
    with closing(sqlite3.connect(catalog)) as conn:
        rows = conn.execute("SELECT before, after FROM run_writes WHERE run_id = ? ORDER BY n", (run_id,))
        return [(str(before), str(after)) for before, after in rows]


def persisted(catalog: Path, run_id: str) -> list[tuple[int, str, str]]:
    """The run's events as the events table holds them: (seq, type, data as stored)."""
    with closing(sqlite3.connect(catalog)) as conn:
        rows = conn.execute(
            "SELECT seq, type, data_json FROM run_events WHERE run_id = ? ORDER BY seq", (run_id,)
        )
        return [(int(seq), str(kind), str(data)) for seq, kind, data in rows]


async def stream(
    client: httpx.AsyncClient, run_id: str, headers: dict[str, str] | None = None
) -> list[Event]:
    """The run's event stream read until the server ends it: (id, type, data) of every event."""
    out: list[Event] = []
    async with client.stream("GET", f"/api/runs/{run_id}/events", headers=headers or {}) as response:
        assert response.status_code == 200
        event_id, kind = "", ""
        async for line in response.aiter_lines():
            if line.startswith("id:"):
                event_id = line.split(":", 1)[1].strip()
            elif line.startswith("event:"):
                kind = line.split(":", 1)[1].strip()
            elif line.startswith("data:"):
                out.append((event_id, kind, json.loads(line.split(":", 1)[1])))
    return out


def statuses(events: list[tuple[int, str, str]]) -> list[str]:
    return [json.loads(data)["status"] for _, kind, data in events if kind == "status"]


def check_writes(catalog: Path, run_id: str) -> list[str]:
    """The run's status events, after checking that each write of its row is accounted for by one event:
    a new run's status is written by its insert (announced by its first status event); each later status
    event is one write that changed the status to it, and each phase and language event one write."""
    events = persisted(catalog, run_id)
    announced = statuses(events)
    writes = run_writes(catalog, run_id)
    assert [after for before, after in writes if after != before] == announced[1:]
    progress = sum(1 for _, kind, _ in events if kind in ("phase", "language"))
    assert len(writes) == len(announced) - 1 + progress, writes
    return announced


async def test_each_transition_writes_the_status_once_and_publishes_one_status_event(
    server: Server, run_kb: Settings
) -> None:
    catalog = run_kb.storage.catalog_path
    async with server() as client:
        quick = (await client.post("/api/runs", json=QUICK)).json()["run_id"]
        await wait_for(client, quick, "done")
        asking = (await client.post("/api/runs", json=INTERACTIVE)).json()["run_id"]
        await wait_for(client, asking, "waiting_for_input")
        resumed = await client.post(f"/api/runs/{asking}/resume", json={"answer": "/end"})
        assert resumed.status_code == 202, resumed.text
        await wait_for(client, asking, "waiting_for_input")  # the plan
        cancelled = await client.post(f"/api/runs/{asking}/cancel")
        assert cancelled.status_code == 200, cancelled.text

    assert check_writes(catalog, quick) == ["queued", "running", "done"]
    assert check_writes(catalog, asking) == [
        "queued",
        "running",
        "waiting_for_input",
        "queued",
        "running",
        "waiting_for_input",
        "cancelled",
    ]


async def test_the_report_event_refers_to_the_stored_result_and_every_stream_gets_it_whole(
    server: Server, run_kb: Settings
) -> None:
    catalog = run_kb.storage.catalog_path
    async with server() as client:
        run_id = (await client.post("/api/runs", json=QUICK)).json()["run_id"]
        live = await stream(client, run_id)  # connected while the run executes
        await wait_for(client, run_id, "done")
        stored = (await client.get(f"/api/runs/{run_id}/report")).json()
        replayed = await stream(client, run_id)
        (report_id,) = [event_id for event_id, kind, _ in replayed if kind == "report"]
        after = await stream(client, run_id, {"Last-Event-ID": str(int(report_id) - 1)})

    # the result is stored once, with the run: the persisted report event holds no copy of it
    (report_row,) = [data for _, kind, data in persisted(catalog, run_id) if kind == "report"]
    assert "result" not in json.loads(report_row)
    assert stored["report_markdown"] and stored["report_markdown"] not in report_row
    assert len(report_row) < len(json.dumps(stored)) / 10

    # and every client sees the same report event, the whole result in it
    for events in (live, replayed, after):
        (report,) = [data for _, kind, data in events if kind == "report"]
        assert report["result"] == stored
        assert report["type"] == "report" and report["run_id"] == run_id and report["seq"] == int(report_id)
    assert [kind for _, kind, _ in after] == ["report", "status", "done"]
    assert live == replayed  # field by field: a replay hydrates what the live stream was handed
