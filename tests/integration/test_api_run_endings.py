"""Research runs end honestly, over real HTTP (uvicorn in a thread, the app's lifespan running, the fake
Ollama): a run whose model output stays invalid from the dig on says the model could not read the passages
(never "no evidence found"); a run whose database writes fail (a full disk)
ends in ``error`` with the reason, and its event stream ends."""

from __future__ import annotations

import asyncio
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
from rabbithole.api.runs.service import RunService
from rabbithole.core.config import Settings
from rabbithole.devtools.fake_ollama import FakeOllama
from rabbithole.runs.store import RunStore

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(300)]


Server = Callable[[], Any]


@pytest.fixture
def server(run_kb: Settings, fake_ollama: FakeOllama) -> Iterator[Server]:
    """``async with server() as client``: an httpx client of a real uvicorn serving the app over the
    small KB."""

    @asynccontextmanager
    async def start() -> AsyncIterator[httpx.AsyncClient]:
        settings = run_kb.model_copy(update={"llm": fake_ollama.settings()})
        with serving(create_app(settings)) as url:
            async with httpx.AsyncClient(base_url=url, timeout=60) as client:
                yield client

    yield start


async def stream_to_end(
    client: httpx.AsyncClient, run_id: str, on_event: Callable[[str, dict[str, Any]], None] | None = None
) -> list[tuple[str, dict[str, Any]]]:
    """The run's event stream read until the server ends it: (type, data) of every event, each also
    handed to ``on_event`` as it arrives."""
    out: list[tuple[str, dict[str, Any]]] = []
    async with client.stream("GET", f"/api/runs/{run_id}/events") as response:
        assert response.status_code == 200
        kind = ""
        async for line in response.aiter_lines():
            if line.startswith("event:"):
                kind = line.split(":", 1)[1].strip()
            elif line.startswith("data:"):
                out.append((kind, json.loads(line.split(":", 1)[1])))
                if on_event is not None:
                    on_event(*out[-1])
    return out


@pytest.mark.parametrize("fault", ["malformed", "invalid"])
async def test_invalid_model_output_from_the_dig_on_never_reads_as_a_done_without_evidence(
    server: Server, fake_ollama: FakeOllama, fault: str
) -> None:
    """Issue 24 (was: an error state): extraction that stays invalid costs the passages it could not read,
    asked again in smaller batches; when the model could read none, the run finishes saying so, with where
    the unread passages are, each task in its error state with the reason: never "no evidence found"."""
    async with server() as client:
        run_id = (await client.post("/api/runs", json=INTERACTIVE)).json()["run_id"]
        resume = f"/api/runs/{run_id}/resume"
        assert (await wait_for(client, run_id, "waiting_for_input"))["interrupt"]["kind"] == "clarification"
        assert (await client.post(resume, json={"answer": "/end"})).status_code == 202
        assert (await wait_for(client, run_id, "waiting_for_input"))["interrupt"]["kind"] == "plan"

        fake_ollama.fault(fault, times=None)  # every answer from the dig on is broken / off the schema
        assert (await client.post(resume, json={"tasks": None})).status_code == 202
        events = await stream_to_end(client, run_id)
        detail = await wait_for(client, run_id, "error", "done")

        assert detail["run"]["status"] == "done", detail["run"]
        result = detail["result"]
        assert result["sources"] == [] and result["claims"] == []
        report = result["report_markdown"]
        assert "Keine Belege gefunden" not in report
        assert "Das Modell konnte" in report and "nicht lesen" in report and ".pdf S. " in report
        assert all(task["state"] == "error" for task in detail["todo"]), detail["todo"]
        assert all("could not read" in (task["error"] or "") for task in result["tasks"]), result["tasks"]
        assert any("extract" in w and "could not read" in w for w in result["warnings"]), result["warnings"]
        kinds = [kind for kind, _ in events]
        assert kinds[-1] == "done" and "report" in kinds and "error" not in kinds


async def test_a_valid_answer_without_facts_is_a_done_run_without_evidence(
    server: Server, fake_ollama: FakeOllama
) -> None:
    """The genuine "nothing found": the model answers validly with no findings."""
    fake_ollama.script({"findings": []}, schema="Extraction")
    async with server() as client:
        run_id = (await client.post("/api/runs", json=QUICK)).json()["run_id"]
        detail = await wait_for(client, run_id, "done")
        assert detail["result"]["sources"] == [] and detail["run"]["error"] is None
        assert all(task["state"] == "done" for task in detail["todo"])
    assert any(r.schema_name == "Extraction" for r in fake_ollama.model_requests())


