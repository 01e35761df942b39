"""How bench_ingestion_cores splits a machine's cores between the embedder and the rest of the run."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.bench_ingestion_cores import plan  # noqa: E402


def test_the_embedder_keeps_its_threads_when_a_core_is_left_over() -> None:
    assert plan([0, 1, 2, 3], threads=2) == ([0, 1], [2, 3])
    assert plan([0, 1, 2], threads=2) == ([0, 1], [2])


def test_on_as_many_cores_as_threads_the_embedder_leaves_one() -> None:
    assert plan([0, 1], threads=2) == ([0], [1])
    assert plan([4, 5, 6], threads=8) == ([4, 5], [6])


def test_the_embedder_always_gets_a_core() -> None:
    assert plan([0, 1], threads=0) == ([0], [1])
