"""One hop's targets: the sections the references of the scanned passages point to, after the gate.

:meth:`TargetFinder.find` detects the references of each scanned passage, resolves them from where they
stand (document and section), records the unresolved ones, puts the resolved ones to the gate (per
reference, or all of a depth at once through a batch gate) and groups those followed by target section:
one :class:`Target` per (document, section label), with the Absätze the references name (``None``: the
whole section). A reference to a whole other document is a target (document, no section) when it can be
followed by a search scoped to that document.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from rabbithole.core.models import Chunk
from rabbithole.references.absatz import absatz_at
from rabbithole.references.expansion_types import (
    BatchGate,
    Detect,
    Gate,
    GateRequest,
    PassageSource,
    Resolve,
)
from rabbithole.references.models import Reference, RefType
from rabbithole.references.provenance import ExpansionStats, TracedPassage, UnresolvedMention
from rabbithole.references.resolver import Citing, ResolvedReference, Unresolved

__all__ = ["GateKey", "Target", "TargetFinder", "UnresolvedByMention"]

#: (source passage id, mention start, target document, target section or "")
GateKey = tuple[str, int, str, str]
#: unresolved mentions of one expansion, keyed by (passage id, mention start, item start, reason)
UnresolvedByMention = dict[tuple[str, int, int, Unresolved], UnresolvedMention]


@dataclass(slots=True)
class Target:
    resolved: ResolvedReference
    reference: Reference
    source: TracedPassage
    absaetze: set[str] | None = field(default_factory=set)  # None: the whole section
    section: str | None = None  # the label followed (one of the resolved reference's labels)
    whole_document: bool = False  # a reference to a whole document: a search scoped to it


class TargetFinder:
    """Finds the targets of one hop (stateless across calls; the caller keeps stats and unresolved)."""

    def __init__(self, detect: Detect, resolve: Resolve, passages: PassageSource) -> None:
        self.detect = detect
        self.resolve = resolve
        self.passages = passages

    def find(
        self,
        frontier: Sequence[TracedPassage],
        depth: int,
        gate: Gate,
        batch_gate: BatchGate | None,
        stats: ExpansionStats,
        unresolved: UnresolvedByMention,
        follow_documents: bool = False,
    ) -> list[Target]:
        """The sections the frontier's references point to, one entry per (document, section), in order
        of the frontier (most relevant source first) and of the text. A reference to a whole other
        document is a target (document, "") when ``follow_documents``."""
        found: list[tuple[Reference, ResolvedReference, TracedPassage, str]] = []
        requests: dict[GateKey, GateRequest] = {}
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
                    if not follow_documents or resolved.document == chunk.document:
                        continue
                    labels = ("",)  # the whole document: followed by a search scoped to it
                found.extend((ref, resolved, source, label) for label in labels)
                request_key = (chunk.id, ref.start, resolved.document, resolved.section or "")
                requests.setdefault(request_key, GateRequest(ref, resolved, source))
        followed = decide(list(requests.values()), depth, gate, batch_gate)
        stats.followed += len(followed)
        stats.gated += len(requests) - len(followed)
        targets: dict[tuple[str, str], Target] = {}
        for ref, resolved, source, label in found:
            assert resolved.document is not None
            if (source.chunk.id, ref.start, resolved.document, resolved.section or "") not in followed:
                continue
            doc_section = (resolved.document, label)
            target = targets.get(doc_section)
            if target is None:
                target = targets[doc_section] = Target(
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


def decide(requests: list[GateRequest], depth: int, gate: Gate, batch_gate: BatchGate | None) -> set[GateKey]:
    """Keys (source id, mention start, document, section) of the requests to follow."""
    if batch_gate is not None and requests:
        chosen = {i for i in batch_gate(depth, requests) if 0 <= i < len(requests)}
    else:
        chosen = {i for i, r in enumerate(requests) if gate(r.reference, r.source)}
    out: set[GateKey] = set()
    for i in chosen:
        r = requests[i]
        assert r.target.document is not None
        out.add((r.source.id, r.reference.start, r.target.document, r.target.section or ""))
    return out
