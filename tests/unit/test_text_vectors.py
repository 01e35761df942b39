"""The run's vector cache (``embeddings.memo.TextVectors``): a later batch embeds only what it has not seen,
and gives the same vectors, in its own order, as embedding it whole."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from rabbithole.embeddings.base import FloatArray, l2_normalize
from rabbithole.embeddings.memo import TextVectors


class LetterEmbedder:
    """A deterministic embedder over letter counts that notes every batch it is asked for."""

    model_id = "letters"
    dim = 26

    def __init__(self) -> None:
        self.batches: list[list[str]] = []

    def embed_documents(self, texts: Sequence[str]) -> FloatArray:
        self.batches.append(list(texts))
        rows = [[t.lower().count(chr(ord("a") + i)) + 0.5 for i in range(self.dim)] for t in texts]
        return l2_normalize(np.asarray(rows, dtype=np.float32).reshape(len(texts), self.dim))

    def embed_query(self, text: str) -> FloatArray:
        vector: FloatArray = self.embed_documents([text])[0]
        return vector


def test_a_later_batch_embeds_only_the_new_texts_and_keeps_its_order() -> None:
    embedder = LetterEmbedder()
    vectors = TextVectors(embedder)
    vectors.embed(["alpha", "beta", "alpha"])
    later = vectors.embed(["gamma", "beta", "alpha", "gamma"])
    assert embedder.batches == [["alpha", "beta"], ["gamma"]]
    assert len(vectors) == 3
    whole = LetterEmbedder().embed_documents(["gamma", "beta", "alpha", "gamma"])
    assert later.shape == (4, 26) and later.dtype == np.float32
    assert np.allclose(later, whole)


def test_an_empty_batch_embeds_nothing() -> None:
    embedder = LetterEmbedder()
    assert TextVectors(embedder).embed([]).shape == (0, 26)
    assert embedder.batches == []
