"""Retrieval quality on benchmarks/data/retrieval_dev.yaml over kb/sample: vector, BM25 and hybrid.

    python -m benchmarks.bench_quality [--k N] [--misses]

The 32 questions (21 German, 11 English; the documents are German) each name 1-3 gold sections
``{document, section}``. A hit counts when its document and its section label (compared as
``section_key``: "§ 80" = "§80") match any gold entry. Per mode, over all questions and per language:

- recall@1, recall@5, recall@10: share of questions with a matching hit among the first 1 / 5 / 10;
- MRR@10: mean of 1 / rank of the first matching hit among the first 10 (0 when there is none).

Vector-only and BM25-only are the baselines of hybrid search (the same index, the same chunks); all three
run through ``HybridSearcher.run`` with the question's vector passed in. The index is the shared sample
index of the benchmarks (bench-data/sample-*, ingested once with the configured settings); --quick changes
nothing here, the set needs the whole sample.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from benchmarks.common import (
    SAMPLE_COLLECTION,
    SAMPLE_DIR,
    DevQuestion,
    base_parser,
    bench_settings,
    ensure_sample_index,
    load_dev_questions,
    machine_info,
    print_table,
    stopwatch,
)

MODES = ("vector", "bm25", "hybrid")
RECALL_AT = (1, 5, 10)


@dataclass(frozen=True, slots=True)
class Ranked:
    question: DevQuestion
    mode: str
    rank: int | None  # 1-based rank of the first gold hit, None when none in the results


def first_gold_rank(question: DevQuestion, hits: Sequence[tuple[str, str | None]]) -> int | None:
    """1-based rank of the first (document, section) hit that matches a gold entry."""
    from rabbithole.retrieval.filters import section_key

    gold = {(document, section_key(section)) for document, section in question.gold}
    for rank, (document, section) in enumerate(hits, start=1):
        if (document, section_key(section)) in gold:
            return rank
    return None


def recall(ranked: Sequence[Ranked], at: int) -> float:
    """Share of questions with a gold hit among the first ``at`` results."""
    return sum(1 for r in ranked if r.rank is not None and r.rank <= at) / len(ranked) if ranked else 0.0


def mrr(ranked: Sequence[Ranked], depth: int) -> float:
    """Mean reciprocal rank of the first gold hit among the first ``depth`` results (0 when none)."""
    return (
        sum(1.0 / r.rank for r in ranked if r.rank is not None and r.rank <= depth) / len(ranked)
        if ranked
        else 0.0
    )


def scores(ranked: Sequence[Ranked], depth: int) -> list[object]:
    return [len(ranked), *[recall(ranked, at) for at in RECALL_AT], mrr(ranked, depth)]


def main(argv: list[str] | None = None) -> int:
    parser = base_parser(__doc__)
    parser.add_argument("--k", type=int, default=10, help="results per search (MRR@k; default 10)")
    parser.add_argument("--misses", action="store_true", help="list the questions hybrid misses in its top 5")
    args = parser.parse_args(argv)
    depth = max(args.k, max(RECALL_AT))

    from rabbithole.services import Services

    print(f"machine: {machine_info()}")
    questions = load_dev_questions()
    data_dir = ensure_sample_index(SAMPLE_DIR)
    ranked: list[Ranked] = []
    with stopwatch() as watch, Services(bench_settings(data_dir)) as services:
        searcher = services.searcher
        for question in questions:
            vector = searcher.embed_query(question.question)
            for mode in MODES:
                result = searcher.run(
                    question.question,
                    SAMPLE_COLLECTION,
                    k=depth,
                    mode=mode,  # type: ignore[arg-type]
                    query_vector=vector if mode != "bm25" else None,
                )
                hits = [(h.chunk.document, h.chunk.section) for h in result.hits]
                ranked.append(Ranked(question, mode, first_gold_rank(question, hits)))

    rows: list[list[object]] = []
    subsets = [("all", None), ("de", "de"), ("en", "en")]
    for mode in MODES:
        for label, lang in subsets:
            subset = [r for r in ranked if r.mode == mode and (lang is None or r.question.lang == lang)]
            rows.append([mode, label, *scores(subset, args.k)])
    print()
    print_table(
        ["mode", "questions", "n", *[f"recall@{at}" for at in RECALL_AT], f"MRR@{args.k}"],
        rows,
        title=f"retrieval quality on {len(questions)} dev questions ({watch.seconds:.1f} s; "
        "vector and BM25 alone are the baselines):",
    )
    best_single = max(recall([r for r in ranked if r.mode == mode], 5) for mode in ("vector", "bm25"))
    hybrid_recall = recall([r for r in ranked if r.mode == "hybrid"], 5)
    print(f"hybrid recall@5 {hybrid_recall:.3f} vs the best single retriever {best_single:.3f}")

    if args.misses:
        print(
            "\nquestions hybrid misses in its top 5 (rank of the first gold hit in vector / bm25 / hybrid):"
        )
        by_question = {(r.question.id, r.mode): r.rank for r in ranked}
        for question in questions:
            if (by_question[(question.id, "hybrid")] or depth + 1) > 5:
                ranks = " / ".join(str(by_question[(question.id, m)] or "-") for m in MODES)
                head = f"{question.id} {question.lang} {question.style:<10} {ranks:<12}"
                print(f"  {head} {question.question[:70]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
