"""Ingestion with a core to spare: how much of ingestion's time over the embedder's is the rest of the run
taking the embedder's cores, rather than making it wait.

    python -m benchmarks.bench_ingestion_cores [--quick] [--kb DIR] [--repeat N]

bench_ingestion's figure of our wall time against the embedder alone on the same inputs compares a run
whose parsing, Chroma and catalog writes, BM25 index and registry share the cores with the embedder against
the embedder with every core to itself. Here the two do not share: on a machine with C cores the embedding
process is pinned to E = min(configured threads, C - 1) cores, embedding with E threads, and the ingesting
process (everything else) to the other C - E. The embedder alone then runs pinned to the same E cores with
E threads, on the same inputs (all of them: no extrapolation from a sample). As in bench_ingestion, our wall
time includes loading the model and the embedder alone's does not. On two cores E is one: the figure shows
what the pipeline costs when the rest of the run has a core of its own, which the default two-thread
embedder leaves it only on a machine of three cores or more. Needs CPU affinity (Linux) and two cores."""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from benchmarks.common import (
    SAMPLE_DIR,
    base_parser,
    bench_settings,
    cpu_seconds,
    machine_info,
    median,
    print_table,
    quick_kb,
    rel,
    remove_tree,
    run_worker,
    scratch_dir,
    stopwatch,
)

WORKER_TIMEOUT_S = 3600


def plan(cores: list[int], threads: int) -> tuple[list[int], list[int]]:
    """(the embedder's cores, the rest's cores): the embedder keeps its threads when a core is left over,
    else takes all but one."""
    embedder = cores[: max(1, min(threads, len(cores) - 1))]
    return embedder, [c for c in cores if c not in embedder]


@contextmanager
def pinned_children(cores: set[int]) -> Iterator[list[int]]:
    """Pin the first child process this process starts (the embedding process) to ``cores``, each of its
    threads, as soon as it appears (before it loads its model and starts its workers, which inherit the
    pinning); then stop watching, so the watching costs the run nothing. Yields the list that holds the
    pinned child's pid once it is pinned: empty after the block means no child was pinned."""
    import psutil

    me = psutil.Process()
    pinned: list[int] = []
    stop = threading.Event()

    def watch() -> None:
        while not stop.wait(0.005):
            for child in me.children():
                try:
                    for thread in child.threads():
                        os.sched_setaffinity(thread.id, cores)
                except (psutil.Error, OSError):
                    continue  # ended already, or not started yet: the next round sees it
                pinned.append(child.pid)
                return

    watcher = threading.Thread(target=watch, name="pin-children", daemon=True)
    watcher.start()
    try:
        yield pinned
    finally:
        stop.set()
        watcher.join()


def _worker_ours(kb: Path, data_dir: Path, embedder_cores: list[int], rest: list[int]) -> dict[str, Any]:
    os.sched_setaffinity(0, set(rest))  # this thread, and every thread started from now on
    import chromadb  # noqa: F401  (before the clock, as in bench_ingestion)

    from rabbithole.services import Services

    settings = bench_settings(data_dir, embeddings={"threads": len(embedder_cores)})
    with Services(settings) as services, pinned_children(set(embedder_cores)) as pinned:
        pipeline = services.ingestion_pipeline()
        cpu_started = cpu_seconds()
        with stopwatch() as wall:
            report = pipeline.ingest(kb)
        cpu = cpu_seconds() - cpu_started
    if not pinned:  # the embedder ran unpinned, beside the rest of the run: the figure would mean nothing
        raise RuntimeError("the embedding process was not pinned to its cores")
    return {
        "wall_s": wall.seconds,
        "cpu_s": cpu,
        "chunks": sum(c.chunks for c in report.collections),
        "embed_s": sum(c.embed_seconds for c in report.collections),
    }


def _worker_alone(kb: Path, embedder_cores: list[int]) -> dict[str, Any]:
    os.sched_setaffinity(0, set(embedder_cores))
    from benchmarks.bench_ingestion import embedding_inputs
    from rabbithole.embeddings.factory import create_embedder

    texts = embedding_inputs(kb)
    with tempfile.TemporaryDirectory(prefix="rh-cores-") as tmp:
        embedder = create_embedder(bench_settings(Path(tmp), embeddings={"threads": len(embedder_cores)}))
        with stopwatch() as load:
            embedder.embed_documents(texts[:2])  # the model loads (not timed below, as in bench_ingestion)
        cpu_started = cpu_seconds()
        with stopwatch() as wall:
            embedder.embed_documents(texts)
        cpu = cpu_seconds() - cpu_started
    return {"wall_s": wall.seconds, "cpu_s": cpu, "load_s": load.seconds, "chunks": len(texts)}


