"""How well each cited claim of the report is supported by the evidence it cites, without an extra model.

Two signals, combined: the share of the claim's content words found in the evidence (``token_overlap``;
German-aware folding from the BM25 tokenizer, stopwords removed, a 6-character prefix stem so inflected
forms match) and the embedder's cosine similarity of claim and evidence. All texts of one check are
embedded in a single batch call. A claim whose combined score is below the threshold is flagged.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from rabbithole.embeddings.base import FloatArray
from rabbithole.research.models import Support
from rabbithole.retrieval.tokenizer import STOPWORDS, raw_tokens

__all__ = ["STEM_CHARS", "SupportChecker", "content_tokens", "token_overlap"]

STEM_CHARS = 6
MIN_TOKEN_CHARS = 3
# Legal abbreviations spelled out, so "Abs." in a claim matches "Absatz" in the evidence.
_SPELLED_OUT = {
    "abs": "absatz",
    "nr": "nummer",
    "nrn": "nummer",
    "art": "artikel",
    "ziff": "ziffer",
    "buchst": "buchstabe",
    "anl": "anlage",
    "kap": "kapitel",
}


def content_tokens(text: str) -> set[str]:
    """Content words of ``text``: case- and umlaut-folded, stopwords removed, words of at least 3
    characters cut to their first 6 (legal abbreviations spelled out first: "Abs." = "Absatz").
    Numbers and § citations ("§80") are kept whole and at any length: a claim's figures are what most
    needs support."""
    tokens: set[str] = set()
    for raw in raw_tokens(text):
        token = _SPELLED_OUT.get(raw, raw)
        if token[0].isdigit() or token.startswith("§"):
            tokens.add(token)
        elif len(token) >= MIN_TOKEN_CHARS and token not in STOPWORDS:
            tokens.add(token[:STEM_CHARS])
    return tokens


def token_overlap(claim: str, evidence: str) -> float:
    """Share of the claim's content tokens that occur in the evidence (0.0 for a claim without any)."""
    wanted = content_tokens(claim)
    if not wanted:
        return 0.0
    return len(wanted & content_tokens(evidence)) / len(wanted)


class SupportChecker:
    """Scores claims against the evidence they cite: ``overlap_weight`` * best token overlap +
    (1 - ``overlap_weight``) * best cosine similarity, clamped to [0, 1]; flagged below ``threshold``."""

    def __init__(
        self,
        embed: Callable[[Sequence[str]], FloatArray],
        *,
        threshold: float = 0.35,
        overlap_weight: float = 0.5,
    ) -> None:
        if not 0.0 <= overlap_weight <= 1.0:
            raise ValueError("overlap_weight must lie in [0, 1]")
        self._embed = embed
        self.threshold = threshold
        self.overlap_weight = overlap_weight

    def check(self, items: Sequence[tuple[str, Sequence[str]]]) -> list[Support]:
        """One ``Support`` per (claim, cited evidence texts) item, in order. A claim citing nothing scores 0
        and is flagged."""
        texts = list(dict.fromkeys(t for claim, evidence in items for t in (claim, *evidence)))
        if not texts:
            return [self._support(0.0, 0.0) for _ in items]
        vectors = np.asarray(self._embed(texts), dtype=np.float32)
        if vectors.shape[0] != len(texts):
            raise ValueError(f"embed returned {vectors.shape[0]} vectors for {len(texts)} texts")
        row = {text: i for i, text in enumerate(texts)}
        results: list[Support] = []
        for claim, evidence in items:
            if not evidence:
                results.append(self._support(0.0, 0.0))
                continue
            claim_vector = vectors[row[claim]]
            similarity = max(float(np.dot(claim_vector, vectors[row[text]])) for text in evidence)
            overlap = max(token_overlap(claim, text) for text in evidence)
            results.append(self._support(overlap, similarity))
        return results

    def _support(self, overlap: float, similarity: float) -> Support:
        similarity = min(1.0, max(-1.0, similarity))
        raw = self.overlap_weight * overlap + (1.0 - self.overlap_weight) * similarity
        score = min(1.0, max(0.0, raw))
        return Support(score=score, overlap=overlap, similarity=similarity, flagged=score < self.threshold)
