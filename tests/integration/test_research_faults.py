"""Research runs when the model misbehaves: broken, truncated and invalid output, thinking models, timeouts,
and several runs at once in one process."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from rabbithole.core.errors import RunFailedError
from rabbithole.devtools.fake_ollama import FakeOllama, PromptContext, generate_instance
from rabbithole.research import llm_step
from rabbithole.runs.runner import ResearchRunner, run_research
from rabbithole.services import Services

pytestmark = pytest.mark.asyncio

QUESTION = "Welche Pflichten hat der Strahlenschutzverantwortliche?"
QUICK = {"depth": 1}


async def test_malformed_answers_are_retried(research_services: Services, fake_ollama: FakeOllama) -> None:
    fake_ollama.fault("malformed", times=2)  # the first two model answers are broken JSON
    result = await run_research(research_services, QUESTION, ["sample"], overrides=QUICK)
    assert result.status == "done" and result.sources
    assert result.llm_calls["anchor"] == 3  # two broken answers, then a valid one
    assert not [w for w in result.warnings if "anchor" in w]


async def test_truncated_plan_falls_back_to_the_question_alone(
    research_services: Services, fake_ollama: FakeOllama
) -> None:
    fake_ollama.script('{"tasks": [{"title": "Pflichten nach § 72", "queries": ["Pfl', schema="PlanDraft")
    result = await run_research(research_services, QUESTION, ["sample"], overrides=QUICK)
    assert result.status == "done"
    assert [t.title for t in result.tasks] == [QUESTION]
    assert any(w.startswith("plan: the model's output stayed invalid") for w in result.warnings)
    retries = research_services.settings.llm.structured_retries
    assert result.llm_calls["plan"] == 1 + retries


async def test_invalid_gate_follows_every_reference(
    research_services: Services, fake_ollama: FakeOllama
) -> None:
    fake_ollama.script("I think all of them matter.", schema="ReferenceGate")
    result = await run_research(research_services, QUESTION, ["sample"], overrides=QUICK)
    assert result.status == "done"
    assert any("gate" in w and "followed" in w for w in result.warnings)
    assert sum(t.references_followed for t in result.tasks) > 0


async def test_thinking_model_reasoning_never_reaches_the_report(
    research_services: Services, fake_ollama: FakeOllama
) -> None:
    def think_first(request: Any) -> str:
        body = generate_instance(request.format, PromptContext.from_messages(request.messages))
        return "<think>SECRET REASONING about the plan</think>\n" + json.dumps(body, ensure_ascii=False)

    fake_ollama.script(think_first, schema="AnchorDraft")
    fake_ollama.script(think_first, schema="PlanDraft")
    result = await run_research(research_services, QUESTION, ["sample"], overrides=QUICK)
    assert result.status == "done" and len(result.tasks) >= 2
    assert "SECRET" not in result.model_dump_json()


async def test_synthesis_that_stays_invalid_ends_with_the_findings_assembled(
    research_services: Services, fake_ollama: FakeOllama
) -> None:
    """A model that never answers a section validly does not fail a run that holds verified findings:
    each section is asked again once, then assembled from its findings, labelled with the reason."""
    fake_ollama.script("no report today", schema="SectionDraft")
    result = await run_research(research_services, QUESTION, ["sample"], overrides=QUICK)
    assert result.status == "done" and result.sources
    assert result.assembled_sections
    assert {a.reason for a in result.assembled_sections} == {"das Modell gab keine gültige Antwort"}
    label = "Aus den geprüften Befunden zusammengestellt, ohne Text des Modells"
    assert result.report_markdown.count(label) == len(result.assembled_sections)
    sections = {e.task_id for e in result.evidence}
    attempts = 1 + research_services.settings.llm.structured_retries
    assert result.llm_calls["synthesize"] == 2 * attempts * len(sections)  # written, then again once
    assert all(c.citations for c in result.claims)
    requests = [r for r in fake_ollama.model_requests() if r.schema_name == "SectionDraft"]
    assert len(requests) == result.llm_calls["synthesize"]


async def test_a_timeout_stops_the_run_with_a_clear_error(
    sample_index: Services, fake_ollama: FakeOllama, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the product's retries after a timeout (as many), without its 1 s and 3 s pauses before them
    monkeypatch.setattr(llm_step, "TRANSIENT_PAUSES", tuple(0.01 for _ in llm_step.TRANSIENT_PAUSES))
    llm = fake_ollama.settings().model_copy(update={"request_timeout_s": 1.0})
    services = Services(sample_index.settings.model_copy(update={"llm": llm}), share_with=sample_index)
    async with services:
        fake_ollama.fault("latency", delay_ms=4000, times=3)  # the call and both transport retries
        runner = ResearchRunner(services)
        record = runner.create(QUESTION, ["sample"], "quick", QUICK)
        with pytest.raises(RunFailedError, match="--resume") as failure:
            await runner.advance(record.id)
        assert "timed out" in str(failure.value) or "timeout" in str(failure.value)
        view = await runner.advance(record.id)
        assert view.result is not None and view.result.status == "done"


async def test_several_runs_at_once_in_one_process(research_services: Services) -> None:
    questions = [
        QUESTION,
        "Which dose limits apply to occupationally exposed persons?",
        "Was regelt § 7 AtG?",
    ]
    results = await asyncio.gather(
        *(run_research(research_services, q, ["sample"], overrides=QUICK) for q in questions)
    )
    assert [r.question for r in results] == questions
    for r in results:  # which run, and what it said, should one ever end without sources
        assert r.status == "done" and r.sources, (r.question, r.status, r.warnings, r.report_markdown[:400])
    assert len({r.run_id for r in results}) == 3


async def test_a_run_whose_extractions_all_fail_says_the_model_failed_not_that_nothing_was_found(
    research_services: Services, fake_ollama: FakeOllama
) -> None:
    fake_ollama.script("no findings today", schema="Extraction")
    result = await run_research(research_services, QUESTION, ["sample"], overrides=QUICK)
    assert result.status == "done" and not result.sources
    assert "Keine Belege gefunden" not in result.report_markdown
    assert "Das Modell konnte" in result.report_markdown and "nicht lesen" in result.report_markdown
    assert ".pdf S. " in result.report_markdown  # where the unread passages are, in the report's language
    assert all(t.state == "error" for t in result.tasks)
