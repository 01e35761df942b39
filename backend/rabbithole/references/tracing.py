"""`trace`: hybrid search, then reference expansion, over one collection of a
:class:`~rabbithole.services.Services`.

    engine = ReferenceEngine(services, "sample")
    traced = engine.trace("Wann müssen Strahlenschutzbereiche eingerichtet werden?", depth=2)
    traced.to_dict()   # the `rabbithole trace --json` shape

The engine wires the collection's registry, a :class:`~rabbithole.references.resolver.SectionIndex` over
the catalog's section labels and :class:`~rabbithole.references.store_adapter.CollectionPassages` into an
:class:`~rabbithole.references.expansion.Expander`; build one per collection and reuse it (it caches
section labels and section passages; build a new one after ingestion).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from rabbithole.core.config import ReferenceSettings
from rabbithole.core.errors import InvalidRequestError
from rabbithole.references.expansion import (
    Detect,
    Expander,
    ExpansionLimits,
    ExpansionResult,
    Gate,
    TracedPassage,
    UnresolvedMention,
    follow_all,
)
from rabbithole.references.grammar import detect_references
from rabbithole.references.resolver import ReferenceResolver, SectionIndex
from rabbithole.references.store_adapter import CollectionPassages

if TYPE_CHECKING:
    from rabbithole.services import Services

__all__ = ["ReferenceEngine", "Trace", "passage_dict", "unresolved_dict"]


@dataclass(slots=True)
class Trace:
    query: str
    collection: str
    result: ExpansionResult
    #: seconds: "embed" (the query vector: model time), "search" (hybrid search without embedding),
    #: "expand" (detection, resolution, section lookups, relevance), "total"
    timings: dict[str, float] = field(default_factory=dict)

    @property
    def passages(self) -> list[TracedPassage]:
        return self.result.passages

    def to_dict(self) -> dict[str, Any]:
        return {
            "query": self.query,
            "passages": [passage_dict(p) for p in self.result.passages],
            "unresolved": [unresolved_dict(u) for u in self.result.unresolved],
        }


def passage_dict(p: TracedPassage) -> dict[str, Any]:
    """A passage as `rabbithole trace --json` prints it; ``score``: cosine similarity to the query (the
    relevance expansion ranks by), the fused search score where no vector was at hand."""
    score = p.relevance if p.relevance is not None else p.search_score
    return {
        "id": p.chunk.id,
        "document": p.chunk.document,
        "page": p.chunk.page,
        "section": p.chunk.section,
        "text": p.chunk.text,
        "depth": p.depth,
        "via": None if p.via is None else {"from": p.via.source_id, "mention": p.via.mention},
        "score": None if score is None else round(score, 6),
    }


def unresolved_dict(u: UnresolvedMention) -> dict[str, Any]:
    return {
        "from": u.source_id,
        "document": u.source_document,
        "mention": u.mention,
        "type": u.type.value,
        "target": u.target,
        "section": u.section,
        "reason": u.reason.value,
    }


class ReferenceEngine:
    """Search plus reference expansion over one collection (grammar detector unless ``detect`` is given)."""

    def __init__(
        self,
        services: Services,
        collection: str,
        *,
        detect: Detect | None = None,
        settings: ReferenceSettings | None = None,
        limits: ExpansionLimits | None = None,
    ) -> None:
        self.services = services
        self.collection = collection
        self.settings = settings or services.settings.references
        self.registry = services.registry(collection)
        self.vectors = services.store.open(collection)
        self.passages = CollectionPassages(collection, services.catalog, self.vectors)
        self.sections = SectionIndex(self.passages.section_labels)
        self.resolver = ReferenceResolver(self.registry, self.sections)
        self.expander = Expander(
            detect or detect_references,
            self.resolver.resolve,
            self.passages,
            limits or ExpansionLimits.from_settings(self.settings),
        )

    def trace(
        self,
        query: str,
        *,
        depth: int | None = None,
        k: int | None = None,
        gate: Gate = follow_all,
        query_vector: np.ndarray | None = None,
    ) -> Trace:
        """Search ``query`` (``k`` hits, default settings.retrieval.k) and follow references ``depth`` hops
        (default settings.references.max_depth; 0: the search hits alone)."""
        if depth is not None and depth < 0:
            raise InvalidRequestError(f"depth must be at least 0, got {depth}")
        if not query.strip():
            raise InvalidRequestError("the query is empty")
        started = time.perf_counter()
        timings: dict[str, float] = {}
        searcher = self.services.searcher
        if query_vector is None:
            t = time.perf_counter()
            query_vector = searcher.embed_query(query)
            timings["embed"] = time.perf_counter() - t
        else:
            timings["embed"] = 0.0
        t = time.perf_counter()
        hits = searcher.search(query, self.collection, k=k, query_vector=query_vector)
        timings["search"] = time.perf_counter() - t
        t = time.perf_counter()
        seeds = [TracedPassage(h.chunk, 0, h.similarity, None, h.score) for h in hits]
        result = self.expander.expand(
            seeds, self.passages.relevance(query_vector), gate=gate, max_depth=depth
        )
        timings["expand"] = time.perf_counter() - t
        timings["total"] = time.perf_counter() - started
        return Trace(query, self.collection, result, timings)
