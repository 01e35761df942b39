"""Search latency (p50/p95) at the sample's size and on a generated 100k-chunk collection.

    python -m benchmarks.bench_search [--quick] [--size N] [--repeat N]

Queries: the questions of benchmarks/data/retrieval_dev.yaml. Each question is embedded once up front
(that time is reported on its own); every search then gets its vector passed in (``query_vector``), so
the latencies exclude the query embedding. Per query and repetition the modes run in turn, so a change in
machine load hits all of them alike:

- hybrid, vector, bm25: ``HybridSearcher.run(question, collection, k=5, mode=...)``, the whole search the
  API runs (vector candidates from Chroma, BM25 candidates, fusion, chunk texts from the catalog, scores);
- baseline: a plain Chroma query, ``collection.query(query_embeddings=[v], n_results=50,
  include=["distances"])``, the same n (retrieval.candidates) our vector retriever asks Chroma for;
  also shown: the same query for the top 5 with documents and metadata, as a plain Chroma app asks.

Collections:

- sample: kb/sample ingested with the configured settings (bench-data/sample-*, reused across runs);
- generated: N chunks (default 100,000; --quick 20,000) in 100 documents: random unit vectors of the
  embedder's dimension and synthetic German-ish text (words of kb/sample drawn Zipf-like by their frequency
  rank, ~130 words a chunk, about the sample chunks' length), written through the app's own layers
  (catalog rows + Chroma upserts via ChromaStore, BM25 index built by the searcher) in batches of 1000.
  It is generated once into bench-data/synth-<N>-<fingerprint>/ and reused while the fingerprint (size,
  generator, vocabulary, library versions, model) matches; the generation time is reported.

Goals (each collection): hybrid p95 <= 50 ms without the query embedding, and <= 2x the plain Chroma query.

Through a Chroma server (issue 25, vectors.url): the sample collection's hybrid and vector search p95 with
its vectors in a `chroma run` server against embedded Chroma, same queries, same run
(benchmarks/search_server.py); no goal, the ratio is printed.
"""

from __future__ import annotations

import json
import math
import re
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from benchmarks.common import (
    SAMPLE_COLLECTION,
    SAMPLE_DIR,
    Goal,
    Latency,
    base_parser,
    bench_root,
    bench_settings,
    ensure_sample_index,
    files_digest,
    fingerprint,
    load_dev_questions,
    machine_info,
    peak_rss_mb,
    print_goals,
    print_table,
    quick_kb,
    rel,
    remove_tree,
    sample_pdfs,
    stopwatch,
)
from rabbithole.core.models import Chunk, PageText, ParsedDocument

P95_LIMIT_MS = 50.0
BASELINE_FACTOR = 2.0
K = 5
#: passes over the dev questions in a full run (each pass searches every question in every mode)
PASSES = 5
GENERATOR_VERSION = "1"
SYNTH_COLLECTION = "synthetic"
CHUNKS_PER_DOCUMENT = 1000
DOCUMENTS_PER_UPSERT = 5  # 5000 vectors a Chroma call (its max batch is about 5461)
WORDS_PER_CHUNK = 130
ZIPF_EXPONENT = 1.0
SEED = 20240601
_READY = "READY.json"
_WORD = re.compile(r"[^\W\d_]{2,}")

MODES = ("hybrid", "vector", "bm25", "chroma", "chroma top-5 +docs")


# --- the generated collection -------------------------------------------------------------------------


def _vocabulary(pdfs: Sequence[Path]) -> tuple[list[str], npt.NDArray[np.float64]]:
    """Words of the PDFs, most frequent first, with Zipf-like sampling weights 1 / rank^s."""
    import pymupdf

    counts: Counter[str] = Counter()
    for pdf in pdfs:
        with pymupdf.open(pdf) as doc:  # type: ignore[no-untyped-call]
            for page in doc:
                counts.update(_WORD.findall(page.get_text()))
    words = [w for w, _ in counts.most_common()]
    weights = 1.0 / np.arange(1, len(words) + 1, dtype=np.float64) ** ZIPF_EXPONENT
    return words, weights / weights.sum()


