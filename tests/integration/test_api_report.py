"""Report mode over HTTP in process (httpx over ASGI, the app's lifespan running): create, the outline
interrupt answered through /resume (approve, edit, feedback; a body that does not fit is 422, a second
answer or one to a finished run 409), section events in the persisted stream, the report as JSON and
Markdown."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
import pytest
import pytest_asyncio
from fastapi import FastAPI

from fixtures.run_kb import RUN_COLLECTION
from rabbithole.api.main import create_app
from rabbithole.api.runs.service import RunService
from rabbithole.core.config import Settings
from rabbithole.devtools.fake_ollama import FakeOllama

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(300)]

REPORT: dict[str, Any] = {
    "question": "Prüfpflichten und Fristen nach dem Prüfgesetz",
    "collections": [RUN_COLLECTION],
    "mode": "report",
    "guidance": "Für Betreiber, kurz",
    "sections": ["Fristen"],
    "refinement_rounds": 0,
    "settings": {"depth": 0},
}


@asynccontextmanager
async def client_for(settings: Settings) -> AsyncIterator[tuple[httpx.AsyncClient, FastAPI]]:
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
            yield client, app


@pytest_asyncio.fixture
async def api(run_kb: Settings, fake_ollama: FakeOllama) -> AsyncIterator[tuple[httpx.AsyncClient, FastAPI]]:
    async with client_for(run_kb.model_copy(update={"llm": fake_ollama.settings()})) as pair:
        yield pair


async def wait_for(client: httpx.AsyncClient, run_id: str, *statuses: str) -> dict[str, Any]:
    while True:
        response = await client.get(f"/api/runs/{run_id}")
        assert response.status_code == 200, response.text
        detail: dict[str, Any] = response.json()
        if detail["run"]["status"] in statuses:
            return detail
        assert detail["run"]["status"] not in ("error", "cancelled", "done"), detail
        await asyncio.sleep(0.05)


Api = tuple[httpx.AsyncClient, FastAPI]


async def test_report_run_over_http(api: Api, fake_ollama: FakeOllama) -> None:
    client, app = api
    created = await client.post("/api/runs", json=REPORT)
    assert created.status_code == 201, created.text
    run_id = created.json()["run_id"]
    detail = await wait_for(client, run_id, "waiting_for_input")
    assert detail["run"]["mode"] == "report" and detail["overrides"]["guidance"] == "Für Betreiber, kurz"
    interrupt = detail["interrupt"]
    assert interrupt["kind"] == "outline" and "Fristen" in [s["title"] for s in interrupt["sections"]]
    url = f"/api/runs/{run_id}/resume"

    for wrong in ({"tasks": None}, {"answer": "ja"}, {}, {"action": "edit"}, {"action": "feedback"}):
        response = await client.post(url, json=wrong)
        assert response.status_code == 422, (wrong, response.text)
    assert "outline" in (await client.post(url, json={"tasks": None})).json()["error"]["message"]

    feedback = await client.post(url, json={"action": "feedback", "feedback": "Mit Beispielen"})
    assert feedback.status_code == 202, feedback.text
    detail = await wait_for(client, run_id, "waiting_for_input")
    assert detail["interrupt"]["round"] == 1
    sections = detail["interrupt"]["sections"]
    edited = [{"id": s["id"], "title": s["title"], "research": s["research"]} for s in reversed(sections)]
    first, second = await asyncio.gather(
        client.post(url, json={"action": "edit", "sections": edited}),
        client.post(url, json={"action": "approve"}),
    )
    assert sorted([first.status_code, second.status_code]) == [202, 409]

    detail = await wait_for(client, run_id, "done")
    result = (await client.get(f"/api/runs/{run_id}/report")).json()
    titles = [s["title"] for s in result["sections"]]
    assert titles in ([s["title"] for s in reversed(sections)], [s["title"] for s in sections])
    assert all({"title", "research", "markdown", "grade", "rounds"} <= set(s) for s in result["sections"])
    markdown = (await client.get(f"/api/runs/{run_id}/report.md")).text
    assert markdown == result["report_markdown"] and all(f"## {t}" in markdown for t in titles)
    again = await client.post(url, json={"action": "approve"})
    assert again.status_code == 409

    service: RunService = app.state.runs
    events = [(e.type, e.data) for e in service.events.after(run_id)]
    states = {d["state"] for t, d in events if t == "section"}
    assert {"researching", "writing", "graded", "done"} <= states
    assert any(t == "outline" for t, _ in events) and events[-1][0] in ("done", "status")


async def test_report_fields_only_in_report_mode(api: Api) -> None:
    client, _app = api
    body = {**REPORT, "mode": "quick"}
    refused = await client.post("/api/runs", json=body)
    assert refused.status_code == 422 and "report mode" in refused.text
    bad_rounds = await client.post("/api/runs", json={**REPORT, "refinement_rounds": 9})
    assert bad_rounds.status_code == 422
