"""Each passage read once per run: the tasks of a run often retrieve the same passages (a definition, the
provision the question names), and on CPU every passage a model reads twice costs its prompt tokens again.

``RunReadings`` lives in the run's context. A task's extraction batch claims the passages no other batch of
the run has claimed (``claim``), reads them, and records what the model found in each (``settle``: the
findings as they concern that passage, by sentence offsets, so they do not depend on how the sentences were
numbered in the prompt). A passage another batch claimed first is not sent to the model again: its reading
is awaited and its findings are turned into this task's evidence from this task's own passage (its depth,
relevance and reference chain). A passage its reader could not read (the model's answers stayed invalid or
were cut) is settled with None, and the waiting task reads it itself.

A batch settles its own passages before it awaits anybody else's, so two batches never wait on each other.
The readings are not checkpointed: a resumed run reads again what it needs (tokens, never evidence, are at
stake).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from rabbithole.research.evidence.numbering import NumberedSentence
from rabbithole.research.models import Passage

__all__ = ["PassageFinding", "RunReadings", "findings_of", "renumbered"]

#: A passage as the run reads it: its collection, chunk and span.
PassageKey = tuple[str, str, int, int]


@dataclass(frozen=True, slots=True)
class PassageFinding:
    """One finding as it concerns one passage: the fact, whether it answers the reader's task, and the
    sentences of this passage that state it (document-text offsets)."""

    fact: str
    answers: bool
    spans: tuple[tuple[int, int], ...]


@dataclass(slots=True)
class RenumberedFinding:
    """A shared finding in the numbering of another prompt (the shape ``evidence_from_findings`` reads)."""

    fact: str
    sentences: list[int]
    answers: bool


def key_of(passage: Passage) -> PassageKey:
    return (passage.collection, passage.chunk_id, passage.start, passage.end)


def findings_of(
    passage: Passage, findings: Sequence[Any], table: Sequence[NumberedSentence]
) -> list[PassageFinding]:
    """The findings of one answer that cite sentences of ``passage`` (``table``: the prompt's sentence
    numbers), each with only those sentences."""
    mine = {s.number: s for s in table if s.chunk_id == passage.chunk_id}
    out: list[PassageFinding] = []
    for finding in findings:
        spans = tuple((mine[n].start, mine[n].end) for n in finding.sentences if n in mine)
        if spans:
            out.append(PassageFinding(str(finding.fact), bool(finding.answers), spans))
    return out


def renumbered(
    findings: Iterable[PassageFinding], table: Sequence[NumberedSentence]
) -> list[RenumberedFinding]:
    """``findings`` with their sentences numbered as in ``table`` (one passage's sentences); a finding
    none of whose sentences the table holds is left out."""
    numbers = {(s.start, s.end): s.number for s in table}
    out: list[RenumberedFinding] = []
    for f in findings:
        chosen = [numbers[span] for span in f.spans if span in numbers]
        if chosen:
            out.append(RenumberedFinding(f.fact, chosen, f.answers))
    return out


@dataclass
class RunReadings:
    """What the run's extraction batches have read or are reading, by passage (see the module docstring)."""

    _readings: dict[PassageKey, asyncio.Future[list[PassageFinding] | None]] = field(default_factory=dict)

    def claim(
        self, passages: Sequence[Passage]
    ) -> tuple[list[Passage], list[tuple[Passage, asyncio.Future[list[PassageFinding] | None]]]]:
        """Split ``passages`` into those the caller reads (now claimed by it) and those another batch
        claimed first, with the reading to await."""
        loop = asyncio.get_running_loop()
        own: list[Passage] = []
        elsewhere: list[tuple[Passage, asyncio.Future[list[PassageFinding] | None]]] = []
        for p in passages:
            key = key_of(p)
            reading = self._readings.get(key)
            if reading is None:
                self._readings[key] = loop.create_future()
                own.append(p)
            else:
                elsewhere.append((p, reading))
        return own, elsewhere

    def settle(self, passage: Passage, findings: list[PassageFinding] | None) -> None:
        """Record the reading of a claimed passage (None: it could not be read); a second call for the same
        passage is ignored."""
        reading = self._readings.get(key_of(passage))
        if reading is not None and not reading.done():
            reading.set_result(findings)

    def abandon(self, passages: Iterable[Passage]) -> None:
        """Settle the caller's passages still open as unread (it stops: an error, a cancel, the end)."""
        for p in passages:
            self.settle(p, None)
