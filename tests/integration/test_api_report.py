"""Report mode over HTTP in process (httpx over ASGI, the app's lifespan running): create, the outline
interrupt answered through /resume (approve, edit, feedback; a body that does not fit is 422, a second
answer or one to a finished run 409), section events in the persisted stream, the report as JSON and
Markdown."""

from __future__ import annotations

import asyncio
import io
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import docx
import httpx
import pytest
import pytest_asyncio
from fastapi import FastAPI

from fixtures.fake_searxng import fake_searxng_fixture, fake_searxng_server_fixture  # noqa: F401
from fixtures.run_http import wait_for
from fixtures.run_kb import RUN_COLLECTION
from rabbithole.api.main import create_app
from rabbithole.api.runs.service import RunService
from rabbithole.core.config import Settings
from rabbithole.devtools.fake_ollama import FakeOllama
from rabbithole.devtools.fake_searxng import FakeSearxng
from rabbithole.research.export import DOCX_MEDIA_TYPE

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

    too_many = {"action": "edit", "sections": [{"title": "A", "questions": ["q"] * 7}]}
    too_long = {"action": "edit", "sections": [{"title": "A", "questions": ["q" * 501]}]}
    bodies = ({"tasks": None}, {"answer": "ja"}, {}, {"action": "edit"}, {"action": "feedback"})
    for wrong in (*bodies, too_many, too_long):
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


async def test_report_docx_over_http(api: Api) -> None:
    client, _app = api
    run_id = (await client.post("/api/runs", json=REPORT)).json()["run_id"]
    await wait_for(client, run_id, "waiting_for_input")
    assert (await client.get(f"/api/runs/{run_id}/report.docx")).status_code == 409
    await client.post(f"/api/runs/{run_id}/resume", json={"action": "approve"})
    await wait_for(client, run_id, "done")
    result = (await client.get(f"/api/runs/{run_id}/report")).json()
    response = await client.get(f"/api/runs/{run_id}/report.docx")
    assert response.status_code == 200 and response.headers["content-type"] == DOCX_MEDIA_TYPE
    text = "\n".join(p.text for p in docx.Document(io.BytesIO(response.content)).paragraphs)
    for section in result["sections"]:
        assert section["title"] in text
    for source in result["sources"]:
        assert " ".join(source["quote"].split()) in " ".join(text.split())


DOSE = [
    "Which dose limits apply to occupationally exposed workers?",
    "What is the dose limit for the eye lens?",
]
WEB_OUTLINE = {
    "title": "Dose limits",
    "sections": [
        {
            "title": "Introduction",
            "description": "",
            "research": False,
            "questions": [],
            "corpus_queries": [],
        },
        {
            "title": "Dose limits",
            "description": "",
            "research": True,
            "questions": DOSE,
            "corpus_queries": [],
        },
        {"title": "Conclusion", "description": "", "research": False, "questions": [], "corpus_queries": []},
    ],
}


async def test_report_sections_search_the_web_when_configured(
    run_kb: Settings, fake_ollama: FakeOllama, fake_searxng: FakeSearxng
) -> None:
    fake_ollama.script(WEB_OUTLINE, schema="OutlineDraft")
    settings = run_kb.model_copy(
        update={"llm": fake_ollama.settings(), "web_research": fake_searxng.settings()}
    )
    async with client_for(settings) as (client, app):
        body = {**REPORT, "question": "Dose limits for occupationally exposed workers", "sections": None}
        run_id = (await client.post("/api/runs", json=body)).json()["run_id"]
        await wait_for(client, run_id, "waiting_for_input")
        await client.post(f"/api/runs/{run_id}/resume", json={"action": "approve"})
        await wait_for(client, run_id, "done")
        result = (await client.get(f"/api/runs/{run_id}/report")).json()
        service: RunService = app.state.runs
        states = [
            d["state"] for t, d in ((e.type, e.data) for e in service.events.after(run_id)) if t == "section"
        ]
    assert "searching_web" in states
    assert any(r.startswith("/search") for r in fake_searxng.requests)
    writes = [r for r in fake_ollama.model_requests() if r.schema_name == "SectionText" and r.status == 200]
    assert writes and "s2-p0-d0-w1" in json.dumps(writes[0].format)  # the web evidence was offered
    assert "20 millisievert" in writes[0].prompt
    for source in result["sources"]:
        if source["kind"] == "web":
            assert source["collection"] == "web" and source["url"] and source["quote"]
            assert f"[{source['n']}] {source['title']}, {source['url']}, (web)" in result["report_markdown"]