class FullDisk:
    """A disk that fills up, in the catalog database itself (whoever writes, through whatever connection):
    while ``fill()`` holds, every new run event and every change of a run's status, phase or error fails
    with SQLite's "database or disk is full"; ``free()`` makes room again."""

    def __init__(self, catalog: Path) -> None:
        self.catalog = catalog
        RunStore(catalog).close()  # the run tables exist
        with closing(sqlite3.connect(catalog)) as conn, conn:
            conn.execute("CREATE TABLE test_full_disk (full INTEGER NOT NULL)")
            conn.execute("INSERT INTO test_full_disk VALUES (0)")
            for name, when in (
                ("test_full_events", "BEFORE INSERT ON run_events"),
                ("test_full_runs", "BEFORE UPDATE OF status, phase, error ON research_runs"),
            ):
                conn.execute(
                    f"CREATE TRIGGER {name} {when} WHEN (SELECT full FROM test_full_disk) = 1 "
                    "BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END"
                )

    def _set(self, full: int) -> None:
        with closing(sqlite3.connect(self.catalog, timeout=30)) as conn, conn:
            conn.execute("UPDATE test_full_disk SET full = ?", (full,))

    def fill(self) -> None:
        self._set(1)

    def free(self) -> None:
        self._set(0)

    def remove(self) -> None:
        with closing(sqlite3.connect(self.catalog, timeout=30)) as conn, conn:
            for statement in (
                "DROP TRIGGER test_full_events",
                "DROP TRIGGER test_full_runs",
                "DROP TABLE test_full_disk",
            ):
                conn.execute(statement)


@pytest.fixture
def full_disk(run_kb: Settings) -> Iterator[FullDisk]:
    disk = FullDisk(run_kb.storage.catalog_path)
    try:
        yield disk
    finally:
        disk.remove()


async def test_a_full_disk_ends_the_run_in_error_and_its_streams(
    run_kb: Settings, fake_ollama: FakeOllama, full_disk: FullDisk
) -> None:
    research = run_kb.research.model_copy(update={"run_lease_s": 3.0})  # retries every second
    settings = run_kb.model_copy(update={"llm": fake_ollama.settings(), "research": research})
    app = create_app(settings)
    with serving(app) as url:
        async with httpx.AsyncClient(base_url=url, timeout=60) as client:
            run_id = (await client.post("/api/runs", json=QUICK)).json()["run_id"]

            def fill_in_the_dig(kind: str, _data: dict[str, Any]) -> None:
                if kind == "task_progress":
                    full_disk.fill()

            # the stream ends (a guard, not a timing: a stream that never ends fails here)
            events = await asyncio.wait_for(stream_to_end(client, run_id, fill_in_the_dig), 120)
            assert events[-1][0] == "error", events[-3:]
            assert "disk is full" in events[-1][1]["message"]
            statuses = [data["status"] for kind, data in events if kind == "status"]
            assert statuses[-1] == "error"

            detail = (await client.get(f"/api/runs/{run_id}")).json()
            assert detail["run"]["status"] == "error", detail["run"]
            error = detail["run"]["error"] or ""
            assert "disk is full" in error and f"POST /api/runs/{run_id}/resume" in error
            late = await asyncio.wait_for(stream_to_end(client, run_id), 60)  # connects after the end
            assert late[-1][0] == "error" and late[-1][1]["seq"] == events[-1][1]["seq"]

            service: RunService = app.state.runs
            assert service.store.get(run_id).status == "running"  # nothing could be written yet
            full_disk.free()  # the kept status and final events are written now
            while service.store.get(run_id).status != "error" or service.unsaved_events(run_id, 0):
                await asyncio.sleep(0.1)
            stored = service.events.after(run_id)
            assert [e.seq for e in stored] == list(range(1, len(stored) + 1))
            assert stored[-1].type == "error" and stored[-1].seq == events[-1][1]["seq"]
            assert service.store.get(run_id).error == error

            assert (await client.post(f"/api/runs/{run_id}/resume", json={})).status_code == 202
            done = await wait_for(client, run_id, "done")
            assert done["result"]["sources"] and done["run"]["error"] is None
