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
  towards the budget.
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
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from rabbithole.core.config import ReferenceSettings
from rabbithole.core.models import Chunk
from rabbithole.references.absatz import absatz_at, absatz_chunks
from rabbithole.references.models import Reference, RefType
from rabbithole.references.provenance import (
    ExpansionResult,
    ExpansionStats,
    TracedPassage,
    UnresolvedMention,
    Via,
)
from rabbithole.references.resolver import Citing, ResolvedReference, Unresolved
from rabbithole.references.seed_sections import section_siblings, seed_companions

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


@dataclass(frozen=True, slots=True)
class ExpansionLimits:
    max_depth: int = 2
    token_budget: int = 12_000
    per_document_limit: int = 25
    min_relevance: float = 0.15
    min_keep: int = 5
    section_chunks: int = 4  # chunks of one section taken per reference when no Absatz singles them out
    seed_section_chunks: int = 0  # other chunks of a seed's section scanned for references (seed_sections)

    @classmethod
    def from_settings(cls, settings: ReferenceSettings, **overrides: int | float) -> ExpansionLimits:
        values: dict[str, int | float] = {
            "max_depth": settings.max_depth,
            "token_budget": settings.token_budget,
            "per_document_limit": settings.per_document_limit,
            "min_relevance": settings.min_relevance,
            "min_keep": settings.min_keep,
            "section_chunks": settings.section_chunks,
            "seed_section_chunks": settings.seed_section_chunks,
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


@dataclass(slots=True)
class _Target:
    resolved: ResolvedReference
    reference: Reference
    source: TracedPassage
    absaetze: set[str] | None = field(default_factory=set)  # None: the whole section
    section: str | None = None  # the label followed (one of the resolved reference's labels)
    whole_document: bool = False  # a reference to a whole document: a search scoped to it


@dataclass(slots=True)
class _Candidate:
    chunk: Chunk
    target: _Target
    limited: bool  # one of a whole section's chunks (not singled out by an Absatz)
    relevance: float | None = None


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

    def expand(
        self,
        seeds: Sequence[TracedPassage],
        relevance: Relevance | None = None,
        *,
        gate: Gate = follow_all,
        batch_gate: BatchGate | None = None,
        max_depth: int | None = None,
        search_document: SearchDocument | None = None,
    ) -> ExpansionResult:
        """``search_document``: how references to a whole document are followed (the query's best chunks
        of that document); without it they are counted (``stats.document_level``), not followed."""
        limits = self.limits
        depth_limit = limits.max_depth if max_depth is None else max_depth
        stats = ExpansionStats()
        result: list[TracedPassage] = []
        visited: set[str] = set()
        for seed in seeds:
            if seed.id not in visited:
                visited.add(seed.id)
                result.append(seed)
        tokens = sum(tokens_of(p.chunk) for p in result)
        unresolved: dict[tuple[str, int, int, Unresolved], UnresolvedMention] = {}
        per_document: Counter[str] = Counter()
        reached = 0
        frontier = sorted(result, key=_by_relevance)
        companions = self._companions(result, relevance, visited) if depth_limit >= 1 else {}
        result_companions: set[str] = set()  # companions in the result as such (depth 0)
        for depth in range(1, depth_limit + 1):
            if not frontier:
                break
            scan = [*frontier, *companions.values()] if depth == 1 else frontier
            targets = self._targets(scan, depth, gate, batch_gate, stats, unresolved, search_document)
            candidates = self._candidates(targets, visited, stats, search_document)
            if relevance is not None and candidates:
                scores = relevance([c.chunk for c in candidates])
                for c in candidates:
                    c.relevance = scores.get(c.chunk.id)
            candidates = self._trim_sections(candidates)
            frontier = []
            for c in candidates:
                if c.chunk.id in visited:
                    stats.visited += 1
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

    def _targets(
        self,
        frontier: Sequence[TracedPassage],
        depth: int,
        gate: Gate,
        batch_gate: BatchGate | None,
        stats: ExpansionStats,
        unresolved: dict[tuple[str, int, int, Unresolved], UnresolvedMention],
        search_document: SearchDocument | None = None,
    ) -> list[_Target]:
        """The sections the frontier's references point to, one entry per (document, section), in order
        of the frontier (most relevant source first) and of the text. A reference to a whole other
        document is a target (document, "") when ``search_document`` is given."""
        found: list[tuple[Reference, ResolvedReference, TracedPassage, str]] = []
        requests: dict[tuple[str, int, str, str], GateRequest] = {}
        for source in frontier:
            stats.scanned += 1
            chunk = source.chunk
            citing = Citing(chunk.document, chunk.section)
            for ref in self.detect(chunk.text):
                stats.references += 1
                resolved = self.resolve(ref, citing)
                if resolved.reason is not None:
                    key = (chunk.id, ref.start, ref.item_start, resolved.reason)
                    if key not in unresolved:
                        unresolved[key] = UnresolvedMention.of(chunk, resolved)
                    continue
                if resolved.document is None:
                    continue
                labels = resolved.labels
                if not labels:
                    stats.document_level += 1
                    if search_document is None or resolved.document == chunk.document:
                        continue
                    labels = ("",)  # the whole document: followed by a search scoped to it
                found.extend((ref, resolved, source, label) for label in labels)
                request_key = (chunk.id, ref.start, resolved.document, resolved.section or "")
                requests.setdefault(request_key, GateRequest(ref, resolved, source))
        followed = self._decide(list(requests.values()), depth, gate, batch_gate)
        stats.followed += len(followed)
        stats.gated += len(requests) - len(followed)
        targets: dict[tuple[str, str], _Target] = {}
        for ref, resolved, source, label in found:
            assert resolved.document is not None
            if (source.chunk.id, ref.start, resolved.document, resolved.section or "") not in followed:
                continue
            doc_section = (resolved.document, label)
            target = targets.get(doc_section)
            if target is None:
                target = targets[doc_section] = _Target(
                    resolved, ref, source, section=label or None, whole_document=not label
                )
            if target.whole_document or len(resolved.labels) > 1:
                target.absaetze = None
            if target.absaetze is not None:
                absatz = self._absatz_of(ref, resolved, source.chunk)
                if absatz is None or ref.type is RefType.ANNEX:
                    target.absaetze = None
                else:
                    target.absaetze.add(absatz)
        return list(targets.values())

    @staticmethod
    def _decide(
        requests: list[GateRequest], depth: int, gate: Gate, batch_gate: BatchGate | None
    ) -> set[tuple[str, int, str, str]]:
        """Keys (source id, mention start, document, section) of the requests to follow."""
        if batch_gate is not None and requests:
            chosen = {i for i in batch_gate(depth, requests) if 0 <= i < len(requests)}
        else:
            chosen = {i for i, r in enumerate(requests) if gate(r.reference, r.source)}
        out: set[tuple[str, int, str, str]] = set()
        for i in chosen:
            r = requests[i]
            assert r.target.document is not None
            out.add((r.source.id, r.reference.start, r.target.document, r.target.section or ""))
        return out

    def _absatz_of(self, ref: Reference, resolved: ResolvedReference, citing: Chunk) -> str | None:
        """The Absatz a reference points into: its own, or for a bare "Satz 2"/"Nummer 3" (relative to the
        citing Absatz) the Absatz it stands in."""
        if ref.absatz is not None or ref.relative_to not in ("absatz", "nummer") or ref.section is not None:
            return ref.absatz
        if resolved.document != citing.document or resolved.section != citing.section:
            return None
        assert resolved.section is not None
        siblings = self.passages.section_passages(citing.document, resolved.section)
        return absatz_at(siblings, citing, ref.start)

    def _candidates(
        self,
        targets: Sequence[_Target],
        visited: set[str],
        stats: ExpansionStats,
        search_document: SearchDocument | None = None,
    ) -> list[_Candidate]:
        """New chunks of the targets' sections: those holding the cited Absätze, else all (trimmed to
        ``section_chunks`` per target once their relevance is known); for a whole document, the best
        chunks of a search scoped to it."""
        out: list[_Candidate] = []
        offered: set[str] = set()
        for target in targets:
            document, section = target.resolved.document, target.section
            assert document is not None
            if target.whole_document:
                if search_document is None:
                    continue
                chunks = list(search_document(document))
            else:
                assert section is not None
                chunks = list(self.passages.section_passages(document, section))
            chosen = absatz_chunks(chunks, target.absaetze) if target.absaetze else []
            if chosen and chunks[0] not in chosen:
                chosen.insert(0, chunks[0])  # the section's opening: its heading and first Absatz
            limited = not chosen
            for chunk in chosen or chunks:
                if chunk.id in visited:
                    stats.visited += 1
                elif chunk.id not in offered:
                    offered.add(chunk.id)
                    out.append(_Candidate(chunk, target, limited))
        stats.candidates += len(out)
        return out

    def _trim_sections(self, candidates: list[_Candidate]) -> list[_Candidate]:
        """Candidates ranked by relevance, at most ``section_chunks`` per target taken as a whole section."""
        candidates.sort(key=lambda c: -(c.relevance if c.relevance is not None else -1.0))
        per_target: Counter[int] = Counter()
        out = []
        for c in candidates:
            if c.limited:
                if per_target[id(c.target)] >= self.limits.section_chunks:
                    continue
                per_target[id(c.target)] += 1
            out.append(c)
        return out


def _by_relevance(p: TracedPassage) -> float:
    return -(p.relevance if p.relevance is not None else -1.0)
