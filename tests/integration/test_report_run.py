"""Report mode end to end: the real report graph, checkpointer, hybrid search, reference engine and embedder
over kb/sample, with the real Ollama client talking to the fake Ollama."""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import pytest

from rabbithole.core.config import ReportSettings
from rabbithole.devtools.fake_ollama import FakeOllama
from rabbithole.devtools.fake_ollama.state import RecordedRequest
from rabbithole.research.context import ResearchContext
from rabbithole.research.evidence.citations import strip_markers
from rabbithole.research.models import Evidence, ResearchResult
from rabbithole.runs.runner import ResearchRunner, RunView
from rabbithole.runs.store import RunRecord
from rabbithole.services import Services

pytestmark = pytest.mark.asyncio

TOPIC = "Strahlenschutz bei beruflich exponierten Personen: Grenzwerte, Überwachung und Pflichten"

FOUR_SECTIONS = {
    "title": "Strahlenschutz beruflich exponierter Personen",
    "sections": [
        {
            "title": "Dosisgrenzwerte",
            "description": "Welche Grenzwerte gelten.",
            "research": True,
            "questions": ["Dosisgrenzwerte für beruflich exponierte Personen"],
            "corpus_queries": [],
        },
        {
            "title": "Strahlenschutzbereiche",
            "description": "Wann Bereiche einzurichten sind.",
            "research": True,
            "questions": ["Einrichtung von Strahlenschutzbereichen"],
            "corpus_queries": [],
        },
        {
            "title": "Einleitung",
            "description": "Worum es geht.",
            "research": False,
            "questions": [],
            "corpus_queries": [],
        },
        {
            "title": "Fazit",
            "description": "Was folgt.",
            "research": False,
            "questions": [],
            "corpus_queries": [],
        },
    ],
}


def outline(*research: bool) -> dict[str, Any]:
    """The four-section outline with the given research flags."""
    sections = [dict(s, research=flag) for s, flag in zip(FOUR_SECTIONS["sections"], research, strict=True)]
    for s in sections:
        if s["research"] and not s["questions"]:
            s["questions"] = [s["title"]]
    return {"title": FOUR_SECTIONS["title"], "sections": sections}


async def start(
    services: Services, events: list[dict[str, Any]] | None = None, **overrides: Any
) -> tuple[ResearchRunner, RunView]:
    runner = ResearchRunner(services)
    record = runner.create(TOPIC, ["sample"], "report", {"depth": 0, **overrides})
    view = await runner.advance(record.id, on_event=(events.append if events is not None else None))
    return runner, view


def assert_report_is_sound(services: Services, result: ResearchResult) -> None:
    """Verbatim quotes, one global numbering (1..n, one number per source, every one cited), a table of
    contents naming every section, sections in the result."""
    assert result.status == "done" and result.sections
    numbers = [s.n for s in result.sources]
    assert numbers == list(range(1, len(numbers) + 1))
    places = [(s.collection, s.document, s.page, s.start, s.end) for s in result.sources]
    assert len(set(places)) == len(places), "the same source has two numbers"
    for source in result.sources:
        pages = {p.number: p.text for p in services.catalog.pages(source.collection, source.document)}
        assert pages[source.page][source.start : source.end] == source.quote
    cited = {n for c in result.claims for n in c.citations}
    assert cited == set(numbers)
    contents = result.report_markdown.split("\n\n## ", 2)[1]
    for section in result.sections:
        assert f"[{section.title}](#" in contents
        assert section.markdown in result.report_markdown
    assert result.citation_stats.removed_citations == 0


async def test_approve_as_proposed(research_services: Services, fake_ollama: FakeOllama) -> None:
    events: list[dict[str, Any]] = []
    runner, view = await start(research_services, events)
    assert view.interrupt is not None and view.interrupt["kind"] == "outline"
    proposed = view.interrupt["sections"]
    assert 3 <= len(proposed) <= 6 and [s["id"] for s in proposed] == [
        f"s{i}" for i in range(1, len(proposed) + 1)
    ]
    view = await runner.advance(view.record.id, {"action": "approve"}, on_event=events.append)
    result = view.result
    assert result is not None
    assert_report_is_sound(research_services, result)
    assert [s.title for s in result.sections or []] == [s["title"] for s in proposed]
    assert result.language == "de" and result.sources
    calls = result.llm_calls
    assert {"anchor", "outline", "extract", "section_write", "section_grade", "review"} <= set(calls)
    assert sum(r.status == 200 for r in fake_ollama.model_requests()) == sum(calls.values())
    answered = [r for r in fake_ollama.model_requests() if r.status == 200]
    assert set(result.llm_tokens) == {*calls, "total"}
    assert result.llm_tokens["total"].prompt == sum(min(r.prompt_tokens, r.num_ctx or 4096) for r in answered)
    steps = Counter((e["section_id"], e["state"]) for e in events if e["type"] == "section")
    for s in proposed:
        if s["research"]:
            assert steps[(s["id"], "researching")] >= 1 and steps[(s["id"], "graded")] >= 1
    record = research_services.runs.get(view.record.id)
    assert record.status == "done" and record.mode == "report" and record.result is not None
    assert record.result.sections == result.sections


