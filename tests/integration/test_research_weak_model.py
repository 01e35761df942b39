"""Whole research runs against the fake Ollama's weak profile (issue 24): answers cut at the output cap,
one sentence repeated, schema names and placeholders as content, changed figures, the wrong language and
raw control characters, each at the rates docs/testing.md gives. Goals: no failed run, no placeholder
heading and no repeated sentence in a final report, every quote verbatim on its page, every citation
inside the retrieved passages, no figure a sentence states that its cited quote does not."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from rabbithole.devtools.fake_ollama import FakeOllama
from rabbithole.research.evidence.consistency import CitedText, missing_from
from rabbithole.research.guards import is_placeholder, normalise_sentence
from rabbithole.research.models import ResearchResult
from rabbithole.runs.runner import run_research
from rabbithole.services import Services

pytestmark = pytest.mark.asyncio

QUESTIONS = [
    ("Welche Grenzwerte gelten für die berufliche Exposition von Personen unter 18 Jahren?", {}),
    ("Wer trägt die Kosten der Standortauswahl für ein Endlager?", {"depth": 1}),
    ("Which dose limits apply to occupationally exposed persons?", {"depth": 1}),
]
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def report_sentences(result: ResearchResult) -> list[str]:
    """The report's sentences (headings, labels and the sources list left out)."""
    body = result.report_markdown.split("\n## Quellen")[0].split("\n## Sources")[0]
    blocks = [b for b in body.split("\n\n") if b.strip() and not b.startswith(("#", "*"))]
    return [s for b in blocks for s in _SENTENCE_END.split(b) if normalise_sentence(s)]


def assert_sound(services: Services, result: ResearchResult) -> None:
    assert result.status == "done", result.error
    headings = re.findall(r"^#+ (.+)$", result.report_markdown, re.MULTILINE)
    assert not [h for h in headings if is_placeholder(h)], headings
    repeated = [s for s, n in Counter(map(normalise_sentence, report_sentences(result))).items() if n > 1]
    assert not repeated, repeated
    retrieved = set(result.retrieved_chunks)
    for source in result.sources:
        pages = {p.number: p.text for p in services.catalog.pages(source.collection, source.document)}
        assert pages[source.page][source.start : source.end] == source.quote
        assert source.chain[-1].chunk_id in retrieved if source.chain else True
    by_number = {s.n: s for s in result.sources}
    for claim in result.claims:  # the run's own claim check, over the quotes each sentence cites
        cited = [
            CitedText(by_number[n].quote, by_number[n].document, by_number[n].section)
            for n in claim.citations
        ]
        if cited:
            assert missing_from(claim.text, cited) == [], claim.text


@pytest.mark.parametrize(("question", "overrides"), QUESTIONS, ids=["de-u18", "de-costs", "en-limits"])
async def test_a_weak_model_never_fails_a_run_nor_shows_junk(
    research_services: Services, weak_fake_ollama: FakeOllama, question: str, overrides: dict[str, int]
) -> None:
    result = await run_research(research_services, question, ["sample"], overrides=overrides)
    assert_sound(research_services, result)
    behaviours = Counter(b for r in weak_fake_ollama.model_requests() for b in r.weak)
    assert len(behaviours) >= 2, behaviours  # the weak model did answer (which behaviours: the run's order)
    if result.sources:
        assert result.claims and all(c.citations or c.uncited for c in result.claims)
    else:  # nothing verified: the report says why, never a report made of junk
        assert not result.claims
