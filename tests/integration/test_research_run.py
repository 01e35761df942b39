"""Research runs end to end: the real graphs, checkpointer, hybrid search, reference engine and embedder over
kb/sample, with the real Ollama client talking to the fake Ollama. A quick run, an interactive one, a run
resumed after an outage and one settled from its checkpoint run on both backends (``on_both_backends``:
SQLite and embedded Chroma, then PostgreSQL and a Chroma server); the rest on the embedded one."""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any

import pytest

from fixtures.backends import on_both_backends
from rabbithole.core.errors import RunFailedError, RunStateError
from rabbithole.devtools.fake_ollama import FakeOllama
from rabbithole.research.models import ResearchResult
from rabbithole.runs.runner import ResearchRunner, run_research
from rabbithole.services import Services

pytestmark = pytest.mark.asyncio

GERMAN = "Welche Dosisgrenzwerte gelten für beruflich exponierte Personen?"
ENGLISH = "Which dose limits apply to occupationally exposed persons?"
NOT_CONVERGED = {
    "understanding": "Gefragt sind die Grenzwerte für beruflich exponierte Personen.",
    "coverage": 0.4,
    "gaps": ["Organdosen", "Auszubildende", "Schwangere"],
    "questions": ["Geht es um die effektive Dosis oder um Organdosen?", "Auch um Auszubildende?"],
}


def assert_evidence_is_verbatim_and_retrieved(services: Services, result: ResearchResult) -> None:
    assert result.sources, "a report without sources"
    retrieved = set(result.retrieved_chunks)
    numbers = [s.n for s in result.sources]
    assert numbers == list(range(1, len(numbers) + 1))
    for source in result.sources:
        pages = {p.number: p.text for p in services.catalog.pages(source.collection, source.document)}
        assert pages[source.page][source.start : source.end] == source.quote
        assert source.evidence_id
    cited = {n for claim in result.claims for n in claim.citations}
    assert cited == set(numbers)
    assert all(f"[{n}]" in result.report_markdown for n in numbers)
    assert retrieved, "the run retrieved nothing"


@on_both_backends("research_services")
async def test_quick_run_gives_a_cited_report(research_services: Services, fake_ollama: FakeOllama) -> None:
    events: list[dict[str, Any]] = []
    result = await run_research(research_services, GERMAN, ["sample"], on_event=events.append)
    assert result.status == "done" and result.answerable
    assert result.language == "de"
    assert_evidence_is_verbatim_and_retrieved(research_services, result)
    assert 3 <= len(result.tasks) <= 5
    assert result.tasks[0].title == GERMAN
    assert all(t.state == "done" for t in result.tasks)
    calls = result.llm_calls
    assert {"anchor", "assess", "plan", "extract", "summarize", "synthesize", "quality"} <= set(calls)
    assert "clarify_queries" not in calls
    assert sum(r.status == 200 for r in fake_ollama.model_requests()) == sum(calls.values())
    # tokens by kind as the server counted them (the fake reads what fits num_ctx, as Ollama does)
    tokens = result.llm_tokens
    assert set(tokens) == {*calls, "total"}
    answered = [r for r in fake_ollama.model_requests() if r.status == 200]
    assert tokens["total"].prompt == sum(min(r.prompt_tokens, r.num_ctx or 4096) for r in answered) > 0
    assert all(tokens[kind].prompt > 0 and tokens[kind].output > 0 for kind in calls)
    assert tokens["total"].output == sum(u.output for k, u in tokens.items() if k != "total")
    stats = result.citation_stats
    assert stats.sentences >= stats.cited_sentences > 0 and stats.removed_citations == 0
    assert result.quality is not None and 0 <= result.quality.overall <= 100
    types = Counter(e["type"] for e in events)
    assert types["phase"] >= 5 and types["task_progress"] >= 3 * len(result.tasks)
    assert [e["phase"] for e in events if e["type"] == "phase"][-1] == "done"
    record = research_services.runs.get(result.run_id)
    assert record.status == "done" and record.result is not None
    assert record.result.report_markdown == result.report_markdown


async def test_english_question_searches_the_german_documents_in_german(
    research_services: Services, fake_ollama: FakeOllama
) -> None:
    result = await run_research(research_services, ENGLISH, ["sample"])
    assert result.language == "en"
    plans = [r for r in fake_ollama.model_requests() if r.schema_name == "PlanDraft"]
    assert plans and "German" in plans[0].messages[0]["content"]
    assert_evidence_is_verbatim_and_retrieved(research_services, result)
    # the fake's claims copy German sentences: the report is written again (and its first draft reviewed
    # beside the retry); still German, which the result says once; the scores are of the final report
    assert result.llm_calls["synthesize"] >= 2 and result.llm_calls["quality"] >= 2
    wrong = [w for w in result.warnings if "not in the question's language" in w]
    assert len(wrong) == 1
    assert result.quality is not None
    reviews = [r for r in fake_ollama.model_requests() if r.schema_name == "QualityJudgement"]
    assert reviews[-1].status == 200 and len(reviews) == result.llm_calls["quality"]


async def test_resuming_a_finished_run_is_an_error(research_services: Services) -> None:
    result = await run_research(research_services, GERMAN, ["sample"], overrides={"depth": 0})
    runner = ResearchRunner(research_services)
    with pytest.raises(RunStateError, match="finished"):
        await runner.advance(result.run_id)


@on_both_backends("research_services")
async def test_a_run_finished_before_the_registry_knew_is_settled_on_resume(
    research_services: Services,
) -> None:
    result = await run_research(research_services, GERMAN, ["sample"], overrides={"depth": 0})
    # the process died after the last checkpoint, before the registry recorded the end
    research_services.runs.update(result.run_id, status="running", phase="attribute")
    view = await ResearchRunner(research_services).advance(result.run_id)
    assert view.result is not None and view.result.report_markdown == result.report_markdown
    assert research_services.runs.get(result.run_id).status == "done"


