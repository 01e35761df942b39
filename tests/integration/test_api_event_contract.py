"""The contract between the backend and the web app: every event of a run's stream and every interrupt
payload is a model the OpenAPI document publishes (from which the app's types are generated), and what a
real server sends validates against it. A real uvicorn (``fixtures/api_server.py``) runs a quick and an
interactive run against the fake Ollama over the small KB; every event of both streams, and every change
of the run list's stream, is validated against ``RunEventPayload`` / ``RunListChange``, so an emitter
that drifts from its model fails here."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest

from fixtures.api_server import serving
from fixtures.run_http import INTERACTIVE, QUICK
from fixtures.run_kb import own_run_kb  # noqa: F401 (this module's own run_kb)
from fixtures.sse import Sse, read_stream
from rabbithole.api.main import create_app
from rabbithole.api.runs.event_schemas import RunEventPayload, RunListChange
from rabbithole.api.runs.stream import EVENT_TYPES
from rabbithole.core.config import Settings
from rabbithole.devtools.fake_ollama import FakeOllama
from rabbithole.research.interrupts import interrupt_of_payload

pytestmark = pytest.mark.timeout(300)

INTERRUPT_KINDS = {"clarification", "plan", "outline"}


def _mapping(schemas: dict[str, Any], name: str, key: str) -> dict[str, str]:
    discriminator = schemas[name]["discriminator"]
    assert discriminator["propertyName"] == key
    return dict(discriminator["mapping"])


def test_the_openapi_document_carries_the_event_and_interrupt_unions(run_kb: Settings) -> None:
    document = create_app(run_kb).openapi()
    schemas = document["components"]["schemas"]

    events = _mapping(schemas, "RunEventPayload", "type")
    assert set(events) == set(EVENT_TYPES)
    assert events["interrupt"] == "#/components/schemas/InterruptEventPayload"
    assert set(_mapping(schemas, "InterruptEventPayload", "kind")) == INTERRUPT_KINDS
    assert set(_mapping(schemas, "Interrupt", "kind")) == INTERRUPT_KINDS
    assert set(_mapping(schemas, "RunListChange", "change")) == {"ready", "status", "phase", "deleted"}
    for ref in events.values():  # each event names its common fields and its type as required
        payload = schemas[ref.rsplit("/", 1)[1]]
        members = [schemas[m["$ref"].rsplit("/", 1)[1]] for m in payload.get("oneOf", [])] or [payload]
        for member in members:
            assert {"type", "run_id", "seq", "created_at"} <= set(member["required"]), member["title"]

    # each stream's answer is SSE frames whose ``data`` holds the JSON of the published model
    for path, model in (
        ("/api/runs/{run_id}/events", "RunEventPayload"),
        ("/api/runs/events", "RunListChange"),
    ):
        frame = document["paths"][path]["get"]["responses"]["200"]["content"]["text/event-stream"]["schema"]
        assert frame["type"] == "object" and "$ref" not in frame
        data = frame["properties"]["data"]
        assert data["type"] == "string" and data["contentMediaType"] == "application/json"
        assert data["contentSchema"] == {"$ref": f"#/components/schemas/{model}"}
    interrupt = schemas["RunDetail"]["properties"]["interrupt"]["anyOf"]
    assert {"$ref": "#/components/schemas/Interrupt"} in interrupt


def _validated(events: list[Sse], run_id: str) -> list[str]:
    """Each event validated against RunEventPayload (its SSE type its data's); their types in order."""
    for event in events:
        payload = RunEventPayload.model_validate(event.data).root
        assert payload.type == event.type and payload.run_id == run_id and payload.seq == event.id
    return [event.type for event in events]


def _waiting_for(url: str, run_id: str, kind: str) -> dict[str, Any]:
    """Poll the run's detail until it waits for a ``kind`` answer (the test's timeout guards)."""
    while True:
        detail: dict[str, Any] = httpx.get(f"{url}/api/runs/{run_id}", timeout=30).json()
        assert detail["run"]["status"] not in ("error", "cancelled", "done"), detail
        if detail["run"]["status"] == "waiting_for_input" and detail["interrupt"]["kind"] == kind:
            return detail
        time.sleep(0.05)


def test_every_event_of_a_quick_and_an_interactive_run_fits_the_contract(
    run_kb: Settings, fake_ollama: FakeOllama
) -> None:
    settings = run_kb.model_copy(update={"llm": fake_ollama.settings()})
    with serving(create_app(settings)) as url, ThreadPoolExecutor(1) as pool:
        list_url = f"{url}/api/runs/events"
        ready = pool.submit(read_stream, list_url, until=lambda seen: _all_deleted(seen, 2))

        quick = httpx.post(f"{url}/api/runs", json=QUICK, timeout=30).json()["run_id"]
        quick_types = _validated(read_stream(f"{url}/api/runs/{quick}/events"), quick)
        assert quick_types[-1] == "done"
        assert {"status", "phase", "language", "assessment", "todo", "task_progress", "report"} <= set(
            quick_types
        )

        asked = httpx.post(f"{url}/api/runs", json=INTERACTIVE, timeout=30).json()["run_id"]
        for kind, answer in (("clarification", {"answer": "/end"}), ("plan", {"tasks": None})):
            interrupt = interrupt_of_payload(_waiting_for(url, asked, kind)["interrupt"])
            assert interrupt is not None and interrupt.kind == kind  # the detail's interrupt fits its model
            resumed = httpx.post(f"{url}/api/runs/{asked}/resume", json=answer, timeout=30)
            assert resumed.status_code == 202, resumed.text
        asked_events = read_stream(f"{url}/api/runs/{asked}/events")
        asked_types = _validated(asked_events, asked)
        assert asked_types[-1] == "done"
        assert {"clarification", "plan", "interrupt", "draft_section"} <= set(asked_types)
        interrupts = [
            RunEventPayload.model_validate(e.data).root for e in asked_events if e.type == "interrupt"
        ]
        assert [getattr(i, "kind", None) for i in interrupts] == ["clarification", "plan"]

        for run_id in (quick, asked):
            assert httpx.delete(f"{url}/api/runs/{run_id}", timeout=30).status_code in (200, 204)
        changes = ready.result(timeout=120)
    parsed = [RunListChange.model_validate(change.data).root for change in changes]
    assert [c.change for c in parsed[:1]] == ["ready"]
    assert {c.change for c in parsed} == {"ready", "status", "phase", "deleted"}
    assert all(
        change.type == parsed_change.change for change, parsed_change in zip(changes, parsed, strict=True)
    )


def _all_deleted(seen: list[Sse], runs: int) -> bool:
    return sum(1 for event in seen if event.type == "deleted") >= runs
