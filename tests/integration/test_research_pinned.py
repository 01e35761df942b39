"""Named provisions pinned (issue 30): real research runs over kb/sample against the fake Ollama. A question
naming "§ 7 des Atomgesetzes" retrieved AtG § 7 and never used it; now the provision is resolved by the
reference engine, read first in its task and kept among the run's evidence, and one the collections do not
hold is reported as not found."""

from __future__ import annotations

import re
from typing import Any

import pytest

from rabbithole.devtools.fake_ollama import FakeOllama
from rabbithole.devtools.fake_ollama.state import RecordedRequest
from rabbithole.research.evidence.numbering import prompt_id
from rabbithole.research.models import PinnedProvision, ResearchResult
from rabbithole.runs.runner import run_research
from rabbithole.services import Services

pytestmark = pytest.mark.asyncio

ATG_7 = "Was verlangt § 7 des Atomgesetzes für die Genehmigung von Anlagen?"
UNKNOWN = "Was regeln § 99 des Atomgesetzes und Artikel 9 DSGVO?"

_PASSAGE = re.compile(r'<passage id="([^"]+)" document="([^"]+)"(?: page="[^"]+")?(?: section="([^"]+)")?>')
_SENTENCE = re.compile(r"^\[(\d+)\] (.+)$", re.MULTILINE)


def extraction_prompts(fake: FakeOllama, task_title: str) -> list[str]:
    """The extraction prompts of one task (first attempts), in the order the fake received them."""
    return [
        r.prompt
        for r in fake.model_requests()
        if r.schema_name == "Extraction"
        and not any(m.get("role") == "assistant" for m in r.messages)
        and f"Task: {task_title}" in r.prompt
    ]


def first_passage(prompt: str) -> tuple[str, str, str | None]:
    """(chunk id as the prompt shows it, document, section) of the first passage an extraction prompt
    shows."""
    match = _PASSAGE.search(prompt)
    assert match is not None
    return match.group(1), match.group(2), match.group(3)


def reads_first_passage(answers: bool) -> Any:
    """A model that reads its context from the top: one finding, stated in the words of the first passage's
    first full sentence (its figures left out, so that the fact is tied to the sentence chosen)."""

    def answer(request: RecordedRequest) -> dict[str, Any]:
        prompt = request.prompt
        block = prompt[prompt.index("<passage") : prompt.index("</passage>")]
        number, text = next((n, t) for n, t in _SENTENCE.findall(block) if len(t.split()) > 8)
        words = [w for w in re.sub(r"[^\w\s]", " ", text).split() if not any(c.isdigit() for c in w)]
        return {"findings": [{"fact": " ".join(words[:14]), "sentences": [int(number)], "answers": answers}]}

    return answer


async def run(
    services: Services, question: str, **overrides: Any
) -> tuple[ResearchResult, list[dict[str, Any]]]:
    events: list[dict[str, Any]] = []
    result = await run_research(
        services, question, ["sample"], overrides={"depth": 0, **overrides}, on_event=events.append
    )
    return result, events


def only(pinned: list[PinnedProvision], provision: str) -> PinnedProvision:
    (entry,) = [p for p in pinned if p.provision == provision]
    return entry


async def test_a_question_naming_a_provision_has_it_read_first_and_among_its_evidence(
    research_services: Services, fake_ollama: FakeOllama
) -> None:
    fake_ollama.script(reads_first_passage(answers=True), schema="Extraction")
    result, _ = await run(research_services, ATG_7)
    assert result.status == "done"
    entry = only(result.pinned, "§ 7 des Atomgesetzes")
    assert entry.found and entry.named_in == "question" and entry.task_id == "t1"
    assert (entry.collection, entry.document, entry.section) == ("sample", "AtG.pdf", "§ 7")
    assert entry.chunk_ids and entry.answers is True
    # read first: the first passage of the task's first extraction batch is the provision's (the batches
    # are asked side by side, so the fake may receive another batch's prompt before it)
    prompts = extraction_prompts(fake_ollama, result.tasks[0].title)
    assert (prompt_id(entry.chunk_ids[0]), "AtG.pdf", "§ 7") in [first_passage(p) for p in prompts]
    # among the run's verified evidence (validation keeps it, however far its wording is from the anchor)
    provision = [e for e in result.evidence if (e.document, e.section) == ("AtG.pdf", "§ 7")]
    assert provision and entry.evidence_ids == [e.id for e in provision]
    assert set(entry.chunk_ids) <= set(result.retrieved_chunks)
    assert not [w for w in result.warnings if w.startswith("pinned:")]


