"""Where `trace` spends its passages: seeds of distinct sections, expansions weighted by their seed's rank.

Seeds: a later search hit of a section already among the seeds adds no section to the context, so
:func:`distinct_sections` keeps the first hit of each section. :func:`within_floor` keeps the hits whose
fused score is at least a share (``seed_floor``) of the first hit's: a question whose first hits stand out
gets few seeds and leaves its passages to what they cite; one whose hits score alike gets more of them
(searched deeper, ``seeds`` hits).

Expansions: a reference found in the best search hit is more likely to lead to what the question needs
than one found in the fifteenth: the seed's fused search score, relative to the first hit's, weights the
relevance of every passage reached from it (``priority = relevance * weight ** source_weight``), and a
passage reached at a later hop inherits the weight of its seed (the expander records it as it adds the
passage). With ``source_weight`` 0 the order is relevance alone; ``max_reached`` caps how many passages
are reached at all (:class:`~rabbithole.references.expansion_types.ExpansionLimits`). :func:`spread` then
puts one chunk of each new section ahead of second chunks of a section (``new_sections_first``) and lets
one mention, a citation list, lead with its first ``mention_lead`` sections only: a cap is spent on
sections and on many mentions rather than on one long Absatz or one long list.

    seeds = within_floor(distinct_sections(hits), 0.45)  # first hit per section, score >= 0.45 x the best
    weights = seed_weights(seeds)                      # {seed id: its score / the best seed's score}
    ordered = by_priority(candidates, weights, 1.0)    # best first
    ordered = spread(ordered, present, sections_first=True, mention_lead=2)
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Collection, Mapping, Sequence

from rabbithole.core.models import SearchHit
from rabbithole.references.candidates import Candidate
from rabbithole.references.provenance import TracedPassage

__all__ = ["by_priority", "distinct_sections", "priority", "seed_weights", "spread", "within_floor"]


def distinct_sections(hits: Sequence[SearchHit]) -> list[SearchHit]:
    """The hits in order, without those whose (document, section) an earlier hit already has (hits
    without a section label are all kept)."""
    seen: set[tuple[str, str]] = set()
    out: list[SearchHit] = []
    for hit in hits:
        section = hit.chunk.section
        if section is not None:
            key = (hit.chunk.document, section)
            if key in seen:
                continue
            seen.add(key)
        out.append(hit)
    return out


def within_floor(hits: Sequence[SearchHit], floor: float) -> list[SearchHit]:
    """The hits, in order, whose fused score is at least ``floor`` times the best hit's; the first hit is
    always kept, and all are where ``floor`` is 0 or the best score is not positive."""
    top = max((h.score for h in hits), default=0.0)
    if floor <= 0 or top <= 0:
        return list(hits)
    return [h for i, h in enumerate(hits) if i == 0 or h.score >= floor * top]


def seed_weights(seeds: Sequence[TracedPassage]) -> dict[str, float]:
    """Each seed's fused search score relative to the best seed's (1.0 for the best; 1.0 for all where
    the scores are unknown or not positive)."""
    scores = [s.search_score for s in seeds if s.search_score is not None]
    top = max(scores, default=0.0)
    if top <= 0:
        return {s.id: 1.0 for s in seeds}
    return {
        s.id: max(0.0, min(1.0, s.search_score / top)) if s.search_score is not None else 1.0 for s in seeds
    }


def priority(candidate: Candidate, weights: Mapping[str, float], source_weight: float) -> float:
    """The candidate's relevance (0 when unknown) times its source's weight to the power ``source_weight``."""
    relevance = candidate.relevance if candidate.relevance is not None else 0.0
    if source_weight <= 0:
        return relevance
    return relevance * math.pow(weights.get(candidate.target.source.id, 1.0), source_weight)


def by_priority(
    candidates: Sequence[Candidate], weights: Mapping[str, float], source_weight: float
) -> list[Candidate]:
    """The candidates best first by :func:`priority` (stable: ties keep their order)."""
    return sorted(candidates, key=lambda c: -priority(c, weights, source_weight))


def spread(
    candidates: Sequence[Candidate],
    present: Collection[tuple[str, str]],
    *,
    sections_first: bool,
    mention_lead: int,
) -> list[Candidate]:
    """The candidates of one hop in three tiers, each in the given order: the lead (with
    ``sections_first``, one chunk per section not in ``present`` nor offered by an earlier candidate; of
    one mention, a citation list like "§§ 17, 19, 22, 26, 50, 52, 56 oder 59", its first ``mention_lead``
    sections, 0: all), then the rest of such lists, then (``sections_first``) the candidates of sections
    already there or already offered: a second chunk of a section, the cited Absatz of a section in the
    result. With a cap on reached passages (``max_reached``) the cap is spent on new sections and on many
    mentions instead of one long list."""
    seen: set[tuple[str, str]] = set(present) if sections_first else set()
    lead: list[Candidate] = []
    rest: list[Candidate] = []
    again: list[Candidate] = []
    per_mention: Counter[tuple[str, int]] = Counter()
    for c in candidates:
        section = (c.chunk.document, c.chunk.section or "")
        if sections_first and section in seen:
            again.append(c)
            continue
        seen.add(section)
        mention = (c.target.source.id, c.target.reference.start)
        per_mention[mention] += 1
        (lead if mention_lead <= 0 or per_mention[mention] <= mention_lead else rest).append(c)
    return lead + rest + again