@on_both_backends("research_services")
async def test_interactive_run_clarifies_and_takes_an_edited_plan(
    research_services: Services, fake_ollama: FakeOllama
) -> None:
    fake_ollama.script(NOT_CONVERGED, schema="ClarifyAnalysis")  # the fake's default analysis converges
    runner = ResearchRunner(research_services)
    record = runner.create(GERMAN, ["sample"], "interactive", {"depth": 1})
    view = await runner.advance(record.id)
    first = view.interrupt
    assert first is not None and first["kind"] == "clarification" and first["round"] == 1
    assert 2 <= len(first["questions"]) <= 3 and first["passages"] and 0 <= first["dedup_ratio"] <= 1
    assert {"document", "page", "section", "score"} <= set(first["passages"][0])
    assert research_services.runs.get(record.id).status == "waiting_for_input"
    with pytest.raises(RunStateError, match="waits for input"):
        await runner.advance(record.id)

    view = await runner.advance(record.id, {"answer": "Nur die Grenzwerte für die effektive Dosis"})
    second = view.interrupt
    assert second is not None and second["kind"] == "clarification" and second["round"] == 2
    view = await runner.advance(record.id, {"answer": "/end"})
    plan = view.interrupt
    assert plan is not None and plan["kind"] == "plan"
    tasks = plan["tasks"]
    assert tasks[0]["title"] == GERMAN and 3 <= len(tasks) <= 5

    edited = [
        {"id": tasks[1]["id"], "title": tasks[1]["title"]},
        {"id": tasks[0]["id"], "title": tasks[0]["title"]},
        {"title": "Grenzwerte für Auszubildende"},
    ]
    view = await runner.advance(record.id, {"tasks": [{"title": ""}]})  # invalid: asked again, with why
    assert view.interrupt is not None and view.interrupt["kind"] == "plan" and view.interrupt["error"]
    view = await runner.advance(record.id, {"tasks": edited})
    result = view.result
    assert result is not None and result.status == "done"
    assert [t.title for t in result.tasks] == [tasks[1]["title"], GERMAN, "Grenzwerte für Auszubildende"]
    assert [t.id for t in result.tasks] == ["t1", "t2", "t3"]
    assert result.llm_calls["clarify_queries"] == 2 and result.llm_calls["clarify_analysis"] == 2
    assert result.llm_calls["task_queries"] == 1  # only the added task needed queries
    answered = [r for r in fake_ollama.model_requests() if r.schema_name == "AnchorDraft"]
    assert "Nur die Grenzwerte" in answered[-1].messages[-1]["content"]
    assert_evidence_is_verbatim_and_retrieved(research_services, result)


async def test_unanswerable_question_ends_with_a_clear_answer(
    research_services: Services, fake_ollama: FakeOllama
) -> None:
    fake_ollama.script(
        {"answerable": False, "needs_live_data": True, "reason": "-", "corpus_covers": ["Strahlenschutz"]},
        schema="AssessJudgement",
    )
    result = await run_research(
        research_services, "Wie ist das Wetter heute in Berlin, und wie steht der DAX?", ["sample"]
    )
    assert not result.answerable and result.status == "done"
    assert "aktuelle Daten" in result.report_markdown and "Strahlenschutz" in result.report_markdown
    assert not result.sources and "extract" not in result.llm_calls and "gate" not in result.llm_calls


@on_both_backends("research_services")
async def test_ollama_down_mid_dig_stops_in_error_and_resumes_without_redoing_tasks(
    research_services: Services, fake_ollama: FakeOllama
) -> None:
    runner = ResearchRunner(research_services)
    record = runner.create(GERMAN, ["sample"], "quick", {"concurrency": 1, "depth": 1})
    summaries = Counter[str]()

    def summary_then_outage(request: Any) -> dict[str, Any]:
        summaries["ok"] += 1
        if summaries["ok"] == 2:  # after the second task's summary, the model is gone
            fake_ollama.set_models(["some-other-model"])
        return {"findings": ["f"], "gaps": [], "related": []}

    fake_ollama.script(summary_then_outage, schema="TaskSummaryDraft")
    with pytest.raises(RunFailedError, match="ollama pull") as failure:
        await runner.advance(record.id)
    assert "--resume" in str(failure.value)
    stopped = research_services.runs.get(record.id)
    assert stopped.status == "error" and stopped.phase == "dig" and "ollama pull" in (stopped.error or "")

    fake_ollama.set_models(["qwen3:8b"])
    view = await runner.advance(record.id)
    result = view.result
    assert result is not None and result.status == "done"
    assert summaries["ok"] == len(result.tasks)  # the two finished tasks were not summarised again
    assert_evidence_is_verbatim_and_retrieved(research_services, result)
    assert research_services.runs.get(record.id).error is None


async def test_a_running_run_shows_its_llm_calls_so_far(research_services: Services) -> None:
    runner = ResearchRunner(research_services)
    record = runner.create(GERMAN, ["sample"], mode="quick")
    seen: list[int] = []

    async def poll() -> None:
        while True:
            view = await runner.view(record.id)
            if view.record.status == "running" and view.llm_calls is not None:
                assert view.interrupt is None
                seen.append(sum(view.llm_calls.values()))
            await asyncio.sleep(0.02)

    poller = asyncio.create_task(poll())
    try:
        done = await runner.advance(record.id)
    finally:
        poller.cancel()
    assert done.result is not None
    total = sum(done.result.llm_calls.values())
    assert seen, "the run was never seen running"
    assert seen == sorted(seen) and 0 < max(seen) <= total
    assert (await runner.view(record.id)).result == done.result
