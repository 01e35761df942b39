"""The reference engine on the chain dev set (benchmarks/data/reference_chains.yaml): does `trace` reach
every gold § section, at what context size, how fast; plus the grammar detector's throughput.

    python benchmarks/bench_references.py [--data-dir DIR] [--depths 0,1,2,3] [--k K]

The sample knowledge base (kb/sample, collection "sample") is ingested into --data-dir first (default
bench-data/references; incremental: a second run re-uses the index). For each question and depth the
traced passages are mapped to their (document, section); reported per depth:

* recall: gold sections reached / gold sections (all questions pooled, seeds included; c01-c37 and
  n01-n23 apart), and the same
  for the chained sections alone (hop >= 1) and for hop 2; "recall gold seed": the same expansion started
  from every chunk of the gold seed section instead of the search hits (what retrieval misses left out);
* questions complete: every gold section reached;
* context: mean passages and tokens per question, and the largest token count against the budget;
* time per trace (search + expansion) without model time (the query is embedded once per question
  beforehand and passed in), and with the embedding time added.

Then, at the default depth, side by side (same run, same index):

* recall of `trace` per question language (the documents are German), with the configured retrieval and
  with round 1's retrieval (RRF, no glossary, no heading bonus) as the baseline;
* plain hybrid search with k = the mean number of passages `trace` returns (same context size, no
  reference following), pooled and per language; for round 1 (retrieval and expansion), round 2's, the
  budget round's and the allocation round's allocation (no cap and the compact cap of 7), this round's
  spread candidates (new sections first, two sections of a citation list ahead) with 15 hits and a cap of
  7 and with the seed floor (0.45 of the first hit's score, 25 hits) and a cap of 10, and the configured
  settings. Goals, of the configured settings only (the older ones are figures to compare with): trace
  recall >= 0.92 on the dev questions and on all 75, English within 0.05 of German (all 75), trace >= plain
  search + 0.10 at the same number of passages on every question set. They are deterministic (no model
  call, the same index): a miss fails the benchmark.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "backend"), str(ROOT)]

from benchmarks.common import Goal, print_goals  # noqa: E402
from rabbithole.core.config import ReferenceSettings, Settings, StorageSettings  # noqa: E402
from rabbithole.references.expansion import ExpansionLimits, TracedPassage  # noqa: E402
from rabbithole.references.tracing import ReferenceEngine  # noqa: E402
from rabbithole.services import Services  # noqa: E402

CHAINS = ROOT / "benchmarks" / "data" / "reference_chains.yaml"
#: trace must reach at least this share of the gold sections more than plain search at the same passages
GAP_GOAL = 0.10
#: trace's recall at the default depth, on the dev questions and on all of them
RECALL_GOAL = 0.92
#: English questions' trace recall within this of the German ones' (all questions)
LANGUAGE_GAP_GOAL = 0.05
#: shares of whole sections: 27/30 - 24/30 is 0.1 but a hair below it in floating point
EPSILON = 1e-9
#: the settings whose figures are goals; the other variants of the side-by-side are figures to compare with
CURRENT = "current"
SAMPLE = ROOT / "kb" / "sample"
COLLECTION = "sample"


@dataclass(frozen=True, slots=True)
class Question:
    id: str
    text: str
    gold: tuple[tuple[str, str, int], ...]  # (document, section, hop)
    lang: str = "de"
    #: 3: n01-n23, drawn at random from the corpus's citation links (benchmarks/chain_links.py); 4: h01-h15,
    #: drawn the same way and held out (not used to choose the defaults)
    round_no: int = 2


#: the question subsets reported apart: (label, which rounds); "dev" are the questions the defaults were
#: chosen on, h01-h15 the held-out ones
SUBSETS: tuple[tuple[str, tuple[int, ...]], ...] = (
    ("dev (c+n)", (2, 3)),
    ("c01-c37", (2,)),
    ("n01-n23", (3,)),
    ("h01-h15 (held out)", (4,)),
    ("all", (2, 3, 4)),
)


def subset(questions: list[Question], rounds: tuple[int, ...]) -> list[Question]:
    return [q for q in questions if q.round_no in rounds]


def load_questions(path: Path = CHAINS) -> list[Question]:
    data: dict[str, Any] = yaml.safe_load(path.read_text(encoding="utf-8"))
    return [
        Question(
            q["id"],
            q["question"],
            tuple((g["document"], g["section"], int(g["hop"])) for g in q["gold"]),
            str(q.get("lang", "de")),
            int(q.get("round", 2)),
        )
        for q in data["questions"]
    ]


def open_sample(data_dir: Path) -> Services:
    """Services over ``data_dir`` with kb/sample ingested (incrementally) as collection "sample"."""
    settings = Settings(storage=StorageSettings(data_dir=data_dir))
    services = Services(settings)
    report = services.ingestion_pipeline().ingest(SAMPLE, collection=COLLECTION)
    if report.failed:
        raise SystemExit(f"bench_references: ingestion failed: {report.failed}")
    return services


@dataclass(slots=True)
class DepthFigures:
    depth: int
    gold: int = 0
    found: int = 0
    chained: int = 0
    chained_found: int = 0
    hop2: int = 0
    hop2_found: int = 0
    complete: int = 0
    seeded_found: int = 0  # from the gold seed section instead of search hits
    passages: int = 0
    tokens: int = 0
    max_tokens: int = 0
    seconds: float = 0.0  # trace without the query embedding
    model_seconds: float = 0.0  # the query embedding
    traces: int = 0
    by_round: dict[int, list[int]] = field(default_factory=dict)  # round -> [found, gold]

    def score(self, q: Question, reached: set[tuple[str, str | None]]) -> list[tuple[str, str, int]]:
        hits = [g for g in q.gold if (g[0], g[1]) in reached]
        self.gold += len(q.gold)
        self.found += len(hits)
        counts = self.by_round.setdefault(q.round_no, [0, 0])
        counts[0] += len(hits)
        counts[1] += len(q.gold)
        self.chained += sum(1 for g in q.gold if g[2] >= 1)
        self.chained_found += sum(1 for h in hits if h[2] >= 1)
        self.hop2 += sum(1 for g in q.gold if g[2] >= 2)
        self.hop2_found += sum(1 for h in hits if h[2] >= 2)
        self.complete += len(hits) == len(q.gold)
        return [g for g in q.gold if g not in hits]

    def row(self, questions: int, budget: int) -> list[str]:
        per_trace = 1000 * self.seconds / max(1, self.traces)
        with_model = 1000 * (self.seconds + self.model_seconds) / max(1, self.traces)
        return [
            str(self.depth),
            f"{self.found / max(1, self.gold):.3f}",
            *(f"{f / max(1, g):.3f}" for f, g in (self.by_round.get(r, [0, 0]) for r in (2, 3, 4))),
            f"{self.chained_found / max(1, self.chained):.3f}",
            f"{self.hop2_found / max(1, self.hop2):.3f}",
            f"{self.complete}/{questions}",
            f"{self.seeded_found / max(1, self.gold):.3f}",
            f"{self.passages / max(1, questions):.1f}",
            f"{self.tokens / max(1, questions):.0f}",
            f"{self.max_tokens}/{budget}",
            f"{per_trace:.0f}",
            f"{with_model:.0f}",
        ]


HEADER = ["depth", "recall", "c01-c37", "n01-n23", "h01-h15", "recall hop>=1", "recall hop 2", "complete",
          "recall gold seed", "passages", "tokens", "max tokens/budget", "ms/trace",
          "ms incl. embedding (mean)"]  # fmt: skip


def grammar_mbps() -> str:
    """Grammar detector throughput on kb/sample (benchmarks/bench_grammar.py's measurement)."""
    try:
        from benchmarks.bench_grammar import load_texts
    except ImportError:  # run as a script: benchmarks/ is sys.path[0]
        from bench_grammar import load_texts  # type: ignore[no-redef]
    from rabbithole.references.grammar import detect_references

    texts = load_texts(SAMPLE)
    text = "\n\n".join(t for _, t in texts)
    best = float("inf")
    for _ in range(3):
        started = time.perf_counter()
        detect_references(text)
        best = min(best, time.perf_counter() - started)
    return f"{len(text.encode('utf-8')) / 1e6 / best:.2f} MB/s on {len(text.encode('utf-8')) / 1e6:.2f} MB"


def _seeded(engine: ReferenceEngine, q: Question, vector: Any, depth: int) -> set[tuple[str, str | None]]:
    """Sections reached from all chunks of the gold seed section (search left out; whole-document mentions
    followed by a search scoped to their document, as in `trace`)."""
    document, section, _ = q.gold[0]
    chunks = engine.passages.section_passages(document, section)
    relevance = engine.passages.relevance(vector)
    scores = relevance(chunks)
    seeds = [TracedPassage(c, 0, scores.get(c.id)) for c in chunks]
    search_document = engine.document_search(q.text, vector)
    result = engine.expander.expand(seeds, relevance, max_depth=depth, search_document=search_document)
    return {(p.chunk.document, p.chunk.section) for p in result.passages}


@dataclass(frozen=True, slots=True)
class SetFigures:
    """One question set's figures for one variant of the side-by-side: trace recall (pooled and per
    language; None where the set has no question of that language) and trace - hybrid recall."""

    trace: float
    de: float | None
    en: float | None
    gap: float


def current_goals(figures: dict[str, SetFigures]) -> list[Goal]:
    """The goals of the configured settings, from their figures per question set (SUBSETS' labels)."""
    goals = [
        Goal(
            f"trace recall >= {RECALL_GOAL} ({label})",
            figures[label].trace >= RECALL_GOAL - EPSILON,
            f"{figures[label].trace:.3f}",
        )
        for label in ("dev (c+n)", "all")
        if label in figures
    ]
    pooled = figures.get("all")
    if pooled is not None and pooled.de is not None and pooled.en is not None:
        goals.append(
            Goal(
                f"English trace recall within {LANGUAGE_GAP_GOAL} of German (all)",
                abs(pooled.en - pooled.de) <= LANGUAGE_GAP_GOAL + EPSILON,
                f"English {pooled.en:.3f}, German {pooled.de:.3f}",
            )
        )
    goals += [
        Goal(
            f"trace >= plain hybrid search + {GAP_GOAL:.2f} at the same passages ({label})",
            f.gap >= GAP_GOAL - EPSILON,
            f"{f.gap:+.3f}",
        )
        for label, f in figures.items()
    ]
    return goals


def run(
    data_dir: Path, depths: list[int], k: int | None, verbose: bool = False
) -> tuple[dict[int, DepthFigures], list[Goal]]:
    """Trace every question at every depth; print the tables; return the figures per depth and the goals of
    the configured settings at the default depth (none when the default depth is not among ``depths``)."""
    questions = load_questions()
    with open_sample(data_dir) as services:
        engine = services.reference_engine(COLLECTION)
        figures = {d: DepthFigures(d) for d in depths}
        embed_times: list[float] = []
        services.searcher.embed_query("warm-up")
        for q in questions:
            started = time.perf_counter()
            vector = services.searcher.embed_views(q.text, COLLECTION)
            embed_times.append(time.perf_counter() - started)
            for depth in depths:
                engine = ReferenceEngine(  # cold caches, as in one CLI call
                    COLLECTION,
                    searcher=services.searcher,
                    catalog=services.catalog,
                    vectors=services.store.open(COLLECTION),
                    registry=services.registry(COLLECTION),
                    settings=services.settings.references,
                )
                traced = engine.trace(q.text, depth=depth, k=k, query_vector=vector)
                f = figures[depth]
                missing = f.score(q, {(p.chunk.document, p.chunk.section) for p in traced.passages})
                seeded = _seeded(engine, q, vector, depth)
                f.seeded_found += sum(1 for g in q.gold if (g[0], g[1]) in seeded)
                f.passages += len(traced.passages)
                f.tokens += traced.result.tokens
                f.max_tokens = max(f.max_tokens, traced.result.tokens)
                f.seconds += traced.timings["total"]
                f.model_seconds += embed_times[-1]
                f.traces += 1
                if verbose and depth == max(depths) and missing:
                    print(f"{q.id} depth {depth}: missing {missing}", file=sys.stderr)
        budget = engine.expander.limits.token_budget
        default_depth = services.settings.references.max_depth
        default_k = services.settings.references.seeds
    rows = [figures[d].row(len(questions), budget) for d in depths]
    widths = [max(len(HEADER[i]), *(len(r[i]) for r in rows)) for i in range(len(HEADER))]
    print(f"reference chains: {len(questions)} questions, {figures[depths[0]].gold} gold sections, "
          f"k={k or default_k}, default depth {default_depth}, token budget {budget}")  # fmt: skip
    print("  ".join(h.rjust(w) for h, w in zip(HEADER, widths, strict=True)))
    for r in rows:
        print("  ".join(c.rjust(w) for c, w in zip(r, widths, strict=True)))
    print(f"query embedding (model time): median {1000 * statistics.median(embed_times):.0f} ms, "
          f"max {1000 * max(embed_times):.0f} ms; ms/trace leaves it out")  # fmt: skip
    print(f"grammar detector: {grammar_mbps()}")
    goals: list[Goal] = []
    if default_depth in figures:
        compared = side_by_side(data_dir, questions, default_depth, k, figures[default_depth])
        goals = current_goals(compared[CURRENT])
    return figures, goals


def _recall(pairs: list[tuple[Question, set[tuple[str, str | None]]]], lang: str | None = None) -> str:
    chosen = [(q, reached) for q, reached in pairs if lang is None or q.lang == lang]
    gold = sum(len(q.gold) for q, _ in chosen)
    found = sum(1 for q, reached in chosen for g in q.gold if (g[0], g[1]) in reached)
    return f"{found / max(1, gold):.3f} ({found}/{gold})"


Reached = set[tuple[str, str | None]]


def side_by_side(
    data_dir: Path, questions: list[Question], depth: int, k: int | None, f: DepthFigures
) -> dict[str, dict[str, SetFigures]]:
    """Trace against plain hybrid search with as many passages as that trace returns on average, per
    question set (dev, c01-c37, n01-n23, held-out h01-h15, all) and language: with round 1's retrieval
    and round 1's expansion (no seed-section scan) as the baseline, round 2's, the budget round's and the
    allocation round's allocation, this round's spread candidates with 15 hits (cap 7) and with the seed
    floor (cap 10), and the configured settings (where the context pays: seeds versus expansions).
    Returns {settings label: {set label: its figures}}."""
    from benchmarks.bench_quality import baseline_settings

    rows: list[list[str]] = []
    compared: dict[str, dict[str, SetFigures]] = {}
    with open_sample(data_dir) as services:
        searcher = services.searcher
        configured = searcher.settings
        references = services.settings.references
        #: the budget round's allocation: 15 seeds (every hit), relevance order, the token budget alone
        budget_round: dict[str, float | bool] = {"source_weight": 0.0, "max_reached": 0}
        #: round 2's allocation: 5 seeds, 4 chunks per cited section, cited sections taken again
        before: dict[str, float | bool] = {
            **budget_round,
            "section_chunks": 4,
            "skip_present_sections": False,
        }
        #: the allocation round (the default before this round): the first hit of each section among 15
        #: hits, candidates by priority alone
        previous = {"seeds": 15, "seed_floor": 0.0, "new_sections_first": False, "mention_lead": 0}
        fifteen = references.model_copy(update=previous)
        every_hit = fifteen.model_copy(update={"distinct_seed_sections": False})
        #: this round: per hop new sections first and at most 2 sections of one citation list ahead ...
        spread = fifteen.model_copy(update={"new_sections_first": True, "mention_lead": 2})
        #: ... and seeds: the hits among 25 scoring at least 0.45 of the first hit's
        floor = spread.model_copy(update={"seeds": 25, "seed_floor": 0.45})
        variants: list[tuple[str, Any, dict[str, float | bool], int | None, ReferenceSettings]] = [
            ("baseline (round 1)", baseline_settings(configured), {**before, "seed_section_chunks": 0}, 5,
             references),
            ("round 2 allocation", configured, before, 5, references),
            ("budget round allocation", configured, budget_round, k, every_hit),
            ("allocation round, no cap", configured, {"max_reached": 0}, k, fifteen),
            ("allocation round, compact (max_reached 7)", configured, {"max_reached": 7}, k, fifteen),
            ("spread, 15 hits, no cap (the default until 2026-11-24)", configured, {"max_reached": 0}, k,
             spread),
            ("spread, 15 hits, max_reached 7", configured, {"max_reached": 7}, k, spread),
            ("spread, seed floor 0.45 of 25 hits, max_reached 10", configured, {"max_reached": 10}, k, floor),
            ("current", configured, {}, k, references),
        ]  # fmt: skip
        for label, retrieval, limits, seeds, reference_settings in variants:
            searcher.settings = retrieval  # the engine searches through this searcher
            try:
                # per variant: the glossary's share of the vector (baseline: none) follows the settings
                vectors = {q.id: searcher.embed_views(q.text, COLLECTION) for q in questions}
                traced: dict[str, tuple[Reached, int]] = {}
                for q in questions:
                    engine = ReferenceEngine(
                        COLLECTION,
                        searcher=searcher,
                        catalog=services.catalog,
                        vectors=services.store.open(COLLECTION),
                        registry=services.registry(COLLECTION),
                        settings=reference_settings,
                        limits=ExpansionLimits.from_settings(reference_settings, **limits),
                    )
                    result = engine.trace(q.text, depth=depth, k=seeds, query_vector=vectors[q.id])
                    reached = {(p.chunk.document, p.chunk.section) for p in result.passages}
                    traced[q.id] = (reached, len(result.passages))
                compared[label] = {}
                for set_label, rounds in SUBSETS:
                    chosen = subset(questions, rounds)
                    if not chosen:
                        continue
                    passages = sum(traced[q.id][1] for q in chosen) / len(chosen)
                    plain_k = max(1, round(passages))
                    plain: list[tuple[Question, Reached]] = []
                    for q in chosen:
                        hits = searcher.search(q.text, COLLECTION, k=plain_k, query_vector=vectors[q.id])
                        plain.append((q, {(h.chunk.document, h.chunk.section) for h in hits}))
                    trace_pairs = [(q, traced[q.id][0]) for q in chosen]
                    gap = _share(trace_pairs) - _share(plain)
                    de, en = _lang_share(trace_pairs, "de"), _lang_share(trace_pairs, "en")
                    compared[label][set_label] = SetFigures(_share(trace_pairs), de, en, gap)
                    rows.append([label, set_label, _recall(trace_pairs), _recall(trace_pairs, "de"),
                                 _recall(trace_pairs, "en"), f"{passages:.1f}", str(plain_k), _recall(plain),
                                 _recall(plain, "de"), _recall(plain, "en"), f"{gap:+.3f}"])  # fmt: skip
            finally:
                searcher.settings = configured
    header = ["settings", "questions", "trace", "trace de", "trace en", "passages", "hybrid k", "hybrid",
              "hybrid de", "hybrid en", "trace - hybrid"]  # fmt: skip
    widths = [max(len(header[i]), *(len(r[i]) for r in rows)) for i in range(len(header))]
    print(f"trace (depth {depth}) vs plain hybrid search with as many passages (k = trace's mean):")
    print("  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)))
    for r in rows:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)))
    return compared