async def test_a_provision_the_collections_do_not_hold_is_reported_as_not_found(
    research_services: Services,
) -> None:
    result, _ = await run(research_services, UNKNOWN)
    assert result.status == "done"
    missing_section = only(result.pinned, "§ 99 des Atomgesetzes")
    missing_law = only(result.pinned, "Artikel 9 DSGVO")
    assert not missing_section.found and missing_section.reason == "section_not_found"
    assert missing_section.document is None and missing_section.evidence_ids == []
    assert not missing_law.found and missing_law.reason == "unknown_document"
    warnings = [w for w in result.warnings if w.startswith("pinned:")]
    assert any("§ 99 des Atomgesetzes" in w and "not found" in w for w in warnings)
    assert any("Artikel 9 DSGVO" in w and "not found" in w for w in warnings)


async def test_a_pinned_provision_that_does_not_answer_is_said_so(
    research_services: Services, fake_ollama: FakeOllama
) -> None:
    fake_ollama.script(reads_first_passage(answers=False), schema="Extraction")
    result, _ = await run(research_services, ATG_7)
    entry = only(result.pinned, "§ 7 des Atomgesetzes")
    assert entry.found and entry.answers is False and entry.evidence_ids  # read, kept, and not answering
    (warning,) = [w for w in result.warnings if w.startswith("pinned:")]
    assert "§ 7 des Atomgesetzes" in warning and "does not answer the question" in warning


def reads_last_passage(request: RecordedRequest) -> dict[str, Any]:
    """A model that finds something only in the last passage it is shown (never in the pinned one)."""
    prompt = request.prompt
    block = prompt[prompt.rindex("<passage") : prompt.rindex("</passage>")]
    number, text = next(
        ((n, t) for n, t in _SENTENCE.findall(block) if len(t.split()) > 8), _SENTENCE.findall(block)[0]
    )
    words = [w for w in re.sub(r"[^\w\s]", " ", text).split() if not any(c.isdigit() for c in w)]
    return {"findings": [{"fact": " ".join(words[:14]), "sentences": [int(number)], "answers": True}]}


async def test_a_pinned_provision_the_model_found_nothing_in_is_listed_with_its_opening(
    research_services: Services, fake_ollama: FakeOllama
) -> None:
    fake_ollama.script(reads_last_passage, schema="Extraction")
    result, _ = await run(research_services, ATG_7, max_tasks=1)
    entry = only(result.pinned, "§ 7 des Atomgesetzes")
    assert entry.found and entry.answers is False
    (listed,) = [e for e in result.evidence if e.id in entry.evidence_ids]
    assert (listed.document, listed.section) == ("AtG.pdf", "§ 7")
    assert "Genehmigung" in listed.quote and "nichts, was die Frage beantwortet" in listed.fact
    page = next(p for p in research_services.catalog.pages("sample", "AtG.pdf") if p.number == listed.page)
    assert page.text[listed.start : listed.end] == listed.quote  # verbatim, cut by offsets
    (warning,) = [w for w in result.warnings if w.startswith("pinned:")]
    assert "does not answer the question" in warning


async def test_the_report_says_what_a_named_provision_provides_even_when_the_model_leaves_it_out(
    research_services: Services, fake_ollama: FakeOllama
) -> None:
    """The model's sections cite everything but the provision's evidence (read first, so shown first): the
    report still says what § 7 AtG provides, citing it, in its task's section."""
    fake_ollama.script(reads_first_passage(answers=True), schema="Extraction")

    def leave_it_out(request: RecordedRequest) -> dict[str, Any]:
        ids = list(dict.fromkeys(re.findall(r'<passage id="([^"]+)"', request.prompt)))
        return {
            "claims": [
                {"text": "Die Genehmigung setzt die erforderliche Vorsorge voraus.", "evidence": ids[1:3]}
            ]
        }

    fake_ollama.script(leave_it_out, schema="SectionDraft")
    result, _ = await run(research_services, ATG_7)
    entry = only(result.pinned, "§ 7 des Atomgesetzes")
    provision = [e for e in result.evidence if e.id in entry.evidence_ids]
    assert provision and all(e.pinned for e in provision)
    assert all(e.source is not None for e in provision)  # cited in the report
    said = [c for c in result.claims if any(n == provision[0].source for n in c.citations)]
    assert said and said[0].section == result.tasks[0].title
