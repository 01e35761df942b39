"""The text guards in a real research run: the fake Ollama scripted to answer synthesis the way a 0.5B
model did (issue 24): the schema's class name as title, "Section heading" four times and "Claims" as
headings, one sentence 14 times with the same five citations, and one sentence citing nothing."""

from __future__ import annotations

import io
import re
from typing import Any

import pytest
from docx import Document as open_docx

from rabbithole.devtools.fake_ollama import FakeOllama
from rabbithole.devtools.fake_ollama.state import RecordedRequest
from rabbithole.research.export.docx import docx_bytes
from rabbithole.research.guards import is_placeholder
from rabbithole.research.runner import run_research
from rabbithole.services import Services

pytestmark = pytest.mark.asyncio

QUESTION = "Welche Dosisgrenzwerte gelten für beruflich exponierte Personen?"
REPEATED = "Für beruflich exponierte Personen gilt ein Grenzwert der effektiven Dosis im Kalenderjahr."
UNCITED = "Die Behörde kann im Einzelfall weitere Ausnahmen zulassen."
_PASSAGE_ID = re.compile(r'<passage id="([^"]+)"')


def weak_draft(request: RecordedRequest) -> dict[str, Any]:
    """The draft of the motivating report, citing the first five evidence ids shown."""
    prompt = " ".join(str(m.get("content", "")) for m in request.body.get("messages", []))
    ids = list(dict.fromkeys(_PASSAGE_ID.findall(prompt)))[:5]
    repeated = {"text": REPEATED, "evidence": ids}
    sections = [{"heading": "Section heading", "claims": [repeated] * 3} for _ in range(4)]
    sections.append({"heading": "Claims", "claims": [repeated, repeated, {"text": UNCITED, "evidence": []}]})
    return {"title": "ReportDraft", "sections": sections}


async def test_a_weak_models_report_is_guarded_and_counted(
    research_services: Services, fake_ollama: FakeOllama
) -> None:
    fake_ollama.script(weak_draft, schema="ReportDraft")
    result = await run_research(research_services, QUESTION, ["sample"])
    assert result.status == "done"
    tasks = [t.title for t in result.tasks]
    assert len(tasks) >= 2
    assert [(c.section, c.text, c.uncited) for c in result.claims] == [
        (tasks[0], REPEATED, False),
        (tasks[1], UNCITED, True),
    ]
    assert result.claims[0].citations == [1, 2, 3, 4, 5]
    assert result.report_markdown.startswith(f"# {QUESTION}\n\n## {tasks[0]}\n\n")
    assert result.report_markdown.count("effektiven Dosis im Kalenderjahr") == 1
    assert "weitere Ausnahmen zulassen [ohne Beleg]." in result.report_markdown
    document = open_docx(io.BytesIO(docx_bytes(result)))
    paragraphs = [p.text for p in document.paragraphs]
    assert any(p.endswith("weitere Ausnahmen zulassen [ohne Beleg].") for p in paragraphs)
    assert sum("effektiven Dosis im Kalenderjahr" in p for p in paragraphs) == 1
    headings = re.findall(r"^#+ (.+)$", result.report_markdown, re.MULTILINE)
    assert not any(is_placeholder(h) or h == "ReportDraft" for h in headings)
    guards = result.text_guards
    assert guards.repeated_claims_dropped == 13
    assert guards.sections_dropped == 3
    assert guards.headings_replaced == 2 and guards.headings_numbered == 0
    assert guards.uncited_claims == 1 and guards.title_replaced
    # the quality check read the guarded report, not the model's
    reviews = [r for r in fake_ollama.model_requests() if r.schema_name == "QualityJudgement"]
    assert reviews
    review = " ".join(str(m.get("content", "")) for m in reviews[-1].body["messages"])
    assert "ReportDraft" not in review and "Section heading" not in review
    assert review.count("effektiven Dosis im Kalenderjahr") == 1
