"""Report mode end to end: the real report graph, checkpointer, hybrid search, reference engine and embedder
over kb/sample, with the real Ollama client talking to the fake Ollama."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from rabbithole.devtools.fake_ollama import FakeOllama
from rabbithole.research.models import ResearchResult
from rabbithole.research.runner import ResearchRunner, RunView
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
    assert 3 <= len(proposed) <= 6 and [s["id"] for s in proposed] == [f"s{i}" for i in range(1, len(proposed) + 1)]
    view = await runner.advance(view.record.id, {"action": "approve"}, on_event=events.append)
    result = view.result
    assert result is not None
    assert_report_is_sound(research_services, result)
    assert [s.title for s in result.sections or []] == [s["title"] for s in proposed]
    assert result.language == "de" and result.sources
    calls = result.llm_calls
    assert {"anchor", "outline", "extract", "section_write", "section_grade", "review"} <= set(calls)
    assert sum(r.status == 200 for r in fake_ollama.model_requests()) == sum(calls.values())
    steps = Counter((e["section_id"], e["state"]) for e in events if e["type"] == "section")
    for s in proposed:
        if s["research"]:
            assert steps[(s["id"], "researching")] >= 1 and steps[(s["id"], "graded")] >= 1
    record = research_services.runs.get(view.record.id)
    assert record.status == "done" and record.mode == "report" and record.result is not None
    assert record.result.sections == result.sections