def _run_worker(kind: str, **options: object) -> dict[str, Any]:
    return run_worker("benchmarks.bench_ingestion_cores", kind, options, timeout_s=WORKER_TIMEOUT_S)


def _cores(text: str) -> list[int]:
    return [int(c) for c in text.split(",") if c]


def main(argv: list[str] | None = None) -> int:
    parser = base_parser(__doc__)
    parser.add_argument("--kb", type=Path, help="collection folder of PDFs (default kb/sample)")
    parser.add_argument("--repeat", type=int, default=1, help="pairs of runs, alternating; medians")
    parser.add_argument("--worker", choices=("ours", "alone"), help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--data-dir", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--embedder-cores", help=argparse.SUPPRESS)
    parser.add_argument("--rest", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.worker:
        embedder_cores = _cores(args.embedder_cores)
        if args.worker == "ours":
            result = _worker_ours(Path(args.kb), Path(args.data_dir), embedder_cores, _cores(args.rest))
        else:
            result = _worker_alone(Path(args.kb), embedder_cores)
        Path(args.out).write_text(json.dumps(result), encoding="utf-8")
        return 0

    if not hasattr(os, "sched_setaffinity"):
        print("skipped: this platform cannot pin processes to cores (Linux can)")
        return 0
    cores = sorted(os.sched_getaffinity(0))
    if len(cores) < 2:
        print("skipped: one core, none to spare")
        return 0
    kb: Path = (args.kb or (quick_kb() if args.quick else SAMPLE_DIR)).resolve()
    embeddings = bench_settings(Path("unused")).embeddings
    from rabbithole.embeddings.child_process import CHILD_PROVIDERS

    if embeddings.provider not in CHILD_PROVIDERS or embeddings.ingest_process == "inline":
        print(f"skipped: the embedder ({embeddings.provider}) does not run in a process of its own to pin")
        return 0
    threads = embeddings.threads
    embedder_cores, rest = plan(cores, threads)
    joined = {"embedder_cores": ",".join(map(str, embedder_cores)), "rest": ",".join(map(str, rest))}
    print(f"machine: {machine_info()}")
    print(
        f"kb: {rel(kb)}; the embedder (configured threads {threads}) on cores {joined['embedder_cores']} "
        f"with {len(embedder_cores)} thread(s), the rest of the run on cores {joined['rest']}"
    )

    ours: list[dict[str, Any]] = []
    alone: list[dict[str, Any]] = []
    for index in range(max(1, args.repeat)):
        for kind in ("ours", "alone") if index % 2 == 0 else ("alone", "ours"):
            if kind == "alone":
                alone.append(_run_worker("alone", kb=kb, embedder_cores=joined["embedder_cores"]))
                continue
            data_dir = scratch_dir("ingest-cores")
            try:
                ours.append(_run_worker("ours", kb=kb, data_dir=data_dir, **joined))
            finally:
                remove_tree(data_dir)

    ours_wall = median([r["wall_s"] for r in ours])
    alone_wall = median([r["wall_s"] for r in alone])
    load = median([r["load_s"] for r in alone])
    print()
    print_table(
        ["run", "chunks", "wall s", "CPU s", "wall s per run"],
        [
            [
                "rabbithole ingest (model load included)",
                ours[0]["chunks"],
                ours_wall,
                median([r["cpu_s"] for r in ours]),
                " ".join(f"{r['wall_s']:.1f}" for r in ours),
            ],
            [
                "embedder alone (model loaded before)",
                alone[0]["chunks"],
                alone_wall,
                median([r["cpu_s"] for r in alone]),
                " ".join(f"{r['wall_s']:.1f}" for r in alone),
            ],
        ],
        title=f"with a core to spare (median of {len(ours)}):",
    )
    print(
        f"  ours / embedder alone: {ours_wall / alone_wall:.2f}x (a figure beside bench_ingestion's, whose "
        f"run shares the cores); against the embedder alone with its model load ({load:.1f} s): "
        f"{ours_wall / (alone_wall + load):.2f}x"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
