"""Vectors of texts embedded before, kept for a later batch that needs them again.

A run embeds some texts early (a report section's sentences and the quotes they cite, while the section's
grade waits for the model) that a later step embeds again in one batch (the support check at compile); the
later batch then embeds only the texts it has not seen. A cache, not state: it lives as long as the run's
context, and an empty one only means the texts are embedded then.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

import numpy as np

from rabbithole.embeddings.base import Embedder, FloatArray


class TextVectors:
    """``embed_documents`` of ``embedder``, remembering every text's vector (thread-safe)."""

    def __init__(self, embedder: Embedder) -> None:
        self._embedder = embedder
        self._vectors: dict[str, FloatArray] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        with self._lock:
            return len(self._vectors)

    def embed(self, texts: Sequence[str]) -> FloatArray:
        """Shape (len(texts), dim) like ``Embedder.embed_documents``; only unseen texts are embedded."""
        with self._lock:
            missing = [t for t in dict.fromkeys(texts) if t not in self._vectors]
        if missing:
            fresh = self._embedder.embed_documents(missing)
            with self._lock:
                self._vectors.update(zip(missing, fresh, strict=True))
        if not texts:
            return np.zeros((0, self._embedder.dim), dtype=np.float32)
        with self._lock:
            return np.stack([self._vectors[t] for t in texts]).astype(np.float32, copy=False)
