"""The LLM calls a run shows while it goes on: the clarification subgraph's calls count from its first round
on (while it waits for an answer and while it prepares the next round), not only once the subgraph ends."""

from __future__ import annotations

import asyncio

import pytest

from rabbithole.devtools.fake_ollama import FakeOllama
from rabbithole.runs.runner import ResearchRunner
from rabbithole.services import Services

pytestmark = pytest.mark.asyncio

QUESTION = "Welche Dosisgrenzwerte gelten für beruflich exponierte Personen?"
NOT_CONVERGED = {
    "understanding": "Gefragt sind die Grenzwerte für beruflich exponierte Personen.",
    "coverage": 0.4,
    "gaps": ["Organdosen", "Auszubildende"],
    "questions": ["Geht es um die effektive Dosis oder um Organdosen?", "Auch um Auszubildende?"],
}


def clarify_calls(calls: dict[str, int] | None) -> tuple[int, int]:
    calls = calls or {}
    return calls.get("clarify_queries", 0), calls.get("clarify_analysis", 0)


async def test_clarification_rounds_count_their_llm_calls_as_they_go(
    research_services: Services, fake_ollama: FakeOllama
) -> None:
    fake_ollama.script(NOT_CONVERGED, schema="ClarifyAnalysis")  # the fake's default analysis converges
    runner = ResearchRunner(research_services)
    record = runner.create(QUESTION, ["sample"], "interactive", {"depth": 1})

    first = await runner.advance(record.id)
    assert first.interrupt is not None and first.interrupt["round"] == 1
    waiting = await runner.view(record.id)
    assert waiting.record.status == "waiting_for_input"
    assert clarify_calls(waiting.llm_calls) == (1, 1)  # the first round's two calls, while it waits

    seen: list[tuple[int, int]] = []

    async def poll() -> None:
        while True:
            view = await runner.view(record.id)
            if view.record.status == "running":
                seen.append(clarify_calls(view.llm_calls))
            await asyncio.sleep(0.01)

    fake_ollama.set_latency(150)  # the second round's calls take a while: the poll sees the run between them
    poller = asyncio.create_task(poll())
    try:
        second = await runner.advance(record.id, {"answer": "Nur die effektive Dosis"})
    finally:
        poller.cancel()
        fake_ollama.set_latency(0)
    assert second.interrupt is not None and second.interrupt["round"] == 2
    assert seen, "the run was never seen running"
    assert seen[0] >= (1, 1)  # the first round's calls stay counted while the second is prepared
    assert (2, 1) in seen  # the second round's queries counted before its analysis is done
    assert seen == sorted(seen)
    assert clarify_calls((await runner.view(record.id)).llm_calls) == (2, 2)
