"""One hop's candidate passages: the chunks of the targets' sections, ranked and trimmed.

For a target naming Absätze, the chunks holding them and the section's opening chunk (heading, first
Absatz); for a whole section, all its chunks, trimmed to the ``section_chunks`` most relevant once their
relevance is known (:func:`trim_sections`); for a whole document, the best chunks of a search scoped to it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from rabbithole.core.models import Chunk
from rabbithole.references.absatz import absatz_chunks
from rabbithole.references.expansion_types import PassageSource, SearchDocument
from rabbithole.references.provenance import ExpansionStats
from rabbithole.references.targets import Target

__all__ = ["Candidate", "section_candidates", "trim_sections"]


@dataclass(slots=True)
class Candidate:
    chunk: Chunk
    target: Target
    limited: bool  # one of a whole section's chunks (not singled out by an Absatz)
    relevance: float | None = None


def section_candidates(
    targets: Sequence[Target],
    passages: PassageSource,
    visited: set[str],
    stats: ExpansionStats,
    search_document: SearchDocument | None = None,
    present: set[tuple[str, str]] | None = None,
) -> list[Candidate]:
    """New chunks of the targets' sections: those holding the cited Absätze, else all (trimmed to
    ``section_chunks`` per target once their relevance is known); for a whole document, the best
    chunks of a search scoped to it. With ``present`` (the (document, section) pairs already in the result),
    a target section already there adds only the chunks of the Absätze it names, nothing without them,
    and a scoped search only chunks of sections not there yet."""
    out: list[Candidate] = []
    offered: set[str] = set()
    for target in targets:
        document, section = target.resolved.document, target.section
        assert document is not None
        if target.whole_document:
            if search_document is None:
                continue
            chunks = list(search_document(document))
            if present:
                chunks = [c for c in chunks if (c.document, c.section or "") not in present]
        else:
            assert section is not None
            chunks = list(passages.section_passages(document, section))
        chosen = absatz_chunks(chunks, target.absaetze) if target.absaetze else []
        if present and not target.whole_document and (document, section) in present:
            stats.present += sum(1 for c in chunks if c.id not in visited and c not in chosen)
            chunks = []  # the section is there: only the cited Absätze are new
        elif chosen and chunks[0] not in chosen:
            chosen.insert(0, chunks[0])  # the section's opening: its heading and first Absatz
        limited = not chosen
        for chunk in chosen or chunks:
            if chunk.id in visited:
                stats.visited += 1
            elif chunk.id not in offered:
                offered.add(chunk.id)
                out.append(Candidate(chunk, target, limited))
    stats.candidates += len(out)
    return out


def trim_sections(candidates: list[Candidate], section_chunks: int) -> list[Candidate]:
    """Candidates ranked by relevance, at most ``section_chunks`` per target taken as a whole section."""
    candidates.sort(key=lambda c: -(c.relevance if c.relevance is not None else -1.0))
    per_target: Counter[int] = Counter()
    out = []
    for c in candidates:
        if c.limited:
            if per_target[id(c.target)] >= section_chunks:
                continue
            per_target[id(c.target)] += 1
        out.append(c)
    return out
