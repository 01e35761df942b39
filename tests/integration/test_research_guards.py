"""A weak model's report in a real research run (issue 24): the fake Ollama scripted to answer each section
the way a 0.5B model answered synthesis: one sentence 14 times with the same five citations, a schema
name as a sentence and one sentence citing nothing. The guards collapse it, the measured checks fail it,
the one remediation pass asks again, and a section still unusable is assembled from the run's verified
findings, labelled as such: the run finishes, and shows no junk."""

from __future__ import annotations

import io
import re
from collections import Counter
from pathlib import PurePath
from typing import Any

import pytest
from docx import Document as open_docx

from rabbithole.devtools.fake_ollama import FakeOllama, PromptContext, generate_instance
from rabbithole.devtools.fake_ollama.state import RecordedRequest
from rabbithole.research.evidence.claim_tokens import claim_tokens, missing_tokens
from rabbithole.research.export.docx import docx_bytes
from rabbithole.runs.runner import ResearchRunner, run_research
from rabbithole.services import Services

pytestmark = pytest.mark.asyncio

QUESTION = "Welche Dosisgrenzwerte gelten für beruflich exponierte Personen?"
REPEATED = "Für beruflich exponierte Personen gilt ein Grenzwert der effektiven Dosis im Kalenderjahr."
UNCITED = "Die Behörde kann im Einzelfall weitere Ausnahmen zulassen."
LABEL = "Aus den geprüften Befunden zusammengestellt, ohne Text des Modells"
_PASSAGE_ID = re.compile(r'<passage id="([^"]+)"')


def shown_ids(request: RecordedRequest) -> list[str]:
    prompt = " ".join(str(m.get("content", "")) for m in request.body.get("messages", []))
    return list(dict.fromkeys(_PASSAGE_ID.findall(prompt)))


def weak_section(request: RecordedRequest) -> dict[str, Any]:
    """A section as the 0.5B model wrote its report: one sentence again and again (8 of the 10 sentences
    the schema allows), "Claims", one uncited."""
    repeated = {"text": REPEATED, "evidence": shown_ids(request)[:5]}
    return {
        "claims": [repeated] * 4
        + [{"text": "Claims", "evidence": []}, {"text": UNCITED, "evidence": []}]
        + [repeated] * 4
    }


async def test_a_weak_models_sections_fail_the_checks_and_fall_back_to_the_findings(
    research_services: Services, fake_ollama: FakeOllama
) -> None:
    fake_ollama.script(weak_section, schema="SectionDraft")
    events: list[dict[str, Any]] = []
    runner = ResearchRunner(research_services)
    record = runner.create(QUESTION, ["sample"], "quick", {})
    view = await runner.advance(record.id, on_event=events.append)
    result = view.result
    assert result is not None and result.status == "done"
    written = {e.task_id for e in result.evidence}
    tasks = [t.title for t in result.tasks if t.id in written]
    assert len(tasks) >= 2
    # each section written twice (the first pass and the remediation), then assembled
    assert result.llm_calls["synthesize"] == 2 * len(tasks)
    assert [e["type"] for e in events].count("remediation") == 1
    # an assembled section whose findings all repeat an earlier one's is left out (their ids merged)
    headings = re.findall(r"^## (.+)$", result.report_markdown, re.MULTILINE)
    assert headings[-1] == "Quellen"
    shown = headings[:-1]
    assert shown and set(shown) <= set(tasks)
    assert [a.heading for a in result.assembled_sections] == shown
    assert result.checks is not None and result.checks.sections_assembled == len(shown)
    assert result.checks.sections_written == 0
    assert result.report_markdown.count(LABEL) == len(shown)
    assert REPEATED not in result.report_markdown and UNCITED not in result.report_markdown
    assert "Claims" not in result.report_markdown
    assert all(c.citations and not c.uncited for c in result.claims)
    for claim in result.claims:  # each a finding's fact, citing the evidence that states it
        stating = {e.source for e in result.evidence if " ".join(e.fact.split()) == claim.text}
        assert claim.citations and set(claim.citations) <= stating
    assert any("assembled from the verified findings" in w.lower() for w in result.warnings)
    # what the model wrote (the last pass) was measured: its repeats and placeholders counted
    guards = result.text_guards
    assert guards.placeholder_claims_dropped == len(tasks)
    assert guards.repeated_claims_dropped == 7 + 9 * (len(tasks) - 1)
    assert result.checks.sentences_written == 10 * len(tasks) and result.checks.placeholders == len(tasks)
    assert result.checks.repeated_share > 0.7
    # the report shown has none of the model's problems (the fake's facts may be weakly supported)
    assert {p.kind for p in result.checks.problems} <= {"weak_support"}
    remediation = next(e for e in events if e["type"] == "remediation")
    assert any("repeated" in issue for issue in remediation["issues"])
    # every section was streamed as written, guarded within itself: one sentence and the uncited one
    drafts = [e for e in events if e["type"] == "draft_section"]
    assert len(drafts) == 2 * len(tasks)
    assert all([c["text"] for c in d["claims"]] == [REPEATED, UNCITED] for d in drafts)
    document = open_docx(io.BytesIO(docx_bytes(result)))
    paragraphs = [p.text for p in document.paragraphs]
    assert not any(REPEATED in p for p in paragraphs)
    assert sum(LABEL in p for p in paragraphs) == len(shown)


