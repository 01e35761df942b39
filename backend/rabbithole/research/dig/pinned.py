"""Named provisions, pinned (issue 30): a provision the question or an approved task names ("nach § 7 des
Atomgesetzes", "§ 78 StrlSchG", "Anlage 4 StrlSchG", "Artikel 9 DSGVO") is found by the reference grammar,
resolved in the run's collections by the reference engine (``pinning.pin``), and its passages are read
first in the task that names it: always selected, in the first extraction batch. The result lists each one
(``ResearchResult.pinned``): found or not, its evidence among the run's evidence, and whether it answers.

This module is pure: detection, names, which task pins what, the passages' order, the final entries.

* a provision pinned must name its law (a bare "§ 7" names no document to look in);
* each provision is pinned once, in the first task (plan order) that names it; one the question names and
  no task does goes to the first task (which is the question's own);
* a § with many chunks is pinned by its first chunk (its subject, Absatz 1) and its chunk most similar to
  the task, ``PIN_CHUNKS`` in all; one that names its Absatz by the chunks holding that Absatz;
* a pinned provision the model read and found nothing in is listed among the evidence all the same: its
  opening sentences, verbatim, with a statement saying so (``answers`` false, ``not_answering``), so that
  the result and the report can say what it provides and that it does not answer the question; one the
  model could not read is not (the result says the model could not read it).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from rabbithole.core.models import Chunk
from rabbithole.references.absatz import absatz_chunks
from rabbithole.references.grammar import detect_references
from rabbithole.references.models import Reference, RefType
from rabbithole.research.evidence.numbering import NumberedSentence, number_passages
from rabbithole.research.models import (
    Evidence,
    EvidenceView,
    Passage,
    PinnedProvision,
    TaskResult,
    TaskSpec,
)

__all__ = [
    "MAX_PINS",
    "PIN_CHUNKS",
    "Settled",
    "named_provisions",
    "not_answering",
    "opening",
    "pinned_chunks",
    "pinned_first",
    "pins_by_task",
    "provision_label",
    "settle",
]

#: passages pinned per provision (a long § such as AtG § 7 has 11 chunks: its first and the most similar)
PIN_CHUNKS = 2
#: provisions pinned per task at most (a range "§§ 6 bis 9b AtG" names many); the rest are searched as usual
MAX_PINS = 6

_PINNABLE = frozenset({RefType.SECTION, RefType.ARTICLE, RefType.ANNEX, RefType.EU_ACT})


def named_provisions(text: str) -> list[Reference]:
    """The provisions ``text`` names with their law (§, Artikel, Anlage), each once, in order."""
    out: list[Reference] = []
    seen: set[str] = set()
    for ref in detect_references(text, types=_PINNABLE):
        if ref.same_document or ref.relative_to is not None or not ref.law:
            continue
        if ref.section is None and ref.article is None and ref.annex is None:
            continue  # an act named as a whole ("Richtlinie 2013/59/Euratom")
        label = provision_label(ref)
        if label.casefold() not in seen:
            seen.add(label.casefold())
            out.append(ref)
    return out


def provision_label(ref: Reference) -> str:
    """The provision as one name: "§ 7 Abs. 2 des Atomgesetzes", "Artikel 9 DSGVO", "Anlage 4 StrlSchG"
    (one item of a list or range: "§§ 6, 7 AtG" names "§ 6 AtG" and "§ 7 AtG")."""
    if ref.section is not None:
        unit = f"§ {ref.section}"
    elif ref.article is not None:
        unit = f"Artikel {ref.article}"
    else:
        unit = f"Anlage {ref.annex}"
    if ref.article is not None and ref.section is not None:
        unit = f"Artikel {ref.article} {unit}"
    if ref.absatz:
        unit += f" Abs. {ref.absatz}"
    return f"{unit} {' '.join((ref.law or '').split())}".strip()


def _task_text(task: TaskSpec) -> str:
    return "\n".join([task.title, task.description, *task.queries, *task.corpus_queries])


def pins_by_task(question: str, tasks: Sequence[TaskSpec]) -> dict[str, list[PinnedProvision]]:
    """Which task pins which provision: the first task that names it; one the question names that no task
    does, the first task. ``MAX_PINS`` per task at most."""
    if not tasks:
        return {}
    asked = {provision_label(r).casefold() for r in named_provisions(question)}
    out: dict[str, list[PinnedProvision]] = {t.id: [] for t in tasks}
    taken: set[str] = set()

    def pin(task_id: str, label: str) -> None:
        key = label.casefold()
        if key in taken or len(out[task_id]) >= MAX_PINS:
            return
        taken.add(key)
        named_in = "question" if key in asked else "task"
        out[task_id].append(PinnedProvision(provision=label, named_in=named_in, task_id=task_id))

    for task in tasks:
        for ref in named_provisions(_task_text(task)):
            pin(task.id, provision_label(ref))
    for ref in named_provisions(question):
        pin(tasks[0].id, provision_label(ref))
    return {k: v for k, v in out.items() if v}


def pinned_chunks(
    ref: Reference, section: Sequence[Chunk], similarity: Callable[[Sequence[Chunk]], Mapping[str, float]]
) -> list[Chunk]:
    """The chunks of a provision's section to pin (document order): those holding the Absatz it names,
    else its first chunk and the ones most similar to the task, ``PIN_CHUNKS`` in all."""
    if len(section) <= PIN_CHUNKS:
        return list(section)
    held = absatz_chunks(section, {ref.absatz}) if ref.absatz else []
    if held:
        pool, keep = held, []
    else:
        pool, keep = list(section[1:]), [section[0]]
    scores = similarity(pool)
    ranked = sorted(pool, key=lambda c: -scores.get(c.id, -1.0))
    chosen = {c.id for c in [*keep, *ranked][:PIN_CHUNKS]}
    return [c for c in section if c.id in chosen]


def pinned_first(passages: Sequence[Passage], pinned: Sequence[Passage], limit: int) -> list[Passage]:
    """What extraction reads with the pinned passages first (always selected, so in the first batch),
    then the others in their order; ``limit`` in all, never fewer than the pinned ones."""
    if not pinned:
        return list(passages)
    ids = {p.chunk_id for p in pinned}
    rest = [p for p in passages if p.chunk_id not in ids]
    return [*pinned, *rest][: max(limit, len(pinned))]


#: sentences of a pinned passage listed when the model found nothing in it: up to its first full sentence
OPENING_SENTENCES = 3
_NOT_ANSWERING = {
    "de": "{provision} ({heading}) ist in {where} genannt; die Auswertung fand darin nichts, was die Frage "
    "beantwortet.",
    "en": "{provision} ({heading}) is named in {where}; the extraction found nothing in it that answers the "
    "question.",
}
_WHERE = {
    "de": {"question": "der Frage", "task": "der Aufgabe"},
    "en": {"question": "the question", "task": "the task"},
}


def opening(passage: Passage) -> list[NumberedSentence]:
    """The sentences a pinned passage opens with, up to its first full one (its heading line before it):
    ``OPENING_SENTENCES`` at most."""
    out: list[NumberedSentence] = []
    for sentence in number_passages([passage])[:OPENING_SENTENCES]:
        out.append(sentence)
        text = passage.text[sentence.start - passage.start : sentence.end - passage.start]
        if len(text.split()) > 5:
            break
    return out


def not_answering(pin: PinnedProvision, heading: str, language: str) -> str:
    """The statement listed with a pinned provision the model found nothing in, in the run's language."""
    lang = language if language in _NOT_ANSWERING else "en"
    where = _WHERE[lang][pin.named_in]
    return _NOT_ANSWERING[lang].format(provision=pin.provision, heading=heading or pin.section, where=where)


