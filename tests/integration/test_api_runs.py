"""The run endpoints in process (httpx over ASGI, the app's lifespan running): runs execute in the
background against the fake Ollama over a small collection; status codes, payload checks, the concurrency
cap, cancel and delete. The central tests run on both backends (``on_both_backends``: SQLite and embedded
Chroma, then PostgreSQL and a Chroma server); the rest on the embedded one."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import pytest
import pytest_asyncio
from fastapi import FastAPI
from sqlalchemy import text

from fixtures.backends import on_both_backends
from fixtures.run_http import wait_for
from fixtures.run_kb import RUN_COLLECTION
from rabbithole.api.main import create_app
from rabbithole.api.runs.progress import RunProgress
from rabbithole.api.runs.service import RunService
from rabbithole.catalog.db import create_engine_for
from rabbithole.core.config import Settings
from rabbithole.devtools.fake_ollama import FakeOllama
from rabbithole.research.models import ResearchResult

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(300)]

QUESTION = "Welche Grenzwerte gelten für beruflich exponierte Personen?"
QUICK: dict[str, Any] = {
    "question": QUESTION,
    "collections": [RUN_COLLECTION],
    "mode": "quick",
    "settings": {"depth": 0},
}

AppFactory = Callable[..., Any]


@pytest_asyncio.fixture
async def make_client(run_backend: Settings, fake_ollama: FakeOllama) -> AsyncIterator[Callable[..., Any]]:
    """``async with make_client(max_running_runs=1) as (client, app)``: the app over the small KB (on the
    backend ``run_backend`` gives)."""
    from contextlib import asynccontextmanager

    @asynccontextmanager
    async def factory(**research: Any) -> AsyncIterator[tuple[httpx.AsyncClient, FastAPI]]:
        settings = run_backend.model_copy(
            update={
                "llm": fake_ollama.settings(),
                "research": run_backend.research.model_copy(update=research),
            }
        )
        app = create_app(settings)
        async with app.router.lifespan_context(app):
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
                yield client, app

    yield factory


def persisted(app: FastAPI, run_id: str) -> list[tuple[int, str, dict[str, Any]]]:
    service: RunService = app.state.runs
    return [(e.seq, e.type, e.data) for e in service.events.after(run_id)]


@on_both_backends("run_backend")
async def test_quick_run_reports_over_http(make_client: AppFactory) -> None:
    async with make_client() as (client, app):
        created = await client.post("/api/runs", json=QUICK)
        assert created.status_code == 201, created.text
        run_id = created.json()["run_id"]
        detail = await wait_for(client, run_id, "done")

        assert detail["run"]["question"] == QUESTION and detail["mode"] == "quick"
        assert detail["overrides"] == {"depth": 0}
        assert detail["todo"] and all(t["state"] == "done" for t in detail["todo"])
        assert detail["llm_calls"]["synthesize"] >= 1 and detail["interrupt"] is None
        result = ResearchResult.model_validate(detail["result"])
        assert result.run_id == run_id and result.status == "done"

        report = await client.get(f"/api/runs/{run_id}/report")
        assert report.status_code == 200
        assert ResearchResult.model_validate(report.json()) == result
        markdown = await client.get(f"/api/runs/{run_id}/report.md")
        assert markdown.headers["content-type"].startswith("text/markdown")
        assert markdown.text == result.report_markdown

        await app.state.runs.publisher.flush()  # the run's last events may still be on their way
        detail = (await client.get(f"/api/runs/{run_id}")).json()
        events = persisted(app, run_id)
        assert [seq for seq, _, _ in events] == list(range(1, len(events) + 1))
        assert detail["last_event"] == len(events)
        types = [kind for _, kind, _ in events]
        assert types[:2] == ["status", "status"] and types[-2:] == ["status", "done"]
        statuses = [data["status"] for _, kind, data in events if kind == "status"]
        assert statuses == ["queued", "running", "done"]
        assert {"phase", "todo", "task_progress", "report"} <= set(types)

        listed = await client.get("/api/runs", params={"status": "done", "limit": 200})
        assert listed.status_code == 200
        page = listed.json()
        assert run_id in [r["run_id"] for r in page["items"]]
        assert all(r["status"] == "done" for r in page["items"]) and page["total"] >= 1

        answer = await client.post(f"/api/runs/{run_id}/resume", json={"answer": "mehr"})
        assert answer.status_code == 409 and "finished" in answer.text
        assert (await client.post(f"/api/runs/{run_id}/cancel")).status_code == 409


@on_both_backends("run_backend")
async def test_interactive_run_takes_typed_answers_and_one_of_two_at_once(make_client: AppFactory) -> None:
    async with make_client() as (client, _app):
        body = {**QUICK, "mode": "interactive"}
        run_id = (await client.post("/api/runs", json=body)).json()["run_id"]
        detail = await wait_for(client, run_id, "waiting_for_input")
        assert detail["interrupt"]["kind"] == "clarification" and detail["interrupt"]["questions"]

        wrong = await client.post(f"/api/runs/{run_id}/resume", json={"tasks": None})
        assert wrong.status_code == 422 and "clarification" in wrong.json()["error"]["message"]
        empty = await client.post(f"/api/runs/{run_id}/resume", json={})
        assert empty.status_code == 422 and "clarification" in empty.json()["error"]["message"]

        url = f"/api/runs/{run_id}/resume"
        first, second = await asyncio.gather(
            client.post(url, json={"answer": "/end"}), client.post(url, json={"answer": "/end"})
        )
        assert sorted([first.status_code, second.status_code]) == [202, 409]

        detail = await wait_for(client, run_id, "waiting_for_input")
        assert detail["interrupt"]["kind"] == "plan"
        plan = detail["interrupt"]["tasks"]
        assert [t["id"] for t in detail["todo"]] == [] or len(detail["todo"]) == len(plan)
        wrong = await client.post(f"/api/runs/{run_id}/resume", json={"answer": "ja"})
        assert wrong.status_code == 422 and "plan" in wrong.json()["error"]["message"]
        edited = [{"id": plan[0]["id"], "title": plan[0]["title"]}, {"title": "Ausnahmen nach § 3a"}]
        accepted = await client.post(url, json={"tasks": edited})
        assert accepted.status_code == 202, accepted.text

        detail = await wait_for(client, run_id, "done")
        assert [t["title"] for t in detail["todo"]] == [plan[0]["title"], "Ausnahmen nach § 3a"]
        again = await client.post(url, json={"tasks": None})
        assert again.status_code == 409


async def test_runs_beyond_the_cap_wait_in_order(make_client: AppFactory) -> None:
    async with make_client(max_running_runs=1) as (client, app):
        service: RunService = app.state.runs
        with service.broker.global_subscription() as changes:
            ids = []
            for _ in range(3):
                created = await client.post("/api/runs", json=QUICK)
                assert created.status_code == 201
                ids.append(created.json()["run_id"])
            for run_id in ids:
                await wait_for(client, run_id, "done")
        seen = [changes.get_nowait() for _ in range(changes.qsize())]
        ours = [c for c in seen if c["run_id"] in ids and c["change"] == "status"]
        running: set[str] = set()
        started: list[str] = []
        for change in ours:
            if change["status"] == "running":
                running.add(change["run_id"])
                started.append(change["run_id"])
                assert len(running) == 1, "two runs executed at once beyond the cap"
            elif change["status"] in ("done", "error", "cancelled", "waiting_for_input"):
                running.discard(change["run_id"])
        assert started == ids
        assert [c["seq"] for c in seen] == sorted(c["seq"] for c in seen)


@on_both_backends("run_backend")
async def test_cancel_delete_and_errors(make_client: AppFactory, fake_ollama: FakeOllama) -> None:
    fake_ollama.state.latency_ms = 200  # slow enough to cancel while it runs
    async with make_client(max_running_runs=1) as (client, app):
        running = (await client.post("/api/runs", json=QUICK)).json()["run_id"]
        queued = (await client.post("/api/runs", json=QUICK)).json()["run_id"]
        await wait_for(client, running, "running")
        assert (await client.get(f"/api/runs/{queued}")).json()["run"]["status"] == "queued"

        cancelled = await client.post(f"/api/runs/{running}/cancel")
        assert cancelled.status_code == 200 and cancelled.json()["status"] == "cancelled"
        assert (await client.get(f"/api/runs/{running}/report")).status_code == 409
        events = persisted(app, running)
        assert events[-1][1:] == ("done", {"status": "cancelled"})
        assert [seq for seq, _, _ in events] == list(range(1, len(events) + 1))
        assert (await client.post(f"/api/runs/{running}/cancel")).status_code == 409

        await wait_for(client, queued, "running", "done")  # the queued one started after the cancel
        deleted = await client.delete(f"/api/runs/{queued}")
        assert deleted.status_code == 200 and deleted.json() == {"run_id": queued, "deleted": True}
        for method, path in [
            ("GET", f"/api/runs/{queued}"),
            ("DELETE", f"/api/runs/{queued}"),
            ("GET", f"/api/runs/{queued}/events"),
            ("GET", f"/api/runs/{queued}/report.md"),
            ("POST", f"/api/runs/{queued}/cancel"),
        ]:
            response = await client.request(method, path)
            assert response.status_code == 404, (method, path, response.text)
        assert persisted(app, queued) == []

        missing = await client.post("/api/runs", json={**QUICK, "collections": ["nowhere"]})
        assert missing.status_code == 404 and "nowhere" in missing.text
        blank = await client.post("/api/runs", json={**QUICK, "question": "   "})
        assert blank.status_code == 422 and "empty" in blank.text
        bad_depth = await client.post("/api/runs", json={**QUICK, "settings": {"depth": 99}})
        assert bad_depth.status_code == 422
        bad_mode = await client.post("/api/runs", json={**QUICK, "mode": "fast"})
        assert bad_mode.status_code == 422
        bad_status = await client.get("/api/runs", params={"status": "sleeping"})
        assert bad_status.status_code == 422


@on_both_backends("run_backend")
async def test_runs_left_running_are_marked_resumable_when_not_resumed_on_start(
    run_backend: Settings, fake_ollama: FakeOllama, make_client: AppFactory
) -> None:
    from rabbithole.runs.runner import ResearchRunner
    from rabbithole.services import Services

    with Services(run_backend) as services:  # a run a stopped process left running, before it started
        record = ResearchRunner(services).create(QUESTION, [RUN_COLLECTION], "quick", {"depth": 0})
        services.runs.update(record.id, status="running")
    async with make_client(resume_on_start=False) as (client, app):
        detail = (await client.get(f"/api/runs/{record.id}")).json()
        assert detail["run"]["status"] == "error" and "resume" in detail["run"]["error"]
        assert [(kind, data["status"]) for _, kind, data in persisted(app, record.id)] == [
            ("status", "error")
        ]
        answer = await client.post(f"/api/runs/{record.id}/resume", json={"answer": "x"})
        assert answer.status_code == 409 and "does not wait for input" in answer.text
        resumed = await client.post(f"/api/runs/{record.id}/resume", json={})
        assert resumed.status_code == 202, resumed.text
        detail = await wait_for(client, record.id, "done")
        assert detail["run"]["error"] is None and detail["result"]["status"] == "done"


@on_both_backends("run_backend")
async def test_a_run_waiting_for_input_stays_resumable_across_a_restart(make_client: AppFactory) -> None:
    async with make_client() as (client, app):
        run_id = (await client.post("/api/runs", json={**QUICK, "mode": "interactive"})).json()["run_id"]
        await wait_for(client, run_id, "waiting_for_input")
        before = persisted(app, run_id)
    async with make_client() as (client, app):
        detail = await wait_for(client, run_id, "waiting_for_input")
        assert detail["interrupt"]["kind"] == "clarification"
        assert persisted(app, run_id) == before
        resumed = await client.post(f"/api/runs/{run_id}/resume", json={"answer": "/end"})
        assert resumed.status_code == 202
        detail = await wait_for(client, run_id, "waiting_for_input")
        assert detail["interrupt"]["kind"] == "plan"
        events = persisted(app, run_id)
        assert events[: len(before)] == before
        assert [seq for seq, _, _ in events] == list(range(1, len(events) + 1))


@on_both_backends("run_backend")
async def test_detail_of_an_executing_run_agrees_with_its_stored_events(
    make_client: AppFactory, fake_ollama: FakeOllama
) -> None:
    """While a run executes, GET shows its progress from memory; every answer must equal what its
    persisted events up to ``last_event`` say (the todo states and warnings a restarted server shows)."""
    fake_ollama.state.latency_ms = 50
    async with make_client() as (client, app):
        created = await client.post("/api/runs", json=QUICK)
        run_id = created.json()["run_id"]
        seen_running = 0
        while True:
            detail = (await client.get(f"/api/runs/{run_id}")).json()
            if detail["run"]["status"] != "running":
                if detail["run"]["status"] == "done":
                    break
                assert detail["run"]["status"] == "queued", detail
                await asyncio.sleep(0.01)
                continue
            stored = [e for e in app.state.runs.events.after(run_id) if e.seq <= detail["last_event"]]
            folded = RunProgress.of(stored, detail["last_event"])
            # shown only once persisted: the database holds at least what GET shows (maybe more, on its way)
            assert [e.seq for e in stored] == list(range(1, detail["last_event"] + 1))
            assert detail["todo"] == [t.model_dump(mode="json") for t in folded.todo()]
            assert detail["warnings"] == folded.warnings
            seen_running += bool(detail["todo"])
            await asyncio.sleep(0.02)
        assert seen_running >= 2, "the run never showed a todo list while it executed"
        await app.state.runs.publisher.flush()
        restarted = await app.state.runs.progress(run_id)
        assert restarted.last_seq == len(persisted(app, run_id))


#: A trigger that refuses the todo events of the runs in ``refused_runs``: for SQLite, for PostgreSQL.
REFUSE_SQLITE = [
    "CREATE TRIGGER refuse_todo BEFORE INSERT ON run_events WHEN NEW.type = 'todo' "
    "AND NEW.run_id IN (SELECT run_id FROM refused_runs) "
    "BEGIN SELECT RAISE(ABORT, 'disk says no'); END"
]
REFUSE_POSTGRESQL = [
    "CREATE FUNCTION refuse_todo() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
    "IF NEW.type = 'todo' AND NEW.run_id IN (SELECT run_id FROM refused_runs) THEN "
    "RAISE EXCEPTION 'disk says no'; END IF; RETURN NEW; END $$",
    "CREATE TRIGGER refuse_todo BEFORE INSERT ON run_events FOR EACH ROW EXECUTE FUNCTION refuse_todo()",
]


@contextmanager
def refused_todo_events(settings: Settings) -> Iterator[Callable[[str], None]]:
    """The database of ``settings`` refuses the todo events of the runs handed to the function it yields
    (a trigger: a real write failure, for those runs only); the trigger is dropped at the end."""
    engine = create_engine_for(settings.database.url, settings.storage.catalog_path)
    postgresql = engine.dialect.name == "postgresql"
    try:
        with engine.begin() as conn:
            conn.execute(text("CREATE TABLE refused_runs (run_id TEXT)"))
            for statement in REFUSE_POSTGRESQL if postgresql else REFUSE_SQLITE:
                conn.execute(text(statement))

        def refuse(run_id: str) -> None:
            with engine.begin() as conn:
                conn.execute(text("INSERT INTO refused_runs VALUES (:run_id)"), {"run_id": run_id})

        yield refuse
    finally:
        with engine.begin() as conn:
            conn.execute(text("DROP TRIGGER refuse_todo" + (" ON run_events" if postgresql else "")))
            if postgresql:
                conn.execute(text("DROP FUNCTION refuse_todo()"))
            conn.execute(text("DROP TABLE refused_runs"))
        engine.dispose()


@on_both_backends("run_backend")
async def test_a_run_whose_events_cannot_be_saved_ends_in_error(
    make_client: AppFactory, fake_ollama: FakeOllama, run_backend: Settings
) -> None:
    """The database refuses the run's todo event (a trigger: a real write failure, for this run only): the
    failure is not swallowed. The todo list is never shown, the run ends in ``error`` naming the cause,
    and its stream ends with that error; what was persisted stays numbered without a gap."""
    fake_ollama.state.latency_ms = 100
    async with make_client() as (client, app):
        with refused_todo_events(run_backend) as refuse:
            run_id = (await client.post("/api/runs", json=QUICK)).json()["run_id"]
            refuse(run_id)
            detail = await wait_for(client, run_id, "error")
            assert "could not be saved" in detail["run"]["error"] and "disk says no" in detail["run"]["error"]
            assert detail["todo"] == []
            async with client.stream("GET", f"/api/runs/{run_id}/events") as stream:
                lines = [line async for line in stream.aiter_lines() if line.startswith("event:")]
            assert lines[-1] == "event: error"
        events = persisted(app, run_id)
        assert [seq for seq, _, _ in events] == list(range(1, len(events) + 1))
        assert "todo" not in [kind for _, kind, _ in events]
        assert events[-2][1:] == (
            "status",
            {"status": "error", "phase": events[-2][2]["phase"], "error": detail["run"]["error"]},
        )
        assert events[-1][1:] == ("error", {"message": detail["run"]["error"]})
