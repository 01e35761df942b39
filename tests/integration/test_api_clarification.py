"""Clarification as a conversation, over real HTTP (uvicorn in a thread, the app's lifespan running, the fake
Ollama answering after a delay): the user's answers and the "enough, start the research" choice are in the
run's events (a later reader, a reloaded page, sees them), and the corpus search of a round reports its
progress live, before the round's questions arrive."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
import pytest

from fixtures.api_server import serving
from fixtures.run_http import INTERACTIVE, wait_for
from fixtures.run_kb import own_run_kb  # noqa: F401 (this module's own run_kb)
from rabbithole.api.main import create_app
from rabbithole.core.config import Settings
from rabbithole.devtools.fake_ollama import FakeOllama
from rabbithole.research.clarify.schemas import ClarifyAnalysis

pytestmark = [pytest.mark.asyncio, pytest.mark.timeout(300)]

Event = tuple[str, dict[str, Any]]
ANSWER = "Nur die Grenzwerte für Beschäftigte, nicht für die Bevölkerung."


@pytest.fixture
def client_of(run_kb: Settings, fake_ollama: FakeOllama) -> Iterator[Any]:
    """``async with client_of() as client``: an httpx client of a real uvicorn serving the app over the
    small KB."""

    @asynccontextmanager
    async def start() -> AsyncIterator[httpx.AsyncClient]:
        settings = run_kb.model_copy(update={"llm": fake_ollama.settings()})
        with serving(create_app(settings)) as url:
            async with httpx.AsyncClient(base_url=url, timeout=60) as client:
                yield client

    yield start


async def events_until_interrupt(
    client: httpx.AsyncClient, run_id: str, after: int, kind_of_interrupt: str | None = None
) -> tuple[list[tuple[int, str, dict[str, Any]]], list[dict[str, Any]]]:
    """The run's events after ``after``, read live until the next interrupt (of ``kind_of_interrupt``, when
    given); and, for each
    ``clarification_progress`` event that reports a round's search complete, the run's detail read the
    moment it arrived."""
    events: list[tuple[int, str, dict[str, Any]]] = []
    at_search_end: list[dict[str, Any]] = []
    async with client.stream("GET", f"/api/runs/{run_id}/events", params={"after": after}) as response:
        assert response.status_code == 200
        kind, seq = "", 0
        async for line in response.aiter_lines():
            if line.startswith("event:"):
                kind = line.split(":", 1)[1].strip()
            elif line.startswith("id:"):
                seq = int(line.split(":", 1)[1])
            elif line.startswith("data:"):
                data = json.loads(line.split(":", 1)[1])
                events.append((seq, kind, data))
                searched = kind == "clarification_progress" and data["step"] == "searching"
                if searched and data["queries"] and data["searched"] == data["queries"]:
                    at_search_end.append((await client.get(f"/api/runs/{run_id}")).json())
                if kind == "interrupt" and kind_of_interrupt in (None, data["kind"]):
                    break
    return events, at_search_end


async def test_answers_the_end_and_search_progress_are_in_the_run_events(
    client_of: Any, fake_ollama: FakeOllama
) -> None:
    fake_ollama.set_latency(300)  # each model call takes a moment, as a real one does
    analysis = ClarifyAnalysis(
        understanding="Die Grenzwerte der Strahlenexposition beruflich exponierter Personen.",
        coverage=0.4,
        gaps=["Organdosen", "Notfallexpositionen", "Ausnahmen"],
        questions=[
            "Geht es um Beschäftigte oder auch um die Bevölkerung?",
            "Welche Organe interessieren Sie?",
        ],
    )
    fake_ollama.script(analysis.model_dump(), schema=ClarifyAnalysis)  # never converged: a second round
    async with client_of() as client:
        run_id = (await client.post("/api/runs", json=INTERACTIVE)).json()["run_id"]
        resume = f"/api/runs/{run_id}/resume"

        first, at_first_search = await events_until_interrupt(client, run_id, 0)
        assert first[-1][2]["kind"] == "clarification" and first[-1][2]["round"] == 1
        steps = [(d["round"], d["step"]) for _, k, d in first if k == "clarification_progress"]
        assert steps[0] == (1, "planning") and (1, "analyzing") in steps
        searching = [d for _, k, d in first if k == "clarification_progress" and d["step"] == "searching"]
        queries = searching[0]["queries"]
        assert queries >= 1 and [d["searched"] for d in searching] == list(range(queries + 1))
        assert searching[-1]["passages"] > 0
        assert [d["passages"] for d in searching] == sorted(d["passages"] for d in searching)
        # the search's progress came while the round was still being prepared: no question yet
        assert len(at_first_search) == 1
        assert at_first_search[0]["run"]["status"] == "running" and at_first_search[0]["interrupt"] is None

        assert (await client.post(resume, json={"answer": f"  {ANSWER} "})).status_code == 202
        second, at_second_search = await events_until_interrupt(client, run_id, first[-1][0])
        answers = [d for _, k, d in second if k == "clarification_answer"]
        assert answers == [{**answers[0], "round": 1, "answer": ANSWER, "ended": False}]
        kinds = [k for _, k, _ in second]
        assert kinds.index("clarification_answer") < kinds.index("clarification_progress")
        assert second[-1][2]["kind"] == "clarification" and second[-1][2]["round"] == 2
        assert at_second_search and at_second_search[0]["interrupt"] is None
        assert {(d["round"], d["step"]) for _, k, d in second if k == "clarification_progress"} >= {
            (2, "planning"),
            (2, "searching"),
            (2, "analyzing"),
        }

        assert (await client.post(resume, json={"answer": "/end"})).status_code == 202
        assert (await wait_for(client, run_id, "waiting_for_input"))["interrupt"]["kind"] == "plan"

        # a later reader (a reloaded page, a second tab) replays the whole exchange from the events
        replayed, _ = await events_until_interrupt(client, run_id, 0, "plan")
        assert replayed[-1][2]["kind"] == "plan"
        answered = [
            (d["round"], d["answer"], d["ended"]) for _, k, d in replayed if k == "clarification_answer"
        ]
        assert answered == [(1, ANSWER, False), (2, "/end", True)]
        rounds = {d["round"]["round"] for _, k, d in replayed if k == "clarification"}
        assert rounds == {1, 2}
        anchoring = [d for _, k, d in replayed if k == "clarification_progress" and d["step"] == "anchoring"]
        assert [d["round"] for d in anchoring] == [2]
        seqs = [seq for seq, _, _ in replayed]
        assert seqs == list(range(1, len(seqs) + 1))
