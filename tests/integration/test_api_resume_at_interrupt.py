"""An answer sent the moment a run's interrupt arrives is taken, over real HTTP (uvicorn in a thread): the run
announces its interrupt (status ``waiting_for_input`` and the ``interrupt`` event) before its task has ended
here (it still releases its lease), and a client that answers at once (the web app, the CLI's --server mode,
a script following the stream) must not be refused as busy. The lease's release is slowed down to make the
moment between the two certain."""

from __future__ import annotations

import json
import time
from typing import Any

import httpx
import pytest

from fixtures.api_server import serving
from fixtures.run_http import INTERACTIVE
from fixtures.run_kb import own_run_kb  # noqa: F401 (this module's own run_kb)
from rabbithole.api.main import create_app
from rabbithole.core.config import Settings
from rabbithole.devtools.fake_ollama import FakeOllama
from rabbithole.runs.leases import RunLeases

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(300)]


async def first_interrupt(client: httpx.AsyncClient, run_id: str) -> dict[str, Any]:
    """The run's first ``interrupt`` event, read live from its stream."""
    async with client.stream("GET", f"/api/runs/{run_id}/events") as response:
        assert response.status_code == 200
        kind = ""
        async for line in response.aiter_lines():
            if line.startswith("event:"):
                kind = line.split(":", 1)[1].strip()
            elif line.startswith("data:") and kind == "interrupt":
                event: dict[str, Any] = json.loads(line.split(":", 1)[1])
                return event
    raise AssertionError("the stream ended without an interrupt")


async def test_an_answer_sent_as_the_interrupt_arrives_is_taken(
    run_kb: Settings, fake_ollama: FakeOllama, monkeypatch: pytest.MonkeyPatch
) -> None:
    release = RunLeases.release

    def slow_release(self: RunLeases, run_id: str) -> None:
        time.sleep(1.0)
        release(self, run_id)

    monkeypatch.setattr(RunLeases, "release", slow_release)
    settings = run_kb.model_copy(update={"llm": fake_ollama.settings()})
    with serving(create_app(settings)) as url:
        async with httpx.AsyncClient(base_url=url, timeout=60) as client:
            created = await client.post("/api/runs", json=INTERACTIVE)
            assert created.status_code == 201, created.text
            run_id = created.json()["run_id"]
            interrupt = await first_interrupt(client, run_id)
            assert interrupt["kind"] == "clarification"
            answered = await client.post(f"/api/runs/{run_id}/resume", json={"answer": "/end"})
            assert answered.status_code == 202, answered.text
