"""Search p95 through a Chroma server against embedded Chroma, same queries, same run (part of bench_search).

A `chroma run` server (rabbithole.devtools.chroma_server) on a loopback port over a scratch folder under
bench-data/ gets a copy of the sample collection's vectors and metadata (read from the embedded store, not
embedded again). Two searchers over the same catalog and BM25 index then differ only in where the vector
query goes: the embedded Chroma in this process, or the server over HTTP. Per query and repetition the four
searches (hybrid and vector, each way) run in turn, so a change in machine load hits both alike. The issue
gives no goal for this figure: the ratio of the p95s is printed.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from benchmarks.common import Latency, bench_settings, remove_tree, scratch_dir
from benchmarks.serve_process import free_port
from rabbithole.devtools.chroma_server import ChromaServerProcess

if TYPE_CHECKING:
    from rabbithole.store.chroma_store import ChromaStore, ModelIdentity

WAYS = ("embedded", "server")
MODES = ("hybrid", "vector")
K = 5


def _copy_vectors(embedded: ChromaStore, server: ChromaStore, collection: str, model: ModelIdentity) -> int:
    """The collection's vectors and metadata, embedded -> server, in batches; returns the server's count."""
    source = embedded.raw_handle(collection)
    server.open(collection, model, create=True)
    target = server.raw_handle(collection)
    total = int(source.count())
    step = min(embedded.max_batch_size, server.max_batch_size)
    for offset in range(0, total, step):
        part = source.get(limit=step, offset=offset, include=["embeddings", "metadatas"])
        target.upsert(ids=part["ids"], embeddings=part["embeddings"], metadatas=part["metadatas"])
    return int(target.count())


def measure_server_against_embedded(
    data_dir: Path,
    collection: str,
    questions: Sequence[str],
    vectors: Sequence[npt.NDArray[np.float32]],
    repeat: int,
) -> tuple[int, dict[tuple[str, str], Latency]]:
    """(chunks, latency by (way, mode)) of ``collection`` of ``data_dir``, searched embedded and through a
    Chroma server holding a copy of its vectors."""
    from rabbithole.services import Services

    folder = scratch_dir("chroma-server")
    server = ChromaServerProcess(folder / "data", free_port(), folder / "chroma.log")
    try:
        with server:
            vectors_settings = server.vectors().model_dump()
            with (
                Services(bench_settings(data_dir)) as embedded,
                Services(bench_settings(data_dir, vectors=vectors_settings)) as served,
            ):
                chunks = _copy_vectors(embedded.store, served.store, collection, embedded.embedder)
                searchers = {"embedded": embedded.searcher, "server": served.searcher}
                for searcher in searchers.values():
                    searcher.warm(collection)
                seconds: dict[tuple[str, str], list[float]] = {(w, m): [] for w in WAYS for m in MODES}
                runs = [(way, mode) for way in WAYS for mode in MODES]

                def run(way: str, mode: str, question: str, vector: npt.NDArray[np.float32]) -> float:
                    started = time.perf_counter()
                    searchers[way].run(question, collection, k=K, mode=mode, query_vector=vector)  # type: ignore[arg-type]
                    return time.perf_counter() - started

                for question, vector in zip(questions, vectors, strict=True):  # warm-up
                    for way, mode in runs:
                        run(way, mode, question, vector)
                for repetition in range(repeat):
                    for index, (question, vector) in enumerate(zip(questions, vectors, strict=True)):
                        shift = (repetition + index) % len(runs)
                        for way, mode in runs[shift:] + runs[:shift]:
                            seconds[(way, mode)].append(run(way, mode, question, vector))
    finally:
        remove_tree(folder)
    return chunks, {key: Latency.of(values) for key, values in seconds.items()}


def main(argv: list[str] | None = None) -> int:
    """This figure alone, over the sample index (``python -m benchmarks.search_server [--quick]``)."""
    from benchmarks.common import (
        SAMPLE_COLLECTION,
        SAMPLE_DIR,
        base_parser,
        ensure_sample_index,
        load_dev_questions,
        machine_info,
        quick_kb,
    )
    from rabbithole.services import Services

    parser = base_parser(__doc__)
    parser.add_argument("--repeat", type=int, help="passes over the dev questions (default 5; quick 2)")
    args = parser.parse_args(argv)
    repeat = max(1, args.repeat or (2 if args.quick else 5))
    print(f"machine: {machine_info()}")
    sample_dir = ensure_sample_index(quick_kb() if args.quick else SAMPLE_DIR)
    texts = [q.question for q in load_dev_questions()]
    with Services(bench_settings(sample_dir)) as services:
        vectors = [services.embedder.embed_query(text) for text in texts]
    chunks, through = measure_server_against_embedded(sample_dir, SAMPLE_COLLECTION, texts, vectors, repeat)
    for mode in MODES:
        embedded, server = through[("embedded", mode)], through[("server", mode)]
        print(
            f"{mode} ({chunks:,} chunks, n={embedded.n}): embedded p50 {embedded.p50:.1f} ms, p95 "
            f"{embedded.p95:.1f} ms; server p50 {server.p50:.1f} ms, p95 {server.p95:.1f} ms; p95 ratio "
            f"{server.p95 / embedded.p95:.2f}x"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
