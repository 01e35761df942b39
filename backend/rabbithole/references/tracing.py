"""`trace`: hybrid search, then reference expansion, over one collection.

    engine = services.reference_engine("sample")     # built from its collaborators, cached per revision
    traced = engine.trace("Wann müssen Strahlenschutzbereiche eingerichtet werden?", depth=2)
    traced.to_dict()   # the `rabbithole trace --json` shape

The engine wires the collection's registry, a :class:`~rabbithole.references.resolver.SectionIndex` over
the catalog's section labels and :class:`~rabbithole.references.store_adapter.CollectionPassages` into an
:class:`~rabbithole.references.expansion.Expander`; build one per collection and reuse it (it caches
section labels and section passages; build a new one after ingestion).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from rabbithole.core.config import ReferenceSettings
from rabbithole.core.errors import InvalidRequestError
from rabbithole.core.models import Chunk, SearchHit
from rabbithole.references.allocation import distinct_sections, within_floor
from rabbithole.references.expansion import (
    BatchGate,
    Detect,
    Expander,
    ExpansionLimits,
    ExpansionResult,
    Gate,
    SearchDocument,
    TracedPassage,
    UnresolvedMention,
    follow_all,
)
from rabbithole.references.expansion_types import tokens_of
from rabbithole.references.grammar import detect_references
from rabbithole.references.resolver import SectionIndex
from rabbithole.references.store_adapter import CollectionPassages
from rabbithole.retrieval.filters import SearchFilters
from rabbithole.retrieval.query_views import QueryVector

if TYPE_CHECKING:
    from rabbithole.catalog.repository import Catalog
    from rabbithole.registry.registry import DocumentRegistry
    from rabbithole.retrieval.hybrid import HybridSearcher
    from rabbithole.store.chroma_store import VectorCollection

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
    """Search plus reference expansion over one collection (grammar detector unless ``detect`` is given).

    Takes the collaborators it needs: the searcher, the catalog (section labels and passages), the
    collection's vectors (relevance) and its document registry (law names)."""

    def __init__(
        self,
        collection: str,
        *,
        searcher: HybridSearcher,
        catalog: Catalog,
        vectors: VectorCollection,
        registry: DocumentRegistry,
        settings: ReferenceSettings,
        detect: Detect | None = None,
        limits: ExpansionLimits | None = None,
    ) -> None:
        self.collection = collection
        self.searcher = searcher
        self.settings = settings
        self.registry = registry
        self.vectors = vectors
        self.passages = CollectionPassages(collection, catalog, vectors)
        self.resolver = self.passages.resolver(self.registry)
        assert self.resolver.sections is not None
        self.sections: SectionIndex = self.resolver.sections
        chosen = limits or ExpansionLimits.from_settings(self.settings)
        #: `trace`'s limits, with its allocation (source_weight, max_reached); the expander's own leave it
        #: out (relevance and the token budget alone: the research dig's gated expansion, direct callers)
        self.trace_limits = chosen
        self.expander = Expander(
            detect or detect_references,
            self.resolver.resolve,
            self.passages,
            replace(chosen, source_weight=0.0, max_reached=0, new_sections_first=False, mention_lead=0),
        )

    def trace(
        self,
        query: str,
        *,
        depth: int | None = None,
        k: int | None = None,
        gate: Gate = follow_all,
        batch_gate: BatchGate | None = None,
        query_vector: QueryVector | None = None,
    ) -> Trace:
        """Search ``query`` (``k`` hits; default: settings.references.seeds hits, the first of each section
        with ``distinct_seed_sections``, those scoring at least ``seed_floor`` of the first hit's, as many
        of them as fit ``seed_share`` of the token budget) and
        follow references ``depth`` hops (default settings.references.max_depth; 0: the search hits
        alone). ``query_vector``: the query embedded beforehand (the views of
        :meth:`HybridSearcher.embed_views`, or a plain vector)."""
        if depth is not None and depth < 0:
            raise InvalidRequestError(f"depth must be at least 0, got {depth}")
        if not query.strip():
            raise InvalidRequestError("the query is empty")
        started = time.perf_counter()
        timings: dict[str, float] = {}
        searcher = self.searcher
        if query_vector is None:
            t = time.perf_counter()
            query_vector = searcher.embed_views(query, self.collection)
            timings["embed"] = time.perf_counter() - t
        else:
            timings["embed"] = 0.0
        t = time.perf_counter()
        hits = searcher.search(
            query, self.collection, k=self.settings.seeds if k is None else k, query_vector=query_vector
        )
        if k is None:
            if self.settings.distinct_seed_sections:
                hits = distinct_sections(hits)
            hits = self._seed_share(within_floor(hits, self.settings.seed_floor))
        timings["search"] = time.perf_counter() - t
        t = time.perf_counter()
        result = self.expand(
            hits, query_vector, depth=depth, gate=gate, batch_gate=batch_gate, query=query, allocate=True
        )
        timings["expand"] = time.perf_counter() - t
        timings["total"] = time.perf_counter() - started
        return Trace(query, self.collection, result, timings)

    def _seed_share(self, hits: list[SearchHit]) -> list[SearchHit]:
        """The first hits whose tokens fit ``seed_share`` of the token budget (at least one)."""
        allowance = self.settings.seed_share * self.expander.limits.token_budget
        kept: list[SearchHit] = []
        spent = 0
        for hit in hits:
            spent += tokens_of(hit.chunk)
            if kept and spent > allowance:
                break
            kept.append(hit)
        return kept

    def expand(
        self,
        hits: list[SearchHit],
        query_vector: QueryVector,
        *,
        depth: int | None = None,
        gate: Gate = follow_all,
        batch_gate: BatchGate | None = None,
        query: str | None = None,
        allocate: bool = False,
    ) -> ExpansionResult:
        """Follow the references of search ``hits`` of this collection (seeds), ranked by relevance to
        ``query_vector``; ``depth`` hops (default settings.max_depth). With the ``query`` text, references
        to a whole document ("nach dem Atomgesetz", "StrlSchG") are followed by a search for it scoped to
        that document (its ``section_chunks`` best chunks); without it they are counted, not followed.
        ``allocate``: rank by relevance times the seed's relative search score and stop at
        ``max_reached`` passages (`trace`'s allocation, :mod:`~rabbithole.references.allocation`); without
        it (the research dig, whose gate chooses what to follow) relevance and the token budget alone."""
        if depth is not None and depth < 0:
            raise InvalidRequestError(f"depth must be at least 0, got {depth}")
        seeds = [TracedPassage(h.chunk, 0, h.similarity, None, h.score) for h in hits]
        search_document = self.document_search(query, query_vector) if query else None
        return self.expander.expand(
            seeds,
            self.passages.relevance(query_vector),
            gate=gate,
            batch_gate=batch_gate,
            max_depth=depth,
            search_document=search_document,
            limits=self.trace_limits if allocate else None,
        )

    def document_search(self, query: str, query_vector: QueryVector) -> SearchDocument:
        """The query's best chunks of one document (hybrid search with a document filter), cached per call."""
        found: dict[str, list[Chunk]] = {}
        k = self.expander.limits.section_chunks

        def search(document: str) -> list[Chunk]:
            if document not in found:
                hits = self.searcher.search(
                    query,
                    self.collection,
                    k=k,
                    filters=SearchFilters.create(documents=document),
                    query_vector=query_vector,
                )
                found[document] = [h.chunk for h in hits]
            return found[document]

        return search
