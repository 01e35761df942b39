"""A store that fails once (another process is writing the collection) is read anew, once, for the
similarities of BM25-only hits, as it already was for the vector query."""

from __future__ import annotations

import numpy as np
import pytest

from rabbithole.core.errors import StoreError
from rabbithole.retrieval.vector_cache import VectorCache
from rabbithole.retrieval.vector_side import missing_similarities


class _Handle:
    def __init__(self, vectors: dict[str, np.ndarray], fail: bool) -> None:
        self.dim = 2
        self.vectors, self.fail, self.reads = vectors, fail, 0

    def get_embeddings(self, ids: list[str]) -> dict[str, np.ndarray]:
        self.reads += 1
        if self.fail:
            raise StoreError("vector store: reading vectors of 'laws' failed: Error finding id")
        return {i: self.vectors[i] for i in ids}


VECTORS = {"a": np.array([1.0, 0.0], dtype=np.float32), "b": np.array([0.0, 2.0], dtype=np.float32)}
QUERY = np.array([1.0, 0.0], dtype=np.float32)


def test_a_failing_store_is_read_anew_once() -> None:
    stale, fresh = _Handle(VECTORS, fail=True), _Handle(VECTORS, fail=False)
    handles = {"laws": stale}
    reopened: list[str] = []

    def reopen(name: str) -> _Handle:
        reopened.append(name)
        return fresh

    keys = [("laws", "a"), ("laws", "b"), ("laws", "known")]
    out = missing_similarities(
        keys,
        {("laws", "known"): 0.5},
        QUERY,
        handles,
        {},
        None,
        VectorCache(),
        reopen=reopen,
    )
    assert out == {("laws", "a"): pytest.approx(1.0), ("laws", "b"): pytest.approx(0.0)}
    assert reopened == ["laws"] and (stale.reads, fresh.reads) == (1, 1)
    assert handles["laws"] is fresh  # the rest of the search uses the handle read anew


def test_without_reopen_or_when_it_fails_again_the_error_stands() -> None:
    keys = [("laws", "a")]
    with pytest.raises(StoreError):
        missing_similarities(keys, {}, QUERY, {"laws": _Handle(VECTORS, fail=True)}, {}, None, VectorCache())
    with pytest.raises(StoreError):
        missing_similarities(
            keys,
            {},
            QUERY,
            {"laws": _Handle(VECTORS, fail=True)},
            {},
            None,
            VectorCache(),
            reopen=lambda name: _Handle(VECTORS, fail=True),
        )
