"""What a report run does side by side instead of one after the other, end to end against the fake Ollama:
the outline is proposed while the anchor is made, a section's references of both depths are judged at
once (and the references followed are the same as when they are judged one depth after the other), and
the sentences the support check needs are embedded beside the grade.

Side by side is seen from the fake's side: it records a request when it arrives and answers it after its
latency, so when two calls are made at once, both have arrived by the time the first is answered; when one
waits for the other's answer, the second arrives only after that answer."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

import pytest

from rabbithole.devtools.fake_ollama import FakeOllama, PromptContext, generate_instance
from rabbithole.embeddings.memo import TextVectors
from rabbithole.research.context import ResearchContext
from rabbithole.research.models import ResearchResult
from rabbithole.research.report.section_nodes import support_texts
from rabbithole.runs.runner import ResearchRunner
from rabbithole.runs.store import RunRecord
from rabbithole.services import Services

TOPIC = "Strahlenschutz bei beruflich exponierten Personen: Grenzwerte, Überwachung und Pflichten"
LATENCY_MS = 400  # long enough for two calls made at once to both arrive before the first answer


def section(title: str, description: str, question: str = "", research: bool = True) -> dict[str, Any]:
    questions = [question] if question else []
    return {
        "title": title,
        "description": description,
        "research": research,
        "questions": questions,
        "corpus_queries": [],
    }


DOSE = section(
    "Dosisgrenzwerte", "Welche Grenzwerte gelten.", "Dosisgrenzwerte für beruflich exponierte Personen"
)
AREAS = section(
    "Strahlenschutzbereiche", "Wann Bereiche einzurichten sind.", "Einrichtung von Strahlenschutzbereichen"
)
MONITORING = section("Überwachung", "Wie die Körperdosis ermittelt wird.", "Ermittlung der Körperdosis")
#: one researched section between two framing ones (an outline has at least three sections)
ONE_SECTION = {
    "title": "Dosisgrenzwerte",
    "sections": [
        section("Einleitung", "Worum es geht.", research=False),
        DOSE,
        section("Fazit", "Was folgt.", research=False),
    ],
}
THREE_SECTIONS = {"title": "Strahlenschutz", "sections": [DOSE, AREAS, MONITORING]}


class ArrivalLog:
    """A scripted answer (the fake's own, or ``answer``) that notes, when it answers, how many requests
    of ``schemas`` had arrived by then."""

    def __init__(self, fake: FakeOllama, schemas: Sequence[str], answer: Any = None) -> None:
        self.fake, self.schemas, self.answer = fake, set(schemas), answer
        self.arrived_at_answer: list[int] = []

    def __call__(self, request: Any) -> Any:
        arrived = [r for r in self.fake.model_requests() if r.schema_name in self.schemas]
        self.arrived_at_answer.append(len(arrived))
        if self.answer is not None:
            return self.answer(request) if callable(self.answer) else self.answer
        return generate_instance(request.format, PromptContext.from_messages(request.messages))


async def report(
    runner: ResearchRunner, on_event: Callable[[dict[str, Any]], None] | None = None, **overrides: Any
) -> ResearchResult:
    """A report approved as proposed (no refinement unless ``overrides`` say so); ``on_event`` sees the
    events of the run after the approval."""
    record = runner.create(TOPIC, ["sample"], "report", {"refinement_rounds": 0, **overrides})
    view = await runner.advance(record.id)
    assert view.interrupt is not None and view.interrupt["kind"] == "outline"
    view = await runner.advance(record.id, {"action": "approve"}, on_event=on_event)
    assert view.result is not None and view.result.status == "done"
    return view.result


@pytest.mark.asyncio
async def test_the_outline_is_proposed_while_the_anchor_is_made(
    research_services: Services, fake_ollama: FakeOllama
) -> None:
    both = ("AnchorDraft", "OutlineDraft")
    anchor, outline = ArrivalLog(fake_ollama, both), ArrivalLog(fake_ollama, both, ONE_SECTION)
    fake_ollama.script(anchor, schema="AnchorDraft")
    fake_ollama.script(outline, schema="OutlineDraft")
    fake_ollama.set_latency(LATENCY_MS)
    runner = ResearchRunner(research_services)
    record = runner.create(TOPIC, ["sample"], "report", {"depth": 0, "refinement_rounds": 0})
    view = await runner.advance(record.id)
    assert view.interrupt is not None
    assert [s["title"] for s in view.interrupt["sections"]] == ["Einleitung", "Dosisgrenzwerte", "Fazit"]
    # each was answered when the other's request had arrived too: neither waited for the other
    assert anchor.arrived_at_answer == [2] and outline.arrived_at_answer == [2]


def gate_rule(request: Any) -> dict[str, Any]:
    """A gate that decides each reference by itself, whatever else it is shown with: it turns down a
    reference whose mention's length is a multiple of 3."""
    lines = re.findall(r'^\[(\d+)\] "(.*)" -> ', request.prompt, flags=re.MULTILINE)
    return {
        "decisions": [
            {"index": int(i), "follow": len(mention) % 3 != 0, "reason": "rule"} for i, mention in lines
        ]
    }


def followed(events: Sequence[dict[str, Any]]) -> set[str]:
    return {
        json.dumps([e["from"], e["mention"], e["to"], e["depth"]], sort_keys=True)
        for e in events
        if e["type"] == "reference_followed"
    }


@pytest.mark.asyncio
async def test_references_of_both_depths_are_judged_at_once_and_followed_as_before(
    research_services: Services, sample_index: Services, fake_ollama: FakeOllama
) -> None:
    fake_ollama.script(ONE_SECTION, schema="OutlineDraft")
    log = ArrivalLog(fake_ollama, ["ReferenceGate"], gate_rule)
    fake_ollama.script(log, schema="ReferenceGate")
    fake_ollama.set_latency(LATENCY_MS)
    ahead_events: list[dict[str, Any]] = []
    ahead = await report(ResearchRunner(research_services), ahead_events.append, depth=2)
    # two calls, and depth 2's had arrived before depth 1's answer; every reference met was judged ahead
    assert log.arrived_at_answer == [2, 2] and ahead.llm_calls["gate"] == 2
    gates = [r for r in fake_ollama.model_requests() if r.schema_name == "ReferenceGate"]
    decisions = [d for r in gates for d in gate_rule(r)["decisions"]]
    assert any(not d["follow"] for d in decisions), "the rule turns some references down"

    fake_ollama.reset()
    fake_ollama.script(ONE_SECTION, schema="OutlineDraft")
    one_by_one = ArrivalLog(fake_ollama, ["ReferenceGate"], gate_rule)
    fake_ollama.script(one_by_one, schema="ReferenceGate")
    settings = sample_index.settings.model_copy(
        update={
            "llm": fake_ollama.settings(),
            "research": sample_index.settings.research.model_copy(update={"gate_ahead": False}),
        }
    )
    before_events: list[dict[str, Any]] = []
    async with Services(settings, share_with=sample_index) as services:
        before = await report(ResearchRunner(services), before_events.append, depth=2)
    # one depth after the other: each call arrived after the one before was answered (here the gated
    # first hop may reach no further references, so there may be no second call)
    calls = before.llm_calls["gate"]
    assert one_by_one.arrived_at_answer == list(range(1, calls + 1)) and 1 <= calls <= 2
    # the same references followed, at the same depths, and the same passages retrieved
    assert followed(ahead_events) == followed(before_events) and followed(ahead_events)
    assert ahead.retrieved_chunks == before.retrieved_chunks


class CountingVectors(TextVectors):
    """The run's vector cache, noting how many texts each batch had and how many it had to embed."""

    def __init__(self, embedder: Any, batches: list[tuple[int, int]]) -> None:
        super().__init__(embedder)
        self.batches = batches

    def embed(self, texts: Sequence[str]) -> Any:
        before = len(self)
        vectors = super().embed(texts)
        self.batches.append((len(texts), len(self) - before))
        return vectors


class CountingRunner(ResearchRunner):
    def __init__(self, services: Services, batches: list[tuple[int, int]]) -> None:
        super().__init__(services)
        self.batches = batches

    def context(self, record: RunRecord) -> ResearchContext:
        ctx = super().context(record)
        assert ctx.vectors is not None  # report runs have one
        return replace(ctx, vectors=CountingVectors(self.services.embedder, self.batches))


class NoCacheRunner(ResearchRunner):
    def context(self, record: RunRecord) -> ResearchContext:
        return replace(super().context(record), vectors=None)


@pytest.mark.asyncio
async def test_the_support_check_finds_the_sentences_embedded_beside_the_grade(
    research_services: Services, fake_ollama: FakeOllama
) -> None:
    fake_ollama.script(THREE_SECTIONS, schema="OutlineDraft")
    batches: list[tuple[int, int]] = []
    cached = await report(CountingRunner(research_services, batches), depth=0)
    # a batch beside each section's grade, then the support check at compile, which embeds nothing new
    *early, (checked, new_at_compile) = batches
    assert len(early) == 3 and all(new > 0 for _, new in early)
    assert checked > 0 and new_at_compile == 0
    sources = {s.evidence_id: s.support for s in cached.sources}
    assert sources and all(s is not None for s in sources.values())

    fake_ollama.reset()
    fake_ollama.script(THREE_SECTIONS, schema="OutlineDraft")
    plain = await report(NoCacheRunner(research_services), depth=0)
    assert [c.model_dump() for c in plain.claims] == [c.model_dump() for c in cached.claims]
    for source in plain.sources:
        early_support, support = sources[source.evidence_id], source.support
        assert early_support is not None and support is not None
        assert early_support.flagged == support.flagged
        assert early_support.score == pytest.approx(support.score, abs=1e-4)


def test_support_texts_are_the_cited_sentences_and_their_quotes() -> None:
    from rabbithole.research.evidence.citations import DraftClaim, DraftSection
    from rabbithole.research.models import Evidence

    quote = "Der Grenzwert der effektiven Dosis beträgt 20 Millisievert im Kalenderjahr."
    evidence = Evidence(
        id="s1-p0-d0-b1-e1", task_id="s1-p0-d0", chunk_id="c1", collection="sample", document="StrlSchG",
        page=3, quote=quote, start=0, end=len(quote), fact="20 mSv", relevance=0.9, tier="primary",
        tier_score=0.9,
    )  # fmt: skip
    draft = DraftSection(
        heading="Dosisgrenzwerte",
        claims=[
            DraftClaim(text="Es gilt ein Grenzwert [1].", evidence_ids=["s1-p0-d0-b1-e1", "unknown"]),
            DraftClaim(text="Ohne Beleg.", evidence_ids=[]),
            DraftClaim(text="Nur Unbekanntes.", evidence_ids=["unknown"]),
        ],
    )
    assert support_texts(draft, [evidence]) == ["Es gilt ein Grenzwert.", quote]
