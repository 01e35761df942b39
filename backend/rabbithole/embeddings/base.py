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

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        """The number of tokens of each text, as ``TokenCounter.count`` would give it, without embedding:
        a process that embeds in a child need not build the tokenizer itself."""
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


def balanced_batches(items: Sequence[T], size: int, workers: int) -> list[Sequence[T]]:
    """``items`` in batches of at most ``size`` whose number is a multiple of ``workers`` (as far as there
    are items) and whose sizes differ by one at most: workers that take them in turn finish together,
    instead of one encoding a call's last, short batch (or a small file's only one) while the others wait."""
    count = -(-len(items) // max(1, size))
    if count % max(1, workers):
        count += workers - count % workers
    count = min(count, len(items))
    if count <= 1:
        return [items] if items else []
    share, extra = divmod(len(items), count)
    batches: list[Sequence[T]] = []
    start = 0
    for index in range(count):
        end = start + share + (index < extra)
        batches.append(items[start:end])
        start = end
    return batches
