"""Relevance of page sentences to the questions: the embedder's cosine similarity, mixed with the share of
a question's words (stemmed in German and English, stopwords dropped: the BM25 tokenizer) that the sentence
contains. No model call; the best question per sentence is kept."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from rabbithole.embeddings.base import Embedder
from rabbithole.retrieval.tokenizer import Language, tokenize_query

_LANGUAGES: tuple[Language, ...] = ("de", "en")


@dataclass(frozen=True, slots=True)
class Relevance:
    score: float  # 0..1
    question: int  # index of the question it answers best


def terms(text: str) -> frozenset[str]:
    return frozenset(tokenize_query(text, _LANGUAGES))


class RelevanceScorer:
    """Scores texts against fixed questions (embedded once)."""

    def __init__(self, embedder: Embedder, questions: Sequence[str], *, lexical_weight: float) -> None:
        if not questions:
            raise ValueError("relevance needs at least one question")
        self.embedder = embedder
        self.lexical_weight = lexical_weight
        self.question_vectors = np.stack([embedder.embed_query(q) for q in questions])
        self.question_terms = [terms(q) for q in questions]

    def score(self, texts: Sequence[str]) -> list[Relevance]:
        """One ``Relevance`` per text, in order."""
        if not texts:
            return []
        similarity = np.clip(self.embedder.embed_documents(texts) @ self.question_vectors.T, 0.0, 1.0)
        lexical = np.array(
            [[_share(wanted, found) for wanted in self.question_terms] for found in map(terms, texts)],
            dtype=np.float32,
        )
        combined = (1.0 - self.lexical_weight) * similarity + self.lexical_weight * lexical
        best = combined.argmax(axis=1)
        return [Relevance(float(combined[i, q]), int(q)) for i, q in enumerate(best)]


def _share(wanted: frozenset[str], found: frozenset[str]) -> float:
    return len(wanted & found) / len(wanted) if wanted else 0.0
