"""Report mode with a weak model (issue 24), through real report runs over kb/sample with the fake Ollama
scripted as a 0.5B model answered: a section the model gave no valid answer for, or wrote as one sentence
again and again, is shown assembled from its verified findings, labelled with the reason and listed; a
section whose extractions failed says the model could not read its passages (documents, pages), never that
the documents hold nothing; the report's measured checks are in the result."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest

from rabbithole.devtools.fake_ollama import FakeOllama, PromptContext, generate_instance
from rabbithole.devtools.fake_ollama.state import RecordedRequest
from rabbithole.research.guards import is_placeholder, normalise_sentence
from rabbithole.research.models import ReportSectionView, ResearchResult
from rabbithole.runs.runner import ResearchRunner
from rabbithole.services import Services

pytestmark = pytest.mark.asyncio

TOPIC = "Strahlenschutz bei beruflich exponierten Personen: Grenzwerte und Strahlenschutzbereiche"
LIMITS = "Dosisgrenzwerte für beruflich exponierte Personen"
AREAS = "Einrichtung von Strahlenschutzbereichen"
CONCLUSION = "Beide Regelungen greifen ineinander."
OUTLINE = {
    "title": "Strahlenschutz beruflich exponierter Personen",
    "sections": [
        *(
            {"title": t, "description": "", "research": True, "questions": [t], "corpus_queries": []}
            for t in (LIMITS, AREAS)
        ),
        {"title": "Fazit", "description": "", "research": False, "questions": [], "corpus_queries": []},
    ],
}
PASSED = {"passed": True, "missing": [], "follow_up_queries": [], "corpus_queries": []}
REPEATED = "Strahlenschutzbereiche sind einzurichten, wenn die Exposition bestimmte Werte überschreiten kann."
LABEL = "Aus den geprüften Befunden zusammengestellt, ohne Text des Modells"
NO_EVIDENCE = "Die Dokumente enthalten dazu keine Belege."
_PASSAGE_ID = re.compile(r'<passage id="([^"]+)"')
_PASSAGE = re.compile(r'<passage id="([^"]+)" document="([^"]+)" page="(\d+)(?:-\d+)?"')  # its first page
_TASK = re.compile(r"^Task: (.+?)(?: \(|$)", re.MULTILINE)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def prompt_of(request: RecordedRequest) -> str:
    return "\n".join(str(m.get("content", "")) for m in request.messages if m.get("role") != "assistant")


def valid(request: RecordedRequest) -> dict[str, Any]:
    return generate_instance(request.format, PromptContext.from_messages(request.messages))  # type: ignore[no-any-return]


async def report(
    sample_index: Services, fake: FakeOllama, grade: dict[str, Any] = PASSED, **research: Any
) -> tuple[ResearchResult, list[dict[str, Any]]]:
    """The report on the sample (two research sections and a conclusion citing nothing), approved as
    proposed, no refinement, every grade passing; with these research settings. Its result and events."""
    fake.script(OUTLINE, schema="OutlineDraft")
    fake.script(grade, schema="SectionGradeJudgement")
    fake.script({"claims": [{"text": CONCLUSION, "evidence": []}]}, schema="FramingText")
    settings = sample_index.settings.model_copy(
        update={
            "llm": fake.settings(),
            "research": sample_index.settings.research.model_copy(update=research),
        }
    )
    events: list[dict[str, Any]] = []
    async with Services(settings, share_with=sample_index) as services:
        runner = ResearchRunner(services)
        record = runner.create(TOPIC, ["sample"], "report", {"depth": 0, "refinement_rounds": 0})
        view = await runner.advance(record.id, on_event=events.append)
        assert view.interrupt is not None and view.interrupt["kind"] == "outline"
        view = await runner.advance(record.id, {"action": "approve"}, on_event=events.append)
    assert view.result is not None and view.result.status == "done"
    return view.result, events


def section(result: ResearchResult, title: str) -> ReportSectionView:
    return next(s for s in result.sections or [] if s.title == title)


def weak_section(request: RecordedRequest) -> str | dict[str, Any]:
    """No valid answer for the dose limits; the areas as one sentence eight times over."""
    prompt = prompt_of(request)
    if f"Section: {LIMITS}" in prompt:
        return "Die Grenzwerte sind im Strahlenschutzgesetz geregelt und"
    ids = list(dict.fromkeys(_PASSAGE_ID.findall(prompt)))[:3]
    return {"claims": [{"text": REPEATED, "evidence": ids}] * 8}


async def test_unusable_sections_are_assembled_from_their_findings_labelled_and_listed(
    sample_index: Services, fake_ollama: FakeOllama
) -> None:
    fake_ollama.script(weak_section, schema="SectionText")
    result, events = await report(sample_index, fake_ollama)
    reasons = {
        LIMITS: "das Modell gab keine gültige Antwort",
        AREAS: "das Modell wiederholte seine Sätze",
    }
    # before: the invalid section silently showed its findings, the repeated one its one sentence; no
    # label, nothing listed, no checks
    assert [(a.heading, a.task_id, a.reason, a.note) for a in result.assembled_sections] == [
        (title, sid, reason, f"{LABEL} ({reason}).")
        for (title, reason), sid in zip(reasons.items(), ("s1", "s2"), strict=True)
    ]
    for title, reason in reasons.items():
        markdown = section(result, title).markdown
        assert markdown.startswith(f"## {title}\n\n*{LABEL} ({reason}).*\n\n")
        assert markdown in result.report_markdown
    assert REPEATED not in result.report_markdown
    researched = [c for c in result.claims if c.section != "Fazit"]
    assert researched and all(c.citations and not c.uncited for c in researched)
    for claim in researched:  # each a finding's fact, citing the evidence that states it
        stating = {e.source for e in result.evidence if " ".join(e.fact.split()) == claim.text}
        assert set(claim.citations) <= stating
    checks = result.checks
    assert checks is not None
    assert (checks.tasks_with_evidence, checks.sections_written, checks.sections_assembled) == (2, 0, 2)
    assert checks.sentences_written == 8 and checks.repeated_share == round(7 / 8, 3)
    assert checks.flagged_share is not None  # completed by the support check at compile
    warned = [e["message"] for e in events if e["type"] == "warning"]
    for title in reasons:
        note = f"section '{title}': Assembled from the verified findings, without the model's prose"
        assert any(w.startswith(note) for w in result.warnings) and any(w.startswith(note) for w in warned)


async def test_a_section_written_well_is_measured_and_shown_as_written(
    sample_index: Services, fake_ollama: FakeOllama
) -> None:
    def good(request: RecordedRequest) -> dict[str, Any]:
        ids = list(dict.fromkeys(_PASSAGE_ID.findall(prompt_of(request))))
        topic = "Grenzwerte" if f"Section: {LIMITS}" in prompt_of(request) else "Strahlenschutzbereiche"
        first = f"Die Dokumente regeln {topic} für beruflich exponierte Personen."
        second = f"Für {topic} gelten besondere Pflichten der Verantwortlichen."
        return {"claims": [{"text": first, "evidence": ids[:1]}, {"text": second, "evidence": ids[1:2]}]}

    fake_ollama.script(good, schema="SectionText")
    result, _ = await report(sample_index, fake_ollama)
    assert result.assembled_sections == [] and LABEL not in result.report_markdown
    checks = result.checks
    assert checks is not None and checks.language_ok
    assert (checks.tasks_with_evidence, checks.sections_written, checks.sections_assembled) == (2, 2, 0)
    assert checks.sentences_written == 4 and checks.repeated_share == 0.0
    assert checks.cited_share == 0.8  # the conclusion cites nothing
    assert [c.text for c in result.claims][:1] == [
        "Die Dokumente regeln Grenzwerte für beruflich exponierte Personen."
    ]


def extraction_calls(fake: FakeOllama, title: str) -> list[RecordedRequest]:
    """The extraction requests of one section (its task's title is the section's)."""
    out = []
    for r in fake.model_requests():
        if r.schema_name != "Extraction":
            continue
        match = _TASK.search(prompt_of(r))
        if match is not None and match.group(1) == title:
            out.append(r)
    return out


def places(requests: list[RecordedRequest]) -> tuple[int, str]:
    """The distinct passages the requests showed, and where they lie ("A.pdf S. 3, 12; B.pdf S. 1"; by
    document name, whichever parallel batch showed them first)."""
    shown: dict[str, tuple[str, int]] = {}
    for r in requests:
        for chunk, document, page in _PASSAGE.findall(prompt_of(r)):
            shown.setdefault(chunk, (document, int(page)))
    pages: dict[str, set[int]] = {}
    for document, page in shown.values():
        pages.setdefault(document, set()).add(page)
    where = "; ".join(f"{d} S. {', '.join(str(p) for p in sorted(pages[d]))}" for d in sorted(pages))
    return len(shown), where


def failing_extraction() -> Callable[[RecordedRequest], str | dict[str, Any]]:
    """No valid extraction for the dose limits; for the areas the first call valid, the others not."""
    answered: list[str] = []

    def answer(request: RecordedRequest) -> str | dict[str, Any]:
        prompt = prompt_of(request)
        match = _TASK.search(prompt)
        if match is not None and match.group(1) == AREAS and (not answered or answered[0] == prompt):
            answered.append(prompt)
            return valid(request)
        return "Die Passagen behandeln Grenzwerte für beruflich exponierte Personen und"

    return answer


async def test_a_section_whose_passages_the_model_could_not_read_says_so(
    sample_index: Services, fake_ollama: FakeOllama
) -> None:
    fake_ollama.script(failing_extraction(), schema="Extraction")
    result, _ = await report(sample_index, fake_ollama, extract_retry_calls=0, extract_batch_tokens=400)
    # the dose limits: nothing read, so nothing found; before: "Die Dokumente enthalten dazu keine Belege."
    count, where = places(extraction_calls(fake_ollama, LIMITS))
    assert count >= 2
    statement = (
        f"Das Modell konnte {count} abgerufene Passagen nicht lesen ({where}): seine Antworten waren "
        "ungültig oder abgeschnitten. Ob die Dokumente dazu Belege enthalten, ist damit offen."
    )
    assert section(result, LIMITS).markdown == f"## {LIMITS}\n\n{statement}"
    assert NO_EVIDENCE not in result.report_markdown and "ohne Beleg" not in section(result, LIMITS).markdown
    limits = next(t for t in result.tasks if t.title == LIMITS)
    assert limits.state == "error" and limits.evidence == 0
    assert limits.error is not None and f"could not read {count} of the" in limits.error
    assert any(w.startswith(f"section '{LIMITS}': no evidence, because the model") for w in result.warnings)
    # the areas: the first batch read, the others not; what it found is shown, with what it could not read
    calls = extraction_calls(fake_ollama, AREAS)
    unread_calls = [c for c in calls if prompt_of(c) != prompt_of(calls[0])]
    assert unread_calls, "the areas' passages came in one batch: no batch left unread"
    unread, where = places(unread_calls)
    read, _ = places(calls[:1])
    words = "abgerufene Passage" if unread == 1 else "abgerufene Passagen"
    note = (
        f"*Das Modell konnte {unread} {words} nicht lesen ({where}): seine Antworten waren ungültig oder "
        "abgeschnitten.*"
    )
    areas = section(result, AREAS)
    assert areas.evidence > 0 and areas.markdown.startswith(f"## {AREAS}\n\n{note}\n\n")
    assert read + unread == len({c for r in calls for c in _PASSAGE_ID.findall(prompt_of(r))})
    checks = result.checks
    assert checks is not None and checks.tasks_with_evidence == 1


async def test_a_report_with_the_weak_model_finishes_without_junk(
    research_services: Services, weak_fake_ollama: FakeOllama
) -> None:
    """The weak profile over a whole report run (issue 24's goals): done, no placeholder heading, no
    repeated sentence, every quote verbatim; the sections the checks found unusable assembled, labelled."""
    runner = ResearchRunner(research_services)
    record = runner.create(TOPIC, ["sample"], "report", {"depth": 0, "refinement_rounds": 0})
    view = await runner.advance(record.id)
    assert view.interrupt is not None and view.interrupt["kind"] == "outline"
    view = await runner.advance(record.id, {"action": "approve"})
    result = view.result
    assert result is not None and result.status == "done", view.record.error
    behaviours = Counter(b for r in weak_fake_ollama.model_requests() for b in r.weak)
    assert behaviours["truncation"] and behaviours["repetition"], behaviours  # the weak model did answer
    headings = re.findall(r"^#+ (.+)$", result.report_markdown, re.MULTILINE)
    assert not [h for h in headings if is_placeholder(h)], headings
    body = result.report_markdown.split("\n## Quellen")[0]
    blocks = [b for b in body.split("\n\n") if b.strip() and not b.startswith(("#", "*", "1. "))]
    # sentences of four words or more (a split after "p." or "S." leaves fragments such as "37")
    sentences = [s for b in blocks for s in _SENTENCE_END.split(b) if len(normalise_sentence(s).split()) > 3]
    repeated = [s for s, n in Counter(map(normalise_sentence, sentences)).items() if n > 1]
    assert not repeated, repeated
    for source in result.sources:
        stored = research_services.catalog.pages(source.collection, source.document)
        pages = {p.number: p.text for p in stored}
        assert pages[source.page][source.start : source.end] == source.quote
    checks = result.checks
    assert checks is not None
    assert checks.sections_written + checks.sections_assembled <= checks.tasks_with_evidence
    assert len(result.assembled_sections) == checks.sections_assembled
    for assembled in result.assembled_sections:
        assert f"## {assembled.heading}\n\n*{assembled.note}" in result.report_markdown


async def test_a_section_the_models_grade_failed_fails_the_checks(
    sample_index: Services, fake_ollama: FakeOllama
) -> None:
    """The model's grades are one input to the verdict: a section shown as written that its grade failed is
    a problem of the report (no follow-up queries, so no second round)."""
    failed = {"passed": False, "missing": ["die Organdosis"], "follow_up_queries": [], "corpus_queries": []}
    result, _ = await report(sample_index, fake_ollama, grade=failed)
    assert result.checks is not None and not result.checks.passed
    graded = [p for p in result.checks.problems if p.kind == "failed_grade"]
    shown = {s.title for s in result.sections or [] if s.research and s.evidence}
    assembled = {a.heading for a in result.assembled_sections}
    assert {p.section for p in graded} == shown - assembled and graded
    assert all("missing die Organdosis" in p.detail for p in graded)


async def test_a_figure_the_evidence_does_not_state_never_reaches_the_report(
    sample_index: Services, fake_ollama: FakeOllama
) -> None:
    """Issue 30 in report mode: each section also states "987 Millisievert", citing a quote that does not."""
    swapped = "Der Grenzwert beträgt 987 Millisievert im Kalenderjahr."

    def answer(request: RecordedRequest) -> dict[str, Any]:
        body = valid(request)
        ids = list(dict.fromkeys(_PASSAGE_ID.findall(prompt_of(request))))[:1]
        body["claims"] = [{"text": swapped, "evidence": ids}, *body["claims"]]
        return body

    fake_ollama.script(answer, schema="SectionText")
    result, _ = await report(sample_index, fake_ollama)
    assert "987" not in result.report_markdown
    assert result.checks is not None and result.checks.contradictions >= 1
    mine = [c for c in result.checks.corrections if c.sentence == swapped]
    assert mine and all(c.missing == ["987 Millisievert"] for c in mine)
    assert any("stated a number, date or provision" in w for w in result.warnings)
