"""How an embedder with several workers splits a call's texts into batches."""

from __future__ import annotations

import pytest

from rabbithole.embeddings.base import balanced_batches


@pytest.mark.parametrize(
    ("count", "size", "workers", "sizes"),
    [
        (0, 32, 2, []),
        (1, 32, 2, [1]),
        (20, 32, 2, [10, 10]),  # a small file's only batch becomes one per worker
        (64, 32, 2, [32, 32]),
        (65, 32, 2, [17, 16, 16, 16]),  # not 32, 32, 1: the last round is not one worker's alone
        (523, 32, 2, [30] + [29] * 17),
        (3, 32, 4, [1, 1, 1]),  # never an empty batch
        (33, 32, 1, [17, 16]),
        (10, 32, 1, [10]),
    ],
)
def test_batches_keep_the_order_and_end_together(
    count: int, size: int, workers: int, sizes: list[int]
) -> None:
    items = list(range(count))
    batches = balanced_batches(items, size, workers)
    assert [len(batch) for batch in batches] == sizes
    assert [item for batch in batches for item in batch] == items
    assert all(len(batch) <= size for batch in batches)
