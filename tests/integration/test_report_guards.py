"""The text guards in report mode: an outline with the schema's field names as title and headings, and
sections that repeat one another's sentences, compiled into a report with the guards applied and counted
(a sentence said once; every approved section kept). A section that mostly repeats itself is assembled from
its findings instead: tests/integration/test_report_weak_model.py."""

from __future__ import annotations

import re
from typing import Any

import pytest

from rabbithole.devtools.fake_ollama import FakeOllama
from rabbithole.devtools.fake_ollama.state import RecordedRequest
from rabbithole.runs.runner import ResearchRunner
from rabbithole.services import Services

pytestmark = pytest.mark.asyncio

TOPIC = "Strahlenschutz bei beruflich exponierten Personen: Grenzwerte und Strahlenschutzbereiche"
LIMITS = "Dosisgrenzwerte für beruflich exponierte Personen"
AREAS = "Einrichtung von Strahlenschutzbereichen"
REPEATED = "Für beruflich exponierte Personen gilt ein Grenzwert der effektiven Dosis im Kalenderjahr."
AREA_CLAIM = (
    "Strahlenschutzbereiche sind einzurichten, wenn die Exposition bestimmte Werte überschreiten kann."
)
LIMIT_CLAIM = "Die Grenzwerte gelten für die Summe der Körperdosen aus allen Tätigkeiten."
OUTLINE = {
    "title": "ReportDraft",
    "sections": [
        {
            "title": "Section heading",
            "description": "",
            "research": True,
            "questions": [LIMITS],
            "corpus_queries": [],
        },
        {
            "title": "Section 2",
            "description": "",
            "research": True,
            "questions": [AREAS],
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
CONCLUSION = "Beide Regelungen greifen ineinander."
_PASSAGE_ID = re.compile(r'<passage id="([^"]+)"')


def section_text(request: RecordedRequest) -> dict[str, Any]:
    """Every section repeats one sentence (twice in the first); each adds its own."""
    prompt = " ".join(str(m.get("content", "")) for m in request.body.get("messages", []))
    ids = list(dict.fromkeys(_PASSAGE_ID.findall(prompt)))[:2]
    repeated = {"text": REPEATED, "evidence": ids}
    if AREAS in prompt:
        return {"claims": [repeated, {"text": AREA_CLAIM, "evidence": ids}]}
    return {"claims": [repeated, repeated, {"text": LIMIT_CLAIM, "evidence": ids}]}


async def test_report_mode_sections_are_guarded_and_counted(
    research_services: Services, fake_ollama: FakeOllama
) -> None:
    fake_ollama.script(OUTLINE, schema="OutlineDraft")
    fake_ollama.script(section_text, schema="SectionText")
    framing = [{"text": REPEATED, "evidence": []}, {"text": CONCLUSION, "evidence": []}]
    fake_ollama.script({"claims": framing}, schema="FramingText")
    runner = ResearchRunner(research_services)
    record = runner.create(TOPIC, ["sample"], "report", {"depth": 0, "refinement_rounds": 0})
    view = await runner.advance(record.id)
    assert view.interrupt is not None and view.interrupt["kind"] == "outline"
    view = await runner.advance(record.id, {"action": "approve"})
    result = view.result
    assert result is not None and result.status == "done" and result.sections is not None
    assert [(s.id, s.title) for s in result.sections] == [("s1", LIMITS), ("s2", AREAS), ("s3", "Fazit")]
    assert [(c.section, c.text, c.uncited) for c in result.claims] == [
        (LIMITS, REPEATED, False),
        (LIMITS, LIMIT_CLAIM, False),
        (AREAS, AREA_CLAIM, False),
        ("Fazit", CONCLUSION, True),
    ]
    assert result.claims[0].citations and result.claims[1].citations and result.claims[2].citations
    assert "ineinander [ohne Beleg]." in result.report_markdown
    assert result.report_markdown.startswith(f"# {TOPIC}\n\n")
    assert result.report_markdown.count("effektiven Dosis im Kalenderjahr") == 1
    assert (
        "Section heading" not in result.report_markdown
        and "Section 2" not in result.report_markdown
        and "ReportDraft" not in result.report_markdown
    )
    for section in result.sections:
        assert section.markdown in result.report_markdown
    guards = result.text_guards
    assert guards.repeated_claims_dropped == 3  # one in the first section, one in the second, one framing
    assert guards.sections_dropped == 0
    assert guards.headings_replaced == 2 and guards.title_replaced and guards.uncited_claims == 1
    checks = result.checks  # one repeat of three sentences: the sections stand as written
    assert checks is not None and checks.sections_written == 2 and checks.sections_assembled == 0
    assert result.assembled_sections == []
