"""What the expander is given: its limits, the collaborators it calls and the gate's request.

:class:`ExpansionLimits` bounds one expansion; the callables (``Detect``, ``Resolve``, ``Relevance``,
``Gate``, ``BatchGate``, ``SearchDocument``) and :class:`PassageSource` are injected, so the expansion
logic (:mod:`rabbithole.references.expansion`) stays pure and testable with in-memory fakes.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from rabbithole.core.config import ReferenceSettings
from rabbithole.core.models import Chunk
from rabbithole.references.models import Reference
from rabbithole.references.provenance import TracedPassage
from rabbithole.references.resolver import Citing, ResolvedReference

__all__ = [
    "BatchGate",
    "Detect",
    "ExpansionLimits",
    "Gate",
    "GateRequest",
    "PassageSource",
    "Relevance",
    "Resolve",
    "SearchDocument",
    "follow_all",
    "tokens_of",
]


@dataclass(frozen=True, slots=True)
class ExpansionLimits:
    max_depth: int = 2
    token_budget: int = 12_000
    per_document_limit: int = 25
    min_relevance: float = 0.15
    min_keep: int = 5
    section_chunks: int = 1  # chunks of one section taken per reference when no Absatz singles them out
    seed_section_chunks: int = 0  # other chunks of a seed's section scanned for references (seed_sections)
    skip_present_sections: bool = True  # a target section already in the result adds only its cited Absätze
    # off here, set by the settings (from_settings): see rabbithole.references.allocation
    source_weight: float = 0.0  # exponent of the seed's relative search score in a candidate's priority
    max_reached: int = 0  # passages reached through references at most (0: only the token budget limits)
    new_sections_first: bool = False  # per hop, one chunk of each section not in the result goes first
    mention_lead: int = 0  # per hop, the first n sections of one mention (a citation list) go first (0: all)

    @classmethod
    def from_settings(cls, settings: ReferenceSettings, **overrides: int | float | bool) -> ExpansionLimits:
        values: dict[str, int | float | bool] = {
            "max_depth": settings.max_depth,
            "token_budget": settings.token_budget,
            "per_document_limit": settings.per_document_limit,
            "min_relevance": settings.min_relevance,
            "min_keep": settings.min_keep,
            "section_chunks": settings.section_chunks,
            "seed_section_chunks": settings.seed_section_chunks,
            "skip_present_sections": settings.skip_present_sections,
            "source_weight": settings.source_weight,
            "max_reached": settings.max_reached,
            "new_sections_first": settings.new_sections_first,
            "mention_lead": settings.mention_lead,
        }
        values.update(overrides)
        return cls(**values)  # type: ignore[arg-type]


class PassageSource(Protocol):
    def section_passages(self, document: str, section: str) -> Sequence[Chunk]:
        """The chunks of one section of a document, in document order ([] if none)."""
        ...


#: text -> references found in it
Detect = Callable[[str], Sequence[Reference]]
#: (reference, where it was found) -> its target
Resolve = Callable[[Reference, Citing], ResolvedReference]
#: chunks -> {chunk id: cosine similarity to the query} (ids without a vector may be left out)
Relevance = Callable[[Sequence[Chunk]], Mapping[str, float]]
#: (reference, the passage it was found in) -> follow it?
Gate = Callable[[Reference, TracedPassage], bool]
#: document -> its chunks most relevant to the query, best first (a search scoped to that document)
SearchDocument = Callable[[str], Sequence[Chunk]]


@dataclass(frozen=True, slots=True)
class GateRequest:
    """One candidate reference put to a batch gate: the mention, where it points, where it was found."""

    reference: Reference
    target: ResolvedReference
    source: TracedPassage


#: (depth, the candidate references of that depth) -> indices of the requests to follow
BatchGate = Callable[[int, Sequence[GateRequest]], Collection[int]]


def follow_all(reference: Reference, source: TracedPassage) -> bool:
    return True


def tokens_of(chunk: Chunk) -> int:
    return chunk.token_count if chunk.token_count > 0 else max(1, len(chunk.text) // 4)