async def test_one_weak_section_is_assembled_and_the_others_stay_the_models(
    research_services: Services, fake_ollama: FakeOllama
) -> None:
    """Only the first task's section is junk: it alone is rewritten and then assembled."""

    def answer(request: RecordedRequest) -> Any:
        if shown_ids(request)[0].startswith("t1-"):
            return weak_section(request)
        return generate_instance(request.format, PromptContext.from_messages(request.messages))

    fake_ollama.script(answer, schema="SectionDraft")
    result = await run_research(research_services, QUESTION, ["sample"])
    assert result.status == "done"
    assert result.assembled_sections[0].task_id == "t1"
    assert result.checks is not None and result.checks.sections_written >= 1
    by_task = Counter(
        shown_ids(r)[0].split("-")[0] for r in fake_ollama.model_requests() if r.schema_name == "SectionDraft"
    )
    assert by_task["t1"] == 2  # written, then once again, then assembled
    # the others stay the model's: only those whose own text had a problem were written again
    rewritten = {t for t, n in by_task.items() if n > 1} - {"t1"}
    problems = {a.task_id for a in result.assembled_sections}
    assert rewritten >= problems - {"t1"}
    sections = re.split(r"^## ", result.report_markdown, flags=re.MULTILINE)
    first = next(s for s in sections if s.startswith(result.assembled_sections[0].heading))
    assert LABEL in first
    assert sum(LABEL in s for s in sections) == len(result.assembled_sections)
    assert result.checks.sections_written + len(result.assembled_sections) <= len(by_task)


async def test_a_figure_the_evidence_does_not_state_never_reaches_the_report(
    research_services: Services, fake_ollama: FakeOllama
) -> None:
    """Issue 30: each section also states "987 Millisievert", citing a quote that says no such thing; the
    sentence is replaced by the finding it cites (or removed), counted, and said in the warnings."""
    swapped = "Der Grenzwert beträgt 987 Millisievert im Kalenderjahr."

    def answer(request: RecordedRequest) -> Any:
        body = generate_instance(request.format, PromptContext.from_messages(request.messages))
        body["claims"] = [{"text": swapped, "evidence": shown_ids(request)[:1]}, *body["claims"][:3]]
        return body

    fake_ollama.script(answer, schema="SectionDraft")
    result = await run_research(research_services, QUESTION, ["sample"])
    assert result.status == "done"
    assert "987" not in result.report_markdown
    assert result.checks is not None and result.checks.contradictions >= 1
    mine = [c for c in result.checks.corrections if c.sentence == swapped]
    assert mine and all(c.missing == ["987 Millisievert"] for c in mine)
    assert all(c.missing for c in result.checks.corrections)  # the fake's own sentences may state others
    assert any("stated a number, date or provision their evidence does not" in w for w in result.warnings)
    document = open_docx(io.BytesIO(docx_bytes(result)))  # the export says so too
    paragraphs = [p.text for p in document.paragraphs]
    assert "Sätze, die ihren Belegen widersprachen" in paragraphs
    assert any(swapped in p and "987 Millisievert nicht in den Belegen" in p for p in paragraphs)
    by_number = {e.source: e for e in result.evidence if e.source is not None}
    for claim in result.claims:  # every figure a sentence states, a quote it cites states
        stated = [
            t
            for n in claim.citations
            for t in claim_tokens(by_number[n].quote, document_laws=[PurePath(by_number[n].document).stem])
            + claim_tokens(by_number[n].section or "")
        ]
        assert missing_tokens(claim.text, stated) == [], claim.text
