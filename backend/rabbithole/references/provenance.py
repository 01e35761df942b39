"""What expansion returns: passages with their provenance, unresolved mentions, counters.

result.passages                 # seeds (depth 0), then depth 1, 2, ... each best first
result.chain(passage_id)        # seed -> ... -> passage, following ``via``
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rabbithole.core.models import Chunk
from rabbithole.references.models import Reference, RefType
from rabbithole.references.resolver import ResolvedReference, Unresolved

__all__ = ["ExpansionResult", "ExpansionStats", "TracedPassage", "UnresolvedMention", "Via"]


@dataclass(frozen=True, slots=True)
class Via:
    """How a passage was reached: from passage ``source_id`` through ``mention``."""

    source_id: str
    mention: str
    reference: Reference
    target: ResolvedReference


@dataclass(frozen=True, slots=True)
class TracedPassage:
    chunk: Chunk
    depth: int  # 0: a seed (search hit); n: reached through n references
    relevance: float | None  # cosine similarity to the query, when known
    via: Via | None = None  # None for seeds
    search_score: float | None = None  # a seed's fused search score

    @property
    def id(self) -> str:
        return self.chunk.id


@dataclass(frozen=True, slots=True)
class UnresolvedMention:
    source_id: str  # the passage the reference was found in
    source_document: str
    mention: str
    type: RefType
    target: str | None  # the name looked up ("Bundesberggesetz", "Richtlinie 2013/59/Euratom")
    section: str | None  # the unit cited, as written ("3", "Anlage 4")
    reason: Unresolved

    @classmethod
    def of(cls, source: Chunk, resolved: ResolvedReference) -> UnresolvedMention:
        """An unresolved reference found in ``source``."""
        ref = resolved.reference
        assert resolved.reason is not None
        unit = (
            f"Anlage {ref.annex}"
            if ref.annex is not None
            else ref.section
            if ref.section is not None
            else f"Artikel {ref.article}"
            if ref.article is not None
            else None
        )
        return cls(
            source.id, source.document, ref.mention, ref.type, resolved.target_name, unit, resolved.reason
        )


@dataclass(slots=True)
class ExpansionStats:
    scanned: int = 0  # passages whose references were followed
    references: int = 0  # references detected in them
    followed: int = 0  # (mention, target) pairs followed
    document_level: int = 0  # resolved to a whole document: not followed
    gated: int = 0  # refused by the gate
    candidates: int = 0  # new passages offered
    visited: int = 0  # offered again (already in the result)
    over_budget: int = 0
    over_document_limit: int = 0
    below_relevance: int = 0
    companions: int = 0  # chunks of a seed's section added because a followed reference stands in them
    present: int = 0  # new chunks of target sections already in the result, not offered


@dataclass(slots=True)
class ExpansionResult:
    passages: list[TracedPassage]
    unresolved: list[UnresolvedMention]
    tokens: int
    budget: int
    stats: ExpansionStats = field(default_factory=ExpansionStats)

    def by_id(self) -> dict[str, TracedPassage]:
        return {p.id: p for p in self.passages}

    def chain(self, passage_id: str) -> list[TracedPassage]:
        """The passages from the seed to ``passage_id`` (seed first); [] for an unknown id."""
        index = self.by_id()
        out: list[TracedPassage] = []
        current = index.get(passage_id)
        while current is not None and len(out) <= len(index):
            out.append(current)
            current = index.get(current.via.source_id) if current.via is not None else None
        return out[::-1]