def requests_of(fake: FakeOllama, schema: str, contains: str = "") -> list[Any]:
    return [
        r
        for r in fake.model_requests()
        if r.schema_name == schema and r.status == 200 and contains in r.prompt
    ]


async def test_edit_then_approve(research_services: Services, fake_ollama: FakeOllama) -> None:
    fake_ollama.script(outline(True, True, False, False), schema="OutlineDraft")
    runner, view = await start(research_services, refinement_rounds=0)
    assert view.interrupt is not None
    s1, s2, s3, _s4 = view.interrupt["sections"]
    edited = [
        {"id": s3["id"], "title": s3["title"], "research": False},  # moved to the front
        {"id": s2["id"], "title": "Überwachungsbereiche und Kontrollbereiche"},  # renamed
        {"id": s1["id"], "title": s1["title"], "research": False},  # research toggled off
        {"title": "Pflichten des Strahlenschutzverantwortlichen", "research": True},  # added; s4 removed
    ]
    bad = await runner.advance(view.record.id, {"action": "edit", "sections": [edited[0], edited[0]]})
    assert bad.interrupt is not None and "twice" in (bad.interrupt["error"] or "")
    view = await runner.advance(view.record.id, {"action": "edit", "sections": edited})
    result = view.result
    assert result is not None and result.sections is not None
    assert [s.title for s in result.sections] == [e["title"] for e in edited]
    assert [s.research for s in result.sections] == [False, True, False, True]
    assert requests_of(fake_ollama, "SectionText", "Section: Pflichten des Strahlenschutzverantwortlichen")
    assert not requests_of(fake_ollama, "SectionGradeJudgement", f"Section: {s1['title']}")
    assert len(requests_of(fake_ollama, "SectionText")) == 2
    assert len(requests_of(fake_ollama, "FramingText")) == 2
    assert result.llm_calls["frame"] == 2
    assert_report_is_sound(research_services, result)


async def test_feedback_then_approve_within_bounded_rounds(
    sample_index: Services, fake_ollama: FakeOllama
) -> None:
    settings = sample_index.settings.model_copy(
        update={
            "llm": fake_ollama.settings(),
            "report_mode": ReportSettings(max_outline_rounds=1, refinement_rounds=0),
        }
    )
    async with Services(settings, share_with=sample_index) as services:
        runner, view = await start(services)
        assert view.interrupt is not None and view.interrupt["round"] == 0
        view = await runner.advance(
            view.record.id, {"action": "feedback", "feedback": "Mehr zur Überwachung"}
        )
        assert (
            view.interrupt is not None
            and view.interrupt["kind"] == "outline"
            and view.interrupt["round"] == 1
        )
        plans = requests_of(fake_ollama, "OutlineDraft")
        assert len(plans) == 2 and "Mehr zur Überwachung" in plans[1].prompt
        assert "Mehr zur Überwachung" not in plans[0].prompt
        refused = await runner.advance(view.record.id, {"action": "feedback", "feedback": "noch einmal"})
        assert refused.interrupt is not None and "re-planned 1 times" in (refused.interrupt["error"] or "")
        assert len(requests_of(fake_ollama, "OutlineDraft")) == 2
        invalid = await runner.advance(view.record.id, {"action": "approve", "feedback": "x"})
        assert invalid.interrupt is not None and invalid.interrupt["error"]
        view = await runner.advance(view.record.id, {"action": "approve"})
        assert view.result is not None
        assert [s.title for s in view.result.sections or []] == [
            s["title"] for s in refused.interrupt["sections"]
        ]
        assert_report_is_sound(services, view.result)


async def test_all_sections_research(research_services: Services, fake_ollama: FakeOllama) -> None:
    fake_ollama.script(outline(True, True, True, True), schema="OutlineDraft")
    runner, view = await start(research_services, refinement_rounds=0)
    view = await runner.advance(view.record.id, {"action": "approve"})
    result = view.result
    assert result is not None and result.sections is not None
    assert all(s.research and s.grade is not None for s in result.sections)
    assert "frame" not in result.llm_calls and result.llm_calls["section_grade"] == 4
    assert len(result.tasks) == 4 and result.sources
    assert_report_is_sound(research_services, result)


