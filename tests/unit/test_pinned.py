"""Named provisions (research/dig/pinned.py): which provisions a text names, which task pins them, which
chunks of a long section are pinned, the order extraction reads, and the entries of the result."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from rabbithole.core.models import Chunk
from rabbithole.research.dig.pinned import (
    PIN_CHUNKS,
    named_provisions,
    pinned_chunks,
    pinned_first,
    pins_by_task,
    provision_label,
    settle,
)
from rabbithole.research.evidence.drift import validate_drift
from rabbithole.research.models import (
    Evidence,
    EvidenceView,
    Passage,
    PinnedProvision,
    TaskResult,
    TaskSpec,
    UnreadPassage,
)


def labels(text: str) -> list[str]:
    return [provision_label(r) for r in named_provisions(text)]


def test_provisions_named_with_their_law_each_once() -> None:
    assert labels("Was verlangt § 7 des Atomgesetzes, und was § 7 des Atomgesetzes Abs. 2?") == [
        "§ 7 des Atomgesetzes"
    ]
    assert labels("nach §§ 6, 7 und 9b AtG") == ["§ 6 AtG", "§ 7 AtG", "§ 9b AtG"]
    assert labels("Anlage 4 StrlSchG und Artikel 9 DSGVO") == ["Anlage 4 StrlSchG", "Artikel 9 DSGVO"]
    assert labels("What does § 7 Abs. 2 Satz 1 AtG require?") == ["§ 7 Abs. 2 AtG"]
    # no law, no document to look in; an act as a whole is no provision
    assert labels("Was regelt § 7? Und Absatz 2?") == []
    assert labels("nach der Richtlinie 2013/59/Euratom") == []


def test_a_label_names_the_same_provision_again() -> None:
    for text in ("§ 12 Absatz 1 Nummer 3 des Strahlenschutzgesetzes", "Anlage 4 StrlSchG", "Artikel 9 DSGVO"):
        (label,) = labels(text)
        assert labels(label) == [label]


def task(task_id: str, title: str, *queries: str) -> TaskSpec:
    return TaskSpec(id=task_id, title=title, queries=list(queries))


def test_each_provision_is_pinned_once_by_the_first_task_naming_it() -> None:
    question = "Was verlangen § 7 AtG und § 78 StrlSchG?"
    plan = [
        task("t1", "Genehmigungen", "Genehmigung Anlagen"),  # names neither
        task("t2", "Grenzwerte nach § 78 StrlSchG", "§ 78 StrlSchG Grenzwerte", "§ 5 StrlSchV"),
        task("t3", "Noch einmal § 78 StrlSchG"),
    ]
    pins = pins_by_task(question, plan)
    assert [(p.provision, p.named_in) for p in pins["t1"]] == [("§ 7 AtG", "question")]
    assert [(p.provision, p.named_in) for p in pins["t2"]] == [
        ("§ 78 StrlSchG", "question"),
        ("§ 5 StrlSchV", "task"),
    ]
    assert "t3" not in pins
    assert all(not p.found and p.task_id == t for t, ps in pins.items() for p in ps)
    assert pins_by_task("Was gilt?", plan[:1]) == {}
    assert [p.named_in for p in pins_by_task("Was gilt?", plan)["t2"]] == ["task", "task"]


def chunk(n: int, text: str) -> Chunk:
    return Chunk(
        id=f"c{n}",
        collection="sample",
        document="AtG.pdf",
        ordinal=n,
        page=1,
        page_end=1,
        start=n * 1000,
        end=n * 1000 + len(text),
        text=text,
        token_count=len(text.split()),
        section="§ 7",
        heading="§ 7 Genehmigung von Anlagen",
    )


def scores(values: Mapping[str, float]) -> Callable[[Sequence[Chunk]], Mapping[str, float]]:
    def similarity(chunks: Sequence[Chunk]) -> dict[str, float]:
        return {c.id: values[c.id] for c in chunks if c.id in values}

    return similarity


def test_a_long_section_is_pinned_by_its_first_chunk_and_the_most_similar_one() -> None:
    section = [chunk(i, f"({i + 1}) Absatz {i + 1} text") for i in range(5)]
    (ref,) = named_provisions("§ 7 AtG")
    chosen = pinned_chunks(ref, section, scores({"c1": 0.1, "c2": 0.2, "c3": 0.9, "c4": 0.3}))
    assert [c.id for c in chosen] == ["c0", "c3"] and len(chosen) == PIN_CHUNKS
    # the Absatz it names: the chunks holding that Absatz
    (ref,) = named_provisions("§ 7 Abs. 3 AtG")
    chosen = pinned_chunks(ref, section, scores({}))
    assert [c.id for c in chosen] == ["c2"]
    assert pinned_chunks(ref, section[:2], scores({})) == section[:2]


def passage(chunk_id: str, pinned: bool = False) -> Passage:
    return Passage(
        chunk_id=chunk_id,
        collection="sample",
        document="AtG.pdf",
        page=1,
        page_end=1,
        start=0,
        end=1,
        text="x",
        pinned=pinned,
    )


def test_pinned_passages_are_read_first_and_always() -> None:
    found = [passage("a"), passage("b"), passage("p2"), passage("c")]
    pinned = [passage("p1", True), passage("p2", True)]
    assert [p.chunk_id for p in pinned_first(found, pinned, 3)] == ["p1", "p2", "a"]
    assert [p.chunk_id for p in pinned_first(found, pinned, 1)] == ["p1", "p2"]
    assert pinned_first(found, [], 3) == found


def evidence(eid: str, section: str, answers: bool, pinned: bool = False) -> Evidence:
    return Evidence(
        id=eid,
        task_id="t1",
        chunk_id=f"chunk-{eid}",
        collection="sample",
        document="AtG.pdf",
        page=1,
        section=section,
        quote="q",
        start=0,
        end=1,
        fact="f",
        answers=answers,
        pinned=pinned,
    )


def view(e: Evidence) -> EvidenceView:
    return EvidenceView(
        id=e.id,
        task_id=e.task_id,
        collection=e.collection,
        document=e.document,
        page=e.page,
        section=e.section,
        quote=e.quote,
        start=e.start,
        end=e.end,
        fact=e.fact,
    )


def pin(provision: str, section: str | None, chunk_ids: Sequence[str] = ("c1",)) -> PinnedProvision:
    return PinnedProvision(
        provision=provision,
        named_in="question",
        task_id="t1",
        found=section is not None,
        collection="sample" if section else None,
        document="AtG.pdf" if section else None,
        section=section,
        reason=None if section else "section_not_found",
        chunk_ids=list(chunk_ids) if section else [],
    )


def test_the_result_lists_each_pinned_provision_with_its_evidence_and_warns() -> None:
    answering = evidence("t1-b1-e1", "§ 7", answers=True, pinned=True)
    related = evidence("t1-b1-e2", "§ 9a", answers=False, pinned=True)
    tasks = [
        TaskResult(
            task_id="t1",
            title="t",
            evidence=[answering, related],
            passages_unread=[
                UnreadPassage(chunk_id="c21", collection="sample", document="AtG.pdf", page=3, section="§ 21")
            ],
        )
    ]
    pins = [
        pin("§ 7 AtG", "§ 7"),
        pin("§ 9a AtG", "§ 9a"),
        pin("§ 21 AtG", "§ 21", ["c21"]),
        pin("§ 99 AtG", None),
    ]
    settled = settle(pins, tasks, [view(answering), view(related)])
    by_name = {p.provision: p for p in settled.pinned}
    assert by_name["§ 7 AtG"].evidence_ids == ["t1-b1-e1"] and by_name["§ 7 AtG"].answers is True
    assert by_name["§ 9a AtG"].evidence_ids == ["t1-b1-e2"] and by_name["§ 9a AtG"].answers is False
    assert by_name["§ 21 AtG"].answers is None  # the model could not read it
    assert by_name["§ 99 AtG"].answers is None and by_name["§ 99 AtG"].evidence_ids == []
    assert len(settled.warnings) == 3
    assert any("§ 9a AtG" in w and "does not answer the question" in w for w in settled.warnings)
    assert any("§ 21 AtG" in w and "could not read" in w for w in settled.warnings)
    assert any("§ 99 AtG" in w and "not found" in w and "section_not_found" in w for w in settled.warnings)


def test_drift_validation_keeps_pinned_evidence() -> None:
    named = evidence("t1-b1-e1", "§ 7", answers=True, pinned=True)
    found = evidence("t1-b1-e2", "§ 7", answers=True)
    checked = validate_drift([named, found], {named.id: 0.07, found.id: 0.07}, {"secondary": 0.15})
    assert [e.id for e in checked.kept] == [named.id]
    assert [d.evidence_id for d in checked.dropped] == [found.id]
