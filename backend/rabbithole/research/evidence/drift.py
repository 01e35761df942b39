"""Validation against drift: evidence too far from the query anchor is dropped before synthesis.

The caller computes each evidence's similarity to the query anchor; ``validate_drift`` compares it with the
threshold of the evidence's tier (a stricter bar for weaker tiers, typically), keeps what passes and lists
what it drops with the reason, so dropped evidence is really absent from synthesis and visible in the
result. Evidence without a score, or of a tier without a threshold, is kept: it cannot be judged. Evidence
from a provision the question or a task names (``Evidence.pinned``) is kept too: the question asked for it,
however far its wording is from the anchor's ("§ 7 des Atomgesetzes" in a question about licences).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from rabbithole.embeddings.base import Embedder
from rabbithole.research.models import Dropped, Evidence, Tier

__all__ = ["DriftResult", "anchor_similarities", "validate_drift"]


def anchor_similarities(embedder: Embedder, anchor: str, evidence: Sequence[Evidence]) -> dict[str, float]:
    """Each evidence's similarity (heading and quote) to the anchor text, by id (blocking: the embedder)."""
    if not evidence:
        return {}
    query = np.asarray(embedder.embed_query(anchor))
    vectors = np.asarray(embedder.embed_documents([f"{e.heading}\n{e.quote}" for e in evidence]))
    return {e.id: float(s) for e, s in zip(evidence, vectors @ query, strict=True)}


@dataclass(slots=True)
class DriftResult:
    kept: list[Evidence] = field(default_factory=list)
    dropped: list[Dropped] = field(default_factory=list)
    warning: str | None = None  # set when more than ``warn_share`` of the evidence was dropped


def validate_drift(
    evidence: Sequence[Evidence],
    anchor_scores: Mapping[str, float],
    thresholds: Mapping[Tier, float],
    *,
    warn_share: float = 0.3,
) -> DriftResult:
    """Evidence whose anchor similarity is below its tier's threshold dropped (never pinned evidence), the
    rest kept in order."""
    result = DriftResult()
    for item in evidence:
        score = anchor_scores.get(item.id)
        threshold = thresholds.get(item.tier)
        if item.pinned or score is None or threshold is None or score >= threshold:
            result.kept.append(item)
            continue
        result.dropped.append(
            Dropped(
                evidence_id=item.id,
                document=item.document,
                page=item.page,
                section=item.section,
                tier=item.tier,
                score=score,
                threshold=threshold,
                reason=(
                    f"similarity to the question {score:.3f} is below the {item.tier} threshold "
                    f"{threshold:.3f}"
                ),
            )
        )
    if evidence and len(result.dropped) / len(evidence) > warn_share:
        result.warning = (
            f"Validation dropped {len(result.dropped)} of {len(evidence)} findings "
            f"({len(result.dropped) / len(evidence):.0%}) as too far from the question; "
            "the report rests on the rest."
        )
    return result