async def test_no_section_research(research_services: Services, fake_ollama: FakeOllama) -> None:
    fake_ollama.script(outline(False, False, False, False), schema="OutlineDraft")
    runner, view = await start(research_services)
    view = await runner.advance(view.record.id, {"action": "approve"})
    result = view.result
    assert result is not None and result.sections is not None and len(result.sections) == 4
    assert not any(s.research for s in result.sections)
    assert result.llm_calls["frame"] == 4
    assert not {"extract", "section_write", "section_grade", "review"} & set(result.llm_calls)
    assert result.sources == [] and "no section was researched" in " ".join(result.warnings)
    assert all(s.markdown.startswith(f"## {s.title}\n\n") for s in result.sections)
    assert_report_is_sound(research_services, result)


async def test_failing_grade_searches_again_up_to_the_bound(
    research_services: Services, fake_ollama: FakeOllama
) -> None:
    fake_ollama.script(outline(True, False, False, False), schema="OutlineDraft")
    fail = {
        "passed": False,
        "missing": ["Organdosen"],
        "follow_up_queries": ["Grenzwert der Organdosis"],
        "corpus_queries": [],
    }
    fake_ollama.script(fail, schema="SectionGradeJudgement")
    events: list[dict[str, Any]] = []
    runner, view = await start(research_services, events, refinement_rounds=0, max_search_depth=2)
    view = await runner.advance(view.record.id, {"action": "approve"}, on_event=events.append)
    result = view.result
    assert result is not None and result.sections is not None
    researched = result.sections[0]
    assert researched.rounds == 3 and researched.grade is not None and not researched.grade.passed
    assert result.llm_calls["section_grade"] == 3 and result.llm_calls["section_write"] == 3
    graded = [e for e in events if e["type"] == "section" and e["state"] == "graded"]
    assert [e["passed"] for e in graded] == [False, False, False]
    searched = [e for e in events if e["type"] == "task_progress" and e["step"] == "searched"]
    assert len(searched) == 3 and searched[1]["queries"] == ["Grenzwert der Organdosis"]
    assert_report_is_sound(research_services, result)


_PASSAGE = re.compile(r'<passage id="([^"]+)"[^>]*>(.*?)</passage>', re.DOTALL)
_CITED_IDS = re.compile(r" \[([^\]\[]+)\]$", re.MULTILINE)
RESEARCHED = ("Dosisgrenzwerte", "Strahlenschutzbereiche")


def prompt_text(request: RecordedRequest) -> str:
    return "\n".join(str(m.get("content", "")) for m in request.messages)


def quoting(request: RecordedRequest) -> dict[str, Any]:
    """A section written as the quotes of its first two passages, each citing its own passage: sentences
    whose figures and provisions their evidence states (the fake's own sentences copy figures from the
    prompt and cite any id, so compile would correct them)."""
    claims = []
    for pid, body in _PASSAGE.findall(prompt_text(request))[:2]:
        shown = body[: body.rindex(" (")]  # fact, then its quote (not shown where the fact holds it)
        quote = shown[shown.index('\n"') + 2 : -1] if '\n"' in shown else shown
        claims.append({"text": " ".join(quote.split()), "evidence": [pid]})
    return {"claims": claims}


async def test_refinement_rewrites_only_the_named_section(
    research_services: Services, fake_ollama: FakeOllama
) -> None:
    fake_ollama.script(outline(True, True, True, False), schema="OutlineDraft")
    review = {
        "improve": [
            {
                "section": "s2",
                "instructions": "Genauer auf Kontrollbereiche eingehen",
                "queries": ["Kontrollbereich Zutritt"],
            }
        ]
    }
    fake_ollama.script(review, schema="ReportReview")
    fake_ollama.script(quoting, schema="SectionText")
    runner, view = await start(research_services, refinement_rounds=1)
    view = await runner.advance(view.record.id, {"action": "approve"})
    result = view.result
    assert result is not None and result.sections is not None and result.checks is not None
    # each researched sentence states what its quote does: shown as written (the Fazit's fake text is not)
    assert not [c for c in result.checks.corrections if c.section in (*RESEARCHED, "Einleitung")]
    by_id = {s.id: s for s in result.sections}
    assert by_id["s2"].refined == 1 and by_id["s1"].refined == 0 and by_id["s3"].refined == 0
    assert result.llm_calls["review"] == 1
    for sid, title in (("s1", "Dosisgrenzwerte"), ("s3", "Einleitung")):
        writes = requests_of(fake_ollama, "SectionText", f"Section: {title}\n")
        assert len(writes) == 1, f"{sid} was written again"
        first = json.loads(writes[0].response_text or "{}")
        rendered = [c.text for c in result.claims if c.section == title]
        assert rendered == [t for c in first["claims"] if (t := strip_markers(c["text"]))]
    rewrites = requests_of(fake_ollama, "SectionText", "Section: Strahlenschutzbereiche\n")
    assert len(rewrites) == 2 and "Genauer auf Kontrollbereiche eingehen" in rewrites[1].prompt
    assert "Genauer auf Kontrollbereiche eingehen" not in rewrites[0].prompt
    assert_report_is_sound(research_services, result)


