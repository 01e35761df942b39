"""Reference expansion: from seed passages, follow the references in their text, recursively.

Pure logic over injected collaborators, so it is unit-tested with in-memory fakes; the adapters onto the
catalog and the vector store are in :mod:`rabbithole.references.store_adapter`.

    expander = Expander(detect, resolver.resolve, passages, limits)
    result = expander.expand(seeds, relevance)

* **Multi-hop**: passages reached through a reference are scanned in turn, breadth-first, up to
  ``max_depth`` hops; a visited set (by chunk id) keeps every passage once, so cycles end.
* **Targets**: a reference resolved to a section (:class:`~rabbithole.references.resolver.ResolvedReference`)
  is followed to the chunks of that section; when it names Absätze ("§ 5 Absatz 26") the chunks holding
  them (told apart by "(26)" at a line start) and the section's opening chunk (heading, first Absatz) are
  taken, else (no Absatz named, or no marks found) the section's ``section_chunks`` most relevant chunks.
  A bare "Satz 2"/"Nummer 3" points into the Absatz it stands in. A range with inserted sections or a
  division ("Teil 4 Kapitel 2") is followed to every section it covers. References to a whole other document
  ("nach dem Atomgesetz", "StrlSchG") are followed through ``search_document`` (the query's best chunks of
  that document) when it is given, else counted, not followed.
* **Order and limits**: per depth, all candidates are ranked by relevance (cosine similarity of the
  passage to the query) and taken best first while the token budget (``Chunk.token_count``) lasts, at most
  ``per_document_limit`` reached passages per document; a candidate below ``min_relevance`` is dropped,
  except while fewer than ``min_keep`` passages have been reached. Seeds are always kept and count
  towards the budget. With ``source_weight`` > 0 the relevance is weighted by the seed a candidate
  descends from, ``new_sections_first`` and ``mention_lead`` spread a hop's candidates over sections and
  mentions, and ``max_reached`` caps the passages reached (:mod:`rabbithole.references.allocation`).
* **Gate**: ``gate(reference, source_passage) -> bool`` decides per reference (per mention and target)
  whether it is followed; the default follows all. A ``batch_gate(depth, requests) -> indices to follow``
  decides all candidate references of one depth at once instead (one LLM call per depth, not one per
  reference); it replaces ``gate`` when given.
* **Provenance**: every reached passage carries ``via``: the passage it was reached from and the mention
  ("§ 80 Absatz 1 und 2 des Strahlenschutzgesetzes"); :meth:`ExpansionResult.chain` walks back to the seed.
* **Unresolved** references of the scanned passages are reported, never dropped silently.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from rabbithole.references.absatz import absatz_at, absatz_chunks
from rabbithole.references.allocation import by_priority, seed_weights, spread
from rabbithole.references.candidates import section_candidates, trim_sections
from rabbithole.references.expansion_types import (
    BatchGate,
    Detect,
    ExpansionLimits,
    Gate,
    GateRequest,
    PassageSource,
    Relevance,
    Resolve,
    SearchDocument,
    follow_all,
    tokens_of,
)
from rabbithole.references.provenance import (
    ExpansionResult,
    ExpansionStats,
    TracedPassage,
    UnresolvedMention,
    Via,
)
from rabbithole.references.seed_sections import section_siblings, seed_companions
from rabbithole.references.targets import TargetFinder, UnresolvedByMention

__all__ = [
    "BatchGate",
    "Detect",
    "Expander",
    "ExpansionLimits",
    "ExpansionResult",
    "ExpansionStats",
    "Gate",
    "GateRequest",
    "PassageSource",
    "Relevance",
    "Resolve",
    "SearchDocument",
    "TracedPassage",
    "UnresolvedMention",
    "Via",
    "absatz_at",
    "absatz_chunks",
    "follow_all",
]


class Expander:
    """Follows references from seed passages; reusable across queries (keeps no per-query state)."""

    def __init__(
        self,
        detect: Detect,
        resolve: Resolve,
        passages: PassageSource,
        limits: ExpansionLimits | None = None,
    ) -> None:
        self.detect = detect
        self.resolve = resolve
        self.passages = passages
        self.limits = limits or ExpansionLimits()
        self.targets = TargetFinder(detect, resolve, passages)

    def expand(
        self,
        seeds: Sequence[TracedPassage],
        relevance: Relevance | None = None,
        *,
        gate: Gate = follow_all,
        batch_gate: BatchGate | None = None,
        max_depth: int | None = None,
        search_document: SearchDocument | None = None,
        limits: ExpansionLimits | None = None,
    ) -> ExpansionResult:
        """``search_document``: how references to a whole document are followed (the query's best chunks
        of that document); without it they are counted (``stats.document_level``), not followed.
        ``limits``: this call's limits instead of the expander's."""
        limits = self.limits if limits is None else limits
        depth_limit = limits.max_depth if max_depth is None else max_depth
        stats = ExpansionStats()
        result: list[TracedPassage] = []
        visited: set[str] = set()
        for seed in seeds:
            if seed.id not in visited:
                visited.add(seed.id)
                result.append(seed)
        tokens = sum(tokens_of(p.chunk) for p in result)
        unresolved: UnresolvedByMention = {}
        per_document: Counter[str] = Counter()
        reached = 0
        frontier = sorted(result, key=_by_relevance)
        weights = seed_weights(result)  # a passage reached later carries its seed's weight
        companions = self._companions(result, relevance, visited) if depth_limit >= 1 else {}
        result_companions: set[str] = set()  # companions in the result as such (depth 0)
        for depth in range(1, depth_limit + 1):
            if not frontier:
                break
            scan = [*frontier, *companions.values()] if depth == 1 else frontier
            follow_documents = search_document is not None
            targets = self.targets.find(scan, depth, gate, batch_gate, stats, unresolved, follow_documents)
            present = {(p.chunk.document, p.chunk.section or "") for p in result}
            candidates = section_candidates(
                targets,
                self.passages,
                visited,
                stats,
                search_document,
                present if limits.skip_present_sections else None,
            )
            if relevance is not None and candidates:
                scores = relevance([c.chunk for c in candidates])
                for c in candidates:
                    c.relevance = scores.get(c.chunk.id)
            candidates = trim_sections(candidates, limits.section_chunks)
            if limits.source_weight > 0:
                candidates = by_priority(candidates, weights, limits.source_weight)
            if limits.new_sections_first or limits.mention_lead > 0:
                candidates = spread(
                    candidates,
                    present,
                    sections_first=limits.new_sections_first,
                    mention_lead=limits.mention_lead,
                )
            frontier = []
            for c in candidates:
                if c.chunk.id in visited:
                    stats.visited += 1
                    continue
                if limits.max_reached and reached >= limits.max_reached:
                    stats.over_budget += 1
                    continue
                if per_document[c.chunk.document] >= limits.per_document_limit:
                    stats.over_document_limit += 1
                    continue
                below = c.relevance is not None and c.relevance < limits.min_relevance
                if below and reached >= limits.min_keep:
                    stats.below_relevance += 1
                    continue
                t = c.target
                companion = companions.get(t.source.id)
                if companion is not None and companion.id == c.chunk.id:  # it cites its own section
                    stats.visited += 1
                    continue
                if companion is not None and companion.id in visited:
                    if companion.id not in result_companions:  # reached itself at this depth: its
                        stats.visited += 1  # references are followed from there, one hop later
                        continue
                    companion = None
                cost = tokens_of(c.chunk) + (tokens_of(companion.chunk) if companion is not None else 0)
                if tokens + cost > limits.token_budget:
                    stats.over_budget += 1
                    continue
                if companion is not None:  # the seed section's chunk the reference stands in, first
                    visited.add(companion.id)
                    result.append(companion)
                    result_companions.add(companion.id)
                    stats.companions += 1
                via = Via(t.source.id, t.reference.mention, t.reference, t.resolved)
                passage = TracedPassage(c.chunk, depth, c.relevance, via)
                visited.add(c.chunk.id)
                weights[c.chunk.id] = weights.get(t.source.id, 1.0)
                result.append(passage)
                frontier.append(passage)
                per_document[c.chunk.document] += 1
                tokens += cost
                reached += 1
        return ExpansionResult(result, list(unresolved.values()), tokens, limits.token_budget, stats)

    def _companions(
        self, seeds: Sequence[TracedPassage], relevance: Relevance | None, taken: set[str]
    ) -> dict[str, TracedPassage]:
        """The seed sections' other chunks scanned at the first hop (see :mod:`seed_sections`)."""
        per_section = self.limits.seed_section_chunks
        if per_section <= 0:
            return {}
        scores = None
        if relevance is not None:
            siblings = [c for c in section_siblings(seeds, self.passages) if c.id not in taken]
            scores = relevance(siblings) if siblings else {}
        found = seed_companions(seeds, self.passages, scores, taken, per_section)
        return {p.id: p for p in found}


def _by_relevance(p: TracedPassage) -> float:
    return -(p.relevance if p.relevance is not None else -1.0)
