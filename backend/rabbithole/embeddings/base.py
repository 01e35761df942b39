"""The one interface every embedding backend implements, plus small shared helpers."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Protocol, TypeVar, runtime_checkable

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float32]

T = TypeVar("T")


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into L2-normalized float32 vectors.

    ``model_id`` is the stable identity stored with every vector collection: vectors of two different
    ``model_id`` values are never compared (see ``EmbeddingModelMismatchError``).
    """

    @property
    def model_id(self) -> str: ...

    @property
    def dim(self) -> int: ...

    def embed_documents(self, texts: Sequence[str]) -> FloatArray:
        """Shape (len(texts), dim), float32, rows L2-normalized; batched internally."""
        ...

    def embed_query(self, text: str) -> FloatArray:
        """Shape (dim,), float32, L2-normalized."""
        ...


@runtime_checkable
class TokenCountingEmbedder(Embedder, Protocol):
    """An embedder whose model tokenizes with a tokenizer the token counter can use too: it tells each
    text's token count from the tokenization it runs anyway (ingestion records every chunk's count)."""

    @property
    def token_model(self) -> str | None:
        """Which tokenizer the counts are in (``TokenCounter.model_key``); None when it cannot count."""
        ...

    def embed_documents_counted(self, texts: Sequence[str]) -> tuple[FloatArray, list[int]]:
        """``embed_documents(texts)``, and the number of tokens of each text (without BOS/EOS), as
        ``TokenCounter.count`` would give it."""
        ...


def l2_normalize(vectors: npt.ArrayLike) -> FloatArray:
    """Rows scaled to unit length (zero rows stay zero), as contiguous float32."""
    array = np.asarray(vectors, dtype=np.float32)
    if array.ndim == 1:
        norm = float(np.linalg.norm(array))
        return np.ascontiguousarray(array / norm if norm > 0 else array, dtype=np.float32)
    norms = np.linalg.norm(array, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return np.ascontiguousarray(array / norms, dtype=np.float32)


def batched(items: Sequence[T], size: int) -> Iterator[Sequence[T]]:
    for start in range(0, len(items), max(1, size)):
        yield items[start : start + size]