async def test_framing_sections_cite_the_numbers_of_the_researched_ones(
    research_services: Services, fake_ollama: FakeOllama
) -> None:
    fake_ollama.script(outline(True, True, False, False), schema="OutlineDraft")
    fake_ollama.script(quoting, schema="SectionText")
    runner, view = await start(research_services, refinement_rounds=0)
    view = await runner.advance(view.record.id, {"action": "approve"})
    result = view.result
    assert result is not None and result.checks is not None
    # the researched sentences state what their quotes do, so they keep every citation they were written with
    assert not [c for c in result.checks.corrections if c.section in RESEARCHED]
    researched = [c for c in result.claims if c.section in RESEARCHED]
    framing = [c for c in result.claims if c.section in ("Einleitung", "Fazit")]
    research_numbers = {n for c in researched for n in c.citations}
    assert framing and {n for c in framing for n in c.citations} <= research_numbers
    assert_report_is_sound(research_services, result)


async def test_a_framing_sentence_stating_a_figure_its_quotes_do_not_is_corrected(
    research_services: Services, fake_ollama: FakeOllama
) -> None:
    """Issue 30: a framing section cites the research sections' evidence and is corrected against it."""
    swapped = "Der Grenzwert beträgt 987 Millisievert im Kalenderjahr."

    def framing(request: RecordedRequest) -> dict[str, Any]:
        first = _CITED_IDS.findall(prompt_text(request))[0].split(", ")[0]
        return {"claims": [{"text": swapped, "evidence": [first]}]}

    fake_ollama.script(outline(True, True, False, False), schema="OutlineDraft")
    fake_ollama.script(quoting, schema="SectionText")
    fake_ollama.script(framing, schema="FramingText")
    runner, view = await start(research_services, refinement_rounds=0)
    view = await runner.advance(view.record.id, {"action": "approve"})
    result = view.result
    assert result is not None and result.checks is not None
    assert "987" not in result.report_markdown
    mine = [c for c in result.checks.corrections if c.sentence == swapped]
    assert {c.section for c in mine} == {"Einleitung", "Fazit"}
    assert all(c.missing == ["987 Millisievert"] for c in mine)
    assert result.checks.contradictions == len(result.checks.corrections) >= 2
    assert any("stated a number, date or provision" in w for w in result.warnings)
    assert_report_is_sound(research_services, result)


WEB_QUOTE = "Die Jahresdosis beruflich exponierter Personen ist auf 20 Millisievert begrenzt."


async def fake_web(queries: Sequence[str], language: str, task_id: str) -> tuple[list[Evidence], list[str]]:
    """Web research as the optional web searcher answers it: one verbatim passage of a page, one warning."""
    evidence = Evidence(
        id=f"{task_id}-w1", task_id=task_id, chunk_id=f"web:abc:0-{len(WEB_QUOTE)}", collection="web",
        document="strahlenschutz.example", page=1, quote=WEB_QUOTE, start=0, end=len(WEB_QUOTE),
        fact=WEB_QUOTE, relevance=0.9, tier="primary", tier_score=0.9,
    )  # fmt: skip
    return [evidence], [f"web page skipped: {queries[0]} (timeout)"]


class WebRunner(ResearchRunner):
    """The runner with web research configured (the context's optional web searcher)."""

    def context(self, record: RunRecord) -> ResearchContext:
        return replace(super().context(record), web=fake_web)


async def test_web_evidence_joins_a_sections_evidence(
    research_services: Services, fake_ollama: FakeOllama
) -> None:
    fake_ollama.script(outline(True, False, False, False), schema="OutlineDraft")
    runner = WebRunner(research_services)
    record = runner.create(TOPIC, ["sample"], "report", {"depth": 0, "refinement_rounds": 0})
    await runner.advance(record.id)
    view = await runner.advance(record.id, {"action": "approve"})
    result = view.result
    assert result is not None
    writes = requests_of(fake_ollama, "SectionText")
    assert len(writes) == 1 and WEB_QUOTE in writes[0].prompt
    assert "s1-p0-d0-w1" in json.dumps(writes[0].format)
    assert any("web page skipped" in w for w in result.warnings)
    for source in result.sources:
        if source.collection == "web":
            assert source.quote == WEB_QUOTE and source.document == "strahlenschutz.example"
