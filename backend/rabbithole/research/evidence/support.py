"""How well each cited claim of the report is supported by the evidence it cites, without an extra model.

Two checks. A contradiction (``consistency``): a number, date, amount, percentage or provision of the
claim that none of its quotes (nor their sections) states; deterministic, and flagged whatever the
scores say. A weak citation: the share of the claim's content words found in the evidence
(``token_overlap``; German-aware folding from the BM25 tokenizer, stopwords removed, a 6-character prefix
stem so inflected forms match) and the embedder's cosine similarity of claim and evidence, combined; a
claim whose combined score is below the threshold is flagged. All texts of one check are embedded in a
single batch call. The threshold is calibrated on a labelled set of claim/quote pairs
(``benchmarks/data/support_dev.yaml``, ``docs/benchmarks.md``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from rabbithole.embeddings.base import FloatArray
from rabbithole.research.evidence.consistency import CitedText, missing_from
from rabbithole.research.models import Support
from rabbithole.retrieval.tokenizer import STOPWORDS, raw_tokens

__all__ = ["STEM_CHARS", "CitedText", "SupportChecker", "content_tokens", "token_overlap"]

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


Cited = str | CitedText


class SupportChecker:
    """Scores claims against the evidence they cite: ``overlap_weight`` * best token overlap +
    (1 - ``overlap_weight``) * best cosine similarity, clamped to [0, 1]; weak below ``threshold``.
    With ``contradictions`` (the default) a claim whose numbers or provisions its quotes do not state is
    flagged as a contradiction too."""

    def __init__(
        self,
        embed: Callable[[Sequence[str]], FloatArray],
        *,
        threshold: float = 0.15,
        overlap_weight: float = 0.5,
        contradictions: bool = True,
    ) -> None:
        if not 0.0 <= overlap_weight <= 1.0:
            raise ValueError("overlap_weight must lie in [0, 1]")
        self._embed = embed
        self.threshold = threshold
        self.overlap_weight = overlap_weight
        self.contradictions = contradictions

    def check(self, items: Sequence[tuple[str, Sequence[Cited]]]) -> list[Support]:
        """One ``Support`` per (claim, cited evidence) item, in order; the evidence as quote texts or as
        ``CitedText`` (a quote with its document and section). The contradiction check reads the claim's
        numbers against any quote, its provisions only against quotes given with their section (which §
        a bare quote is from is unknown). A claim citing nothing scores 0 and is flagged weak."""
        quoted = [(claim, [_text(c) for c in evidence]) for claim, evidence in items]
        texts = list(dict.fromkeys(t for claim, evidence in quoted for t in (claim, *evidence)))
        if not texts:
            return [self._support(0.0, 0.0) for _ in items]
        vectors = np.asarray(self._embed(texts), dtype=np.float32)
        if vectors.shape[0] != len(texts):
            raise ValueError(f"embed returned {vectors.shape[0]} vectors for {len(texts)} texts")
        row = {text: i for i, text in enumerate(texts)}
        results: list[Support] = []
        for (claim, evidence), (_, cited) in zip(quoted, items, strict=True):
            if not evidence:
                results.append(self._support(0.0, 0.0))
                continue
            claim_vector = vectors[row[claim]]
            similarity = max(float(np.dot(claim_vector, vectors[row[text]])) for text in evidence)
            overlap = max(token_overlap(claim, text) for text in evidence)
            missing = [t.text for t in missing_from(claim, cited)] if self.contradictions else []
            results.append(self._support(overlap, similarity, list(dict.fromkeys(missing))))
        return results

    def _support(self, overlap: float, similarity: float, missing: list[str] | None = None) -> Support:
        similarity = min(1.0, max(-1.0, similarity))
        raw = self.overlap_weight * overlap + (1.0 - self.overlap_weight) * similarity
        score = min(1.0, max(0.0, raw))
        contradiction = bool(missing)
        weak = score < self.threshold
        return Support(
            score=score,
            overlap=overlap,
            similarity=similarity,
            flagged=contradiction or weak,
            contradiction=contradiction,
            missing=missing or [],
            reason="contradiction" if contradiction else ("weak" if weak else None),
        )


def _text(cited: Cited) -> str:
    return cited if isinstance(cited, str) else cited.text
