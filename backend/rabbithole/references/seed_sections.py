"""The rest of a seed's section, scanned for references.

A search hit is one chunk of a section; a long section (EndlSiAnfV § 17, AtG § 7) has several, and the
reference a question needs may stand in a chunk the search did not return ("nach § 104 Absatz 1 Satz 1 und
2 der Strahlenschutzverordnung" in Absatz 3 of EndlSiAnfV § 17, whose opening chunk was the hit). So the
first hop also scans the seed section's other chunks, the ``seed_section_chunks`` most relevant to the query
per section ("companions"). A companion enters the result only when a reference found in it is followed:
right before the first passage reached through it, so every ``via`` points at a passage of the result and
the companion's tokens count towards the budget like any other passage.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Protocol

from rabbithole.core.models import Chunk
from rabbithole.references.provenance import TracedPassage


class SectionPassages(Protocol):
    def section_passages(self, document: str, section: str) -> Sequence[Chunk]: ...


def seed_companions(
    seeds: Sequence[TracedPassage],
    passages: SectionPassages,
    relevance: Mapping[str, float] | None,
    taken: Collection[str],
    per_section: int,
) -> list[TracedPassage]:
    """Up to ``per_section`` chunks per seed section that are not in ``taken``, most relevant first
    (``relevance``: chunk id -> similarity to the query; without it, in document order), as depth-0
    passages without ``via``. Sections are taken in the order of their best seed."""
    if per_section <= 0:
        return []
    out: list[TracedPassage] = []
    seen_sections: set[tuple[str, str]] = set()
    offered: set[str] = set(taken)
    for seed in seeds:
        section = seed.chunk.section
        key = (seed.chunk.document, section or "")
        if section is None or key in seen_sections:
            continue
        seen_sections.add(key)
        siblings = [c for c in passages.section_passages(seed.chunk.document, section) if c.id not in offered]
        if relevance is not None:
            siblings.sort(key=lambda c: -relevance.get(c.id, -1.0))
        for chunk in siblings[:per_section]:
            offered.add(chunk.id)
            score = relevance.get(chunk.id) if relevance is not None else None
            out.append(TracedPassage(chunk, 0, score))
    return out


def section_siblings(seeds: Sequence[TracedPassage], passages: SectionPassages) -> list[Chunk]:
    """All chunks of the seeds' sections (to score their relevance in one call)."""
    out: dict[str, Chunk] = {}
    for seed in seeds:
        if seed.chunk.section is not None:
            for chunk in passages.section_passages(seed.chunk.document, seed.chunk.section):
                out.setdefault(chunk.id, chunk)
    return list(out.values())