def _synthetic_document(
    number: int,
    count: int,
    vocabulary: npt.NDArray[np.object_],
    weights: npt.NDArray[np.float64],
    rng: np.random.Generator,
    dim: int,
) -> tuple[ParsedDocument, list[Chunk], npt.NDArray[np.float32]]:
    """One generated document: ``count`` chunks of Zipf-drawn words (3 chunks a page, 4 a section) and
    their random vectors."""
    name = f"synth-{number:04d}.pdf"
    lengths = np.clip(rng.normal(WORDS_PER_CHUNK, WORDS_PER_CHUNK / 4, count), 20, 3 * WORDS_PER_CHUNK)
    drawn = vocabulary[rng.choice(len(vocabulary), size=int(lengths.sum()), p=weights)]
    chunks: list[Chunk] = []
    pages: list[PageText] = []
    offset = position = 0
    for ordinal, length in enumerate(lengths.astype(int).tolist()):
        text = " ".join(drawn[position : position + length])
        position += length
        page = ordinal // 3 + 1
        if ordinal % 3 == 0:
            pages.append(PageText(number=page, text="", offset=offset))
        chunks.append(
            Chunk(
                id=f"s{number:04d}-{ordinal:05d}",
                collection=SYNTH_COLLECTION,
                document=name,
                ordinal=ordinal,
                text=text,
                start=offset,
                end=offset + len(text),
                page=page,
                page_end=page,
                section=f"§ {ordinal // 4 + 1}",
                heading=f"Synthetischer Abschnitt {ordinal // 4 + 1}",
            )
        )
        offset += len(text) + 2
    vectors = rng.standard_normal((count, dim), dtype=np.float32)
    parsed = ParsedDocument(file_name=name, pages=pages, title=f"Synthetisches Gesetz {number}")
    return parsed, chunks, vectors


def synthetic_dir(size: int, model_id: str, dim: int) -> tuple[Path, str]:
    import chromadb

    import rabbithole

    key = fingerprint(
        GENERATOR_VERSION,
        size,
        CHUNKS_PER_DOCUMENT,
        WORDS_PER_CHUNK,
        ZIPF_EXPONENT,
        SEED,
        files_digest(sample_pdfs()),
        chromadb.__version__,
        getattr(rabbithole, "__version__", "?"),
        model_id,
        dim,
    )
    return bench_root() / f"synth-{size}-{key}", key


def ensure_synthetic(size: int) -> tuple[Path, dict[str, Any]]:
    """The data dir of the generated collection (generating it when missing) and its READY record."""
    from rabbithole.services import Services

    probe = bench_settings(bench_root() / "unused")
    from rabbithole.embeddings.factory import create_embedder

    identity = create_embedder(probe)  # cheap: the model is not loaded
    data_dir, key = synthetic_dir(size, identity.model_id, identity.dim)
    ready = data_dir / _READY
    if ready.exists():
        record: dict[str, Any] = json.loads(ready.read_text(encoding="utf-8"))
        record["reused"] = True
        return data_dir, record
    remove_tree(data_dir)  # an interrupted generation
    for stale in bench_root().glob(f"synth-{size}-*"):
        remove_tree(stale)
    print(f"generating {size:,} chunks into {rel(data_dir)} (once; later runs reuse it) ...", flush=True)

    started = time.perf_counter()
    words, weights = _vocabulary(sample_pdfs())
    vocabulary: npt.NDArray[np.object_] = np.asarray(words, dtype=object)
    rng = np.random.default_rng(SEED)
    timings = {"text": 0.0, "chroma": 0.0, "catalog": 0.0, "bm25": 0.0}
    with Services(bench_settings(data_dir)) as services:
        embedder = services.embedder
        vectors_of = services.store.open(SYNTH_COLLECTION, embedder, create=True)
        services.catalog.ensure_collection(SYNTH_COLLECTION, embedder.model_id, embedder.dim)
        documents = math.ceil(size / CHUNKS_PER_DOCUMENT)
        pending: list[tuple[ParsedDocument, list[Chunk], npt.NDArray[np.float32]]] = []
        for number in range(documents):
            with stopwatch() as watch:
                count = min(CHUNKS_PER_DOCUMENT, size - number * CHUNKS_PER_DOCUMENT)
                pending.append(_synthetic_document(number, count, vocabulary, weights, rng, embedder.dim))
            timings["text"] += watch.seconds
            if len(pending) < DOCUMENTS_PER_UPSERT and number + 1 < documents:
                continue
            with stopwatch() as watch:  # one Chroma call per DOCUMENTS_PER_UPSERT documents
                vectors_of.upsert(
                    [c for _, chunks, _ in pending for c in chunks], np.concatenate([v for *_, v in pending])
                )
            timings["chroma"] += watch.seconds
            with stopwatch() as watch:  # the catalog is written per document, as ingestion does
                for parsed, chunks, _ in pending:
                    digest = f"synthetic-{key}-{parsed.file_name}"
                    services.catalog.replace_document(SYNTH_COLLECTION, parsed, digest, 0, chunks)
            timings["catalog"] += watch.seconds
            pending = []
            done = min((number + 1) * CHUNKS_PER_DOCUMENT, size)
            print(f"  {done:,} chunks, {time.perf_counter() - started:.0f} s", flush=True)
        with stopwatch() as watch:
            index = services.searcher.bm25.get(SYNTH_COLLECTION)
        timings["bm25"] = watch.seconds
        with stopwatch() as watch:  # as ingestion does: the vectors kept beside the BM25 index
            services.searcher.warm(SYNTH_COLLECTION)
        timings["vector copy"] = watch.seconds
        stats = index.stats()
    record = {
        "size": size,
        "fingerprint": key,
        "generated": f"{datetime.now():%Y-%m-%d %H:%M}",
        "seconds": time.perf_counter() - started,
        "timings": timings,
        "vocabulary": len(words),
        "bm25_vocabulary": stats["vocabulary"],
        "reused": False,
    }
    ready.write_text(json.dumps(record, indent=2), encoding="utf-8")
    return data_dir, record