@dataclass(frozen=True, slots=True)
class Settled:
    """The run's pinned provisions with their evidence, and the warnings about them."""

    pinned: list[PinnedProvision]
    warnings: list[str]


def _place(p: PinnedProvision) -> str:
    return f"{p.document} {p.section}"


def settle(
    pinned: Iterable[PinnedProvision],
    task_results: Sequence[TaskResult],
    evidence: Sequence[EvidenceView],
) -> Settled:
    """Each pinned provision with the run's verified evidence from its section (``evidence``: the
    result's, after validation) and whether extraction found in it something that answers (any task's
    findings, before validation); a warning for each one not found, not read, or not answering."""
    found_in: dict[tuple[str | None, str, str | None], list[Evidence]] = {}
    for t in task_results:
        for e in t.evidence:
            found_in.setdefault((e.collection, e.document, e.section), []).append(e)
    unread = {u.chunk_id for t in task_results for u in t.passages_unread}
    out: list[PinnedProvision] = []
    warnings: list[str] = []
    for p in pinned:
        where = "the question" if p.named_in == "question" else f"task {p.task_id}"
        if not p.found or p.document is None:
            out.append(p.model_copy(update={"evidence_ids": [], "answers": None}))
            warnings.append(
                f"pinned: {p.provision} (named in {where}) was not found in the collections ({p.reason})"
            )
            continue
        key = (p.collection, p.document, p.section)
        ids = [v.id for v in evidence if (v.collection, v.document, v.section) == key]
        extracted = found_in.get(key, [])
        if not extracted and p.chunk_ids and set(p.chunk_ids) <= unread:
            out.append(p.model_copy(update={"evidence_ids": ids, "answers": None}))
            warnings.append(f"pinned: the model could not read {p.provision} ({_place(p)})")
            continue
        answers = any(e.answers for e in extracted)
        out.append(p.model_copy(update={"evidence_ids": ids, "answers": answers}))
        if not answers:
            warnings.append(
                f"pinned: {p.provision} ({_place(p)}, named in {where}) does not answer the question: "
                "its extraction found nothing that answers it"
            )
        elif not ids:
            warnings.append(
                f"pinned: {p.provision} ({_place(p)}) answers the question, but validation dropped its "
                "findings from the evidence"
            )
    return Settled(out, warnings)
