"""The sweeps the trace allocation settings were chosen by (issue 11, allocation round and spread round), on
the dev questions of benchmarks/data/reference_chains.yaml (c01-c37 and n01-n23; the held-out h01-h15 are
left out).

    python -m benchmarks.sweep_trace_allocation [--data-dir DIR] [--misses] [--only TEXT]

One process, one index (the one bench_references uses): the questions are embedded once; for each setting
`trace` runs at the default depth with the setting as an override of the configured references settings,
and plain hybrid search runs with k = that trace's mean number of passages, per question set, as in
`bench_references`. Printed per setting: trace recall / hybrid recall @ mean passages and the gap, for
dev, c01-c37 and n01-n23, then trace recall by language. ``--misses`` lists the missed gold sections of
the configured settings; ``--only TEXT`` runs the rows whose label contains TEXT ("spread").
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "backend"), str(ROOT)]

from benchmarks.bench_references import (  # noqa: E402
    COLLECTION,
    Question,
    load_questions,
    open_sample,
)
from rabbithole.references.tracing import ReferenceEngine  # noqa: E402
from rabbithole.services import Services  # noqa: E402

Reached = set[tuple[str, str | None]]
SETS: tuple[tuple[str, tuple[int, ...]], ...] = (("dev", (2, 3)), ("c01-c37", (2,)), ("n01-n23", (3,)))

#: the allocation round's candidates (before this round's spread) and seeds (15 hits, no seed floor)
ROUND1: dict[str, Any] = {"new_sections_first": False, "mention_lead": 0, "seeds": 15, "seed_floor": 0.0}
#: this round: spread candidates (new sections first, 2 sections of a citation list ahead)
SPREAD: dict[str, Any] = {"new_sections_first": True, "mention_lead": 2}

#: (label, settings overrides): the budget round's allocation, the allocation round's axes (its rows with
#: its own candidates and seeds), then this round's: the seed floor (hits among 20-25 scoring at least
#: 0.4-0.5 of the first hit's), new sections first, the lead of a citation list, and the cap
GRID: list[tuple[str, dict[str, Any]]] = [
    ("budget round (every hit, relevance, budget only)",
     {**ROUND1, "distinct_seed_sections": False, "source_weight": 0.0, "max_reached": 0}),
    ("every hit, relevance, max_reached 7",
     {**ROUND1, "distinct_seed_sections": False, "source_weight": 0.0, "max_reached": 7}),
    ("every hit, source_weight 1, max_reached 7",
     {**ROUND1, "distinct_seed_sections": False, "max_reached": 7}),
    ("distinct, relevance, max_reached 7", {**ROUND1, "source_weight": 0.0, "max_reached": 7}),
    *((f"distinct, source_weight {w}, max_reached {m}", {**ROUND1, "source_weight": w, "max_reached": m})
      for w in (1.0, 2.0, 3.0) for m in (3, 5, 6, 7, 8, 9, 10, 12)),
    ("distinct, source_weight 1, max_reached 0", {**ROUND1, "max_reached": 0}),
    ("distinct of 12 hits, source_weight 1, max_reached 7", {**ROUND1, "seeds": 12, "max_reached": 7}),
    ("distinct of 20 hits, source_weight 1, max_reached 7", {**ROUND1, "seeds": 20, "max_reached": 7}),
    ("allocation round compact, depth 1", {**ROUND1, "max_reached": 7, "max_depth": 1}),
    # this round: the seed floor with the allocation round's candidates ...
    *((f"seed floor {f} of {n} hits, max_reached {m}",
       {**ROUND1, "seeds": n, "seed_floor": f, "max_reached": m})
      for f in (0.4, 0.45, 0.5, 0.55) for n in (20, 25) for m in (7, 8, 10, 12, 15)),
    # ... new sections first alone ...
    *((f"new sections first, 15 hits, max_reached {m}",
       {**ROUND1, "new_sections_first": True, "max_reached": m}) for m in (5, 6, 7, 8, 10, 12)),
    # ... and spread candidates with 15 hits and with the seed floor
    *((f"spread, 15 hits, max_reached {m}", {**ROUND1, **SPREAD, "max_reached": m})
      for m in (5, 6, 7, 8, 10)),
    *((f"spread, seed floor {f} of {n} hits, max_reached {m}",
       {**SPREAD, "seeds": n, "seed_floor": f, "max_reached": m})
      for f in (0.4, 0.45, 0.5) for n in (20, 25) for m in (8, 10, 12, 15)),
    ("spread, seed floor 0.45 of 25 hits, mention lead 1, max_reached 10",
     {**SPREAD, "mention_lead": 1, "seeds": 25, "seed_floor": 0.45, "max_reached": 10}),
    ("spread, 15 hits, no cap", {**ROUND1, **SPREAD, "max_reached": 0}),
    ("spread, seed floor 0.45 of 25 hits, no cap",
     {**SPREAD, "seeds": 25, "seed_floor": 0.45, "max_reached": 0}),
]  # fmt: skip


def share(pairs: list[tuple[Question, Reached]]) -> float:
    gold = sum(len(q.gold) for q, _ in pairs)
    return sum(1 for q, reached in pairs for g in q.gold if (g[0], g[1]) in reached) / max(1, gold)


Traced = dict[str, tuple[Reached, int]]


def evaluate(
    services: Services,
    questions: list[Question],
    vectors: dict[str, Any],
    update: dict[str, Any],
    plain_cache: dict[tuple[str, int], Reached],
) -> tuple[str, Traced]:
    """One setting: `trace` per question, then the row (trace / hybrid at the same k, per set)."""
    settings = services.settings.references.model_copy(update=update)
    engine = ReferenceEngine(
        COLLECTION,
        searcher=services.searcher,
        catalog=services.catalog,
        vectors=services.store.open(COLLECTION),
        registry=services.registry(COLLECTION),
        settings=settings,
    )
    traced: Traced = {}
    for q in questions:
        result = engine.trace(q.text, query_vector=vectors[q.id])
        traced[q.id] = ({(p.chunk.document, p.chunk.section) for p in result.passages}, len(result.passages))
    cells = []
    for label, rounds in SETS:
        chosen = [q for q in questions if q.round_no in rounds]
        mean = sum(traced[q.id][1] for q in chosen) / len(chosen)
        k = max(1, round(mean))
        for q in chosen:
            if (q.id, k) not in plain_cache:
                hits = services.searcher.search(q.text, COLLECTION, k=k, query_vector=vectors[q.id])
                plain_cache[(q.id, k)] = {(h.chunk.document, h.chunk.section) for h in hits}
        trace = share([(q, traced[q.id][0]) for q in chosen])
        plain = share([(q, plain_cache[(q.id, k)]) for q in chosen])
        cells.append(f"{label} {trace:.3f}/{plain:.3f} @{mean:.1f} {trace - plain:+.3f}")
    by_lang = [share([(q, traced[q.id][0]) for q in questions if q.lang == lang]) for lang in ("de", "en")]
    cells.append(f"de {by_lang[0]:.3f} en {by_lang[1]:.3f}")
    return " | ".join(cells), traced


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--data-dir", type=Path, default=ROOT / "bench-data" / "references")
    parser.add_argument("--misses", action="store_true", help="list the configured settings' misses")
    parser.add_argument("--only", default="", help="run only the rows whose label contains this text")
    args = parser.parse_args(argv)
    questions = [q for q in load_questions() if q.round_no in (2, 3)]
    with open_sample(args.data_dir) as services:
        vectors = {q.id: services.searcher.embed_views(q.text, COLLECTION) for q in questions}
        plain_cache: dict[tuple[str, int], Reached] = {}
        print(f"{len(questions)} dev questions; per set: trace / hybrid @ mean passages, trace - hybrid")
        for label, update in [("configured", {}), *(row for row in GRID if args.only in row[0])]:
            row, traced = evaluate(services, questions, vectors, update, plain_cache)
            print(f"{label}: {row}", flush=True)
            if args.misses and label == "configured":
                for q in questions:
                    missing = [g for g in q.gold if (g[0], g[1]) not in traced[q.id][0]]
                    if missing:
                        print(f"   {q.id}: missing {missing}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