# --- measuring ----------------------------------------------------------------------------------------


@dataclass(slots=True)
class Measured:
    collection: str
    chunks: int
    seconds: dict[str, list[float]] = field(default_factory=dict)
    stages: dict[str, list[float]] = field(default_factory=dict)  # hybrid's own stage timings
    bm25_load_s: float = 0.0
    vector_copy_s: float = 0.0  # building (once per revision) or loading the vectors kept beside the index

    def latency(self, mode: str) -> Latency:
        return Latency.of(self.seconds[mode])


def measure(
    data_dir: Path,
    collection: str,
    questions: Sequence[str],
    vectors: Sequence[npt.NDArray[np.float32]],
    repeat: int,
) -> Measured:
    from rabbithole.services import Services
    from rabbithole.store.chroma_store import chroma_collection_name

    with Services(bench_settings(data_dir)) as services:
        searcher = services.searcher
        n_candidates = services.settings.retrieval.candidates
        raw = services.store.client.get_collection(
            chroma_collection_name(collection), embedding_function=None
        )
        chunks = int(raw.count())
        with stopwatch() as watch:
            searcher.bm25.get(collection)  # loads the persisted index
        with stopwatch() as copy_watch:  # the vectors beside it (written by ingestion; built here if older)
            searcher.warm(collection)
        result = Measured(
            collection,
            chunks,
            {m: [] for m in MODES},
            bm25_load_s=watch.seconds,
            vector_copy_s=copy_watch.seconds,
        )

        def run(mode: str, question: str, vector: npt.NDArray[np.float32]) -> float:
            started = time.perf_counter()
            if mode == "chroma":
                raw.query(query_embeddings=[vector], n_results=n_candidates, include=["distances"])
            elif mode == "chroma top-5 +docs":
                raw.query(
                    query_embeddings=[vector], n_results=K, include=["documents", "metadatas", "distances"]
                )
            elif mode == "bm25":
                searcher.run(question, collection, k=K, mode="bm25")
            else:
                outcome = searcher.run(question, collection, k=K, mode=mode, query_vector=vector)  # type: ignore[arg-type]
                if mode == "hybrid":
                    for stage, seconds in outcome.timings.items():
                        result.stages.setdefault(stage, []).append(seconds)
            return time.perf_counter() - started

        for question, vector in zip(questions, vectors, strict=True):  # warm-up: caches, HNSW, SQLite pages
            for mode in MODES:
                run(mode, question, vector)
        result.stages.clear()
        for repetition in range(repeat):
            for index, (question, vector) in enumerate(zip(questions, vectors, strict=True)):
                shift = (repetition + index) % len(MODES)
                for mode in MODES[shift:] + MODES[:shift]:
                    result.seconds[mode].append(run(mode, question, vector))
    return result