def _share(pairs: list[tuple[Question, Reached]]) -> float:
    gold = sum(len(q.gold) for q, _ in pairs)
    return sum(1 for q, reached in pairs for g in q.gold if (g[0], g[1]) in reached) / max(1, gold)


def _lang_share(pairs: list[tuple[Question, Reached]], lang: str) -> float | None:
    """``_share`` over the questions in ``lang``; None when the set has none."""
    chosen = [(q, reached) for q, reached in pairs if q.lang == lang]
    return _share(chosen) if chosen else None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--data-dir", type=Path, default=ROOT / "bench-data" / "references")
    parser.add_argument("--depths", default="0,1,2,3", help="comma-separated depths (default 0,1,2,3)")
    parser.add_argument("--k", type=int, default=None, help="search hits (default settings.references.seeds)")
    parser.add_argument("--verbose", "-v", action="store_true", help="list missed gold sections")
    args = parser.parse_args(argv)
    depths = sorted({int(d) for d in args.depths.split(",") if d.strip()})
    _, goals = run(args.data_dir, depths, args.k, args.verbose)
    if not goals:
        print("(no goals: the default depth is not among --depths)")
        return 0
    print()
    return 0 if print_goals(goals) else 1


if __name__ == "__main__":
    raise SystemExit(main())
