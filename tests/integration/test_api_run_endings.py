"""Research runs end honestly, over real HTTP (uvicorn in a thread, the app's lifespan running, the fake
Ollama): a run whose model output stays invalid from the dig on ends in ``error`` (not a "done" without
evidence) and resumes to a report once the model behaves; a run whose database writes fail (a full disk)
ends in ``error`` with the reason, and its event stream ends."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import Any

import httpx
import pytest

from fixtures.api_server import serving
from fixtures.run_kb import RUN_COLLECTION
from rabbithole.api.main import create_app
from rabbithole.core.config import Settings
from rabbithole.devtools.fake_ollama import FakeOllama
from rabbithole.research.event_log import RunEventLog

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(300)]

INTERACTIVE: dict[str, Any] = {
    "question": "Welche Grenzwerte gelten für beruflich exponierte Personen?",
    "collections": [RUN_COLLECTION],
    "mode": "interactive",
    "settings": {"depth": 0},
}
QUICK: dict[str, Any] = {**INTERACTIVE, "mode": "quick"}

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


async def wait_for(client: httpx.AsyncClient, run_id: str, *statuses: str) -> dict[str, Any]:
    """Poll GET /api/runs/{id} until the run reaches one of ``statuses`` (the test's timeout guards)."""
    while True:
        response = await client.get(f"/api/runs/{run_id}")
        assert response.status_code == 200, response.text
        detail: dict[str, Any] = response.json()
        if detail["run"]["status"] in statuses:
            return detail
        assert detail["run"]["status"] not in ("error", "cancelled", "done"), detail
        await asyncio.sleep(0.05)


async def stream_to_end(client: httpx.AsyncClient, run_id: str) -> list[tuple[str, dict[str, Any]]]:
    """The run's event stream read until the server ends it: (type, data) of every event."""
    out: list[tuple[str, dict[str, Any]]] = []
    async with client.stream("GET", f"/api/runs/{run_id}/events") as response:
        assert response.status_code == 200
        kind = ""
        async for line in response.aiter_lines():
            if line.startswith("event:"):
                kind = line.split(":", 1)[1].strip()
            elif line.startswith("data:"):
                out.append((kind, json.loads(line.split(":", 1)[1])))
    return out


@pytest.mark.parametrize("fault", ["malformed", "invalid"])
async def test_invalid_model_output_from_the_dig_on_is_an_error_not_a_done_without_evidence(
    server: Server, fake_ollama: FakeOllama, fault: str
) -> None:
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

        assert detail["run"]["status"] == "error", detail["run"]
        error = detail["run"]["error"] or ""
        assert "extract" in error and "invalid" in error, error  # which step, and what was wrong
        assert any(task["title"] in error for task in detail["todo"]), error  # which task
        assert detail["result"] is None
        assert not all(task["state"] == "done" for task in detail["todo"]), detail["todo"]
        assert any(task["state"] == "error" for task in detail["todo"]), detail["todo"]
        assert events[-1][0] == "error" and "report" not in [kind for kind, _ in events]
        assert f"POST /api/runs/{run_id}/resume" in error  # a server's run: the server's way to resume

        fake_ollama.reset()  # the model behaves again
        again = await client.post(resume, json={})
        assert again.status_code == 202, again.text
        done = await wait_for(client, run_id, "done")
        assert done["result"]["sources"], "the resumed run found no sources"
        assert all(task["state"] == "done" for task in done["todo"])
        assert done["run"]["error"] is None


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


@contextmanager
def failing_event_writes(after: int) -> Iterator[None]:
    """RunEventLog.append raises sqlite's "database or disk is full" from its ``after``-th call on."""
    original = RunEventLog.append
    calls = 0

    def append(self: RunEventLog, run_id: str, event_type: str, data: dict[str, Any]) -> Any:
        nonlocal calls
        calls += 1
        if calls > after:
            raise sqlite3.OperationalError("database or disk is full")
        return original(self, run_id, event_type, data)

    RunEventLog.append = append  # type: ignore[method-assign]
    try:
        yield
    finally:
        RunEventLog.append = original  # type: ignore[method-assign]