def main(argv: list[str] | None = None) -> int:
    parser = base_parser(__doc__)
    parser.add_argument(
        "--size", type=int, help="chunks of the generated collection (default 100000; quick 20000)"
    )
    parser.add_argument(
        "--repeat", type=int, help=f"passes over the dev questions (default {PASSES}; quick 2)"
    )
    args = parser.parse_args(argv)
    size = args.size or (20_000 if args.quick else 100_000)
    repeat = max(1, args.repeat or (2 if args.quick else PASSES))
    kb = quick_kb() if args.quick else SAMPLE_DIR

    print(f"machine: {machine_info()}")
    questions = load_dev_questions()
    texts = [q.question for q in questions]
    sample_dir = ensure_sample_index(kb)
    synth_dir, record = ensure_synthetic(size)
    generation = record["seconds"]
    parts = ", ".join(f"{k} {v:.0f} s" for k, v in record["timings"].items())
    print(
        f"generated collection: {size:,} chunks, "
        + (
            f"reused (generated {record['generated']} in {generation:.0f} s: {parts})"
            if record["reused"]
            else f"generated in {generation:.0f} s ({parts})"
        )
    )

    from rabbithole.services import Services

    with Services(bench_settings(sample_dir)) as services:  # embed the questions once, timed
        embedder = services.embedder
        embedder.embed_query("warm-up")
        embed_seconds: list[float] = []
        vectors: list[npt.NDArray[np.float32]] = []
        for _ in range(repeat):
            vectors = []
            for text in texts:
                with stopwatch() as watch:
                    vectors.append(embedder.embed_query(text))
                embed_seconds.append(watch.seconds)

    results = [
        measure(sample_dir, "sample", texts, vectors, repeat),
        measure(synth_dir, SYNTH_COLLECTION, texts, vectors, repeat),
    ]

    rows: list[list[object]] = []
    for measured in results:
        for mode in MODES:
            latency = measured.latency(mode)
            label = {"chroma": "baseline: chroma n=50", "chroma top-5 +docs": "chroma k=5 +docs"}.get(
                mode, mode
            )
            rows.append(
                [
                    f"{measured.collection} ({measured.chunks:,})",
                    label,
                    latency.n,
                    latency.p50,
                    latency.p95,
                    latency.mean,
                ]
            )
    embed = Latency.of(embed_seconds)
    rows.append(["(any)", "query embedding", embed.n, embed.p50, embed.p95, embed.mean])
    print()
    print_table(
        ["collection", "search", "n", "p50 ms", "p95 ms", "mean ms"],
        rows,
        title="search latency, query embedding excluded (k=5, 50 candidates per retriever):",
    )

    print()
    stage_names = ["vector", "bm25", "fuse", "fetch", "scores", "total"]
    print_table(
        ["collection", *[f"{s} p50 ms" for s in stage_names], "BM25 load s", "vector copy s"],
        [
            [
                m.collection,
                *[Latency.of(m.stages.get(s, [])).p50 for s in stage_names],
                m.bm25_load_s,
                m.vector_copy_s,
            ]
            for m in results
        ],
        title="hybrid, per stage (the searcher's own timings):",
    )
    print(f"peak RSS of this process: {peak_rss_mb():.0f} MB")

    from benchmarks.search_server import MODES as SERVER_MODES
    from benchmarks.search_server import measure_server_against_embedded

    server_chunks, through = measure_server_against_embedded(
        sample_dir, SAMPLE_COLLECTION, texts, vectors, repeat
    )
    print()
    print_table(
        ["search", "embedded p50 ms", "embedded p95 ms", "server p50 ms", "server p95 ms", "p95 ratio"],
        [
            [
                mode,
                through[("embedded", mode)].p50,
                through[("embedded", mode)].p95,
                through[("server", mode)].p50,
                through[("server", mode)].p95,
                f"{through[('server', mode)].p95 / through[('embedded', mode)].p95:.2f}x",
            ]
            for mode in SERVER_MODES
        ],
        title=f"sample ({server_chunks:,} chunks) through a Chroma server (chroma run, loopback) against "
        f"embedded Chroma, same queries, n={through[('embedded', 'hybrid')].n} each:",
    )
    hybrid_ratio = through[("server", "hybrid")].p95 / through[("embedded", "hybrid")].p95
    print(f"hybrid search p95 through the Chroma server / embedded: {hybrid_ratio:.2f}x (no goal)")

    from benchmarks.cli_start import one_shot_search

    one_shot = one_shot_search(sample_dir, SAMPLE_COLLECTION, texts[0], 2 if args.quick else 3)
    print()
    print_table(
        ["process", "runs", "median s", "wall s (each)", "peak RSS MB"],
        [
            [f.label, len(f.wall_s), f.median_s, " / ".join(f"{w:.2f}" for w in f.wall_s), f.peak_mb]
            for f in one_shot
        ],
        title=f"one-shot CLI search, alternating with the start-up baseline ({rel(sample_dir)}):",
    )

    goals = []
    for measured in results:
        hybrid = measured.latency("hybrid")
        chroma = measured.latency("chroma")
        name = f"{measured.collection} ({measured.chunks:,} chunks)"
        goals.append(
            Goal(
                f"hybrid p95 <= {P95_LIMIT_MS:.0f} ms, {name}",
                hybrid.p95 <= P95_LIMIT_MS,
                f"{hybrid.p95:.1f} ms",
                machine_dependent=True,
            )
        )
        goals.append(
            Goal(
                f"hybrid p95 <= {BASELINE_FACTOR:.0f}x the plain Chroma query, {name}",
                hybrid.p95 <= BASELINE_FACTOR * chroma.p95,
                f"{hybrid.p95:.1f} ms vs {chroma.p95:.1f} ms = {hybrid.p95 / chroma.p95:.2f}x "
                f"(p50: {hybrid.p50:.1f} vs {chroma.p50:.1f} ms = {hybrid.p50 / chroma.p50:.2f}x)",
                machine_dependent=True,
            )
        )
    print()
    indicative = f"--quick: {size:,} generated chunks, not 100,000" if args.quick else None
    return 0 if print_goals(goals, indicative) or args.quick else 1


if __name__ == "__main__":
    raise SystemExit(main())
