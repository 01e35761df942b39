"""Report mode (issue 10) on kb/sample against the fake Ollama: LLM calls of a 4-section report with one
refinement round, its wall time with the fake at 300 ms per call, parallel against concurrency 1, and
reports with the weak model beside the code before issue 24.

    python -m benchmarks.bench_report [--quick] [--repeat N] [--skip-calls] [--skip-weak]
                                      [--weak-questions rd02,rd18] [-v]

The shared sample index (bench-data/sample-*, ingested once) is copied into a scratch data dir. The fake
Ollama runs in its own process (``bench_research.FakeServer``), like a real Ollama. The outline is scripted
to four research sections (the fake would propose whatever its schema allows); everything else is the
fake's own deterministic answer. Measured:

1. LLM calls by kind of one report on TOPIC, approved as proposed, at the default depth and one refinement
   round (``report_mode.refinement_rounds = 1``), in three settings: the fake's own review (it names the
   sections its answer picks), a review that names all four sections (every section researched twice: the
   most one refinement round can cost), and in addition every grade failing (each section searches again
   up to ``report_mode.max_search_depth``: the most a report can cost). Goal: at most 150 for the second; the
   replaced report writer took about 560. Baseline: the same report without a refinement round.
2. Wall time of the first setting with the fake at 300 ms per call: the default concurrency against
   concurrency 1 in the same process, best of --repeat (alternating), beside the run without latency.
   Goal: at least 3x faster.
3. The weak model (issue 24; benchmarks/weak_model.py): reports on WEAK_TOPICS, four questions of the
   research dev set (German and English; a single-section, a reference-chain and two broad ones), with the
   outline the fake proposes approved as proposed, with the fake's normal and weak profiles, today's code
   beside the code before issue 24 (98d1430) in the same run: failed runs, guards triggered, sections
   assembled, tokens per run, quotes verbatim, gold recall of the cited sources, placeholder headings and
   repeated sentences in the final reports. Goals with the weak profile: 0 failed runs, 0 placeholder
   headings, 0 repeated sentences, quotes verbatim 100 %. --weak-questions picks others; --skip-weak leaves
   it out.
"""

from __future__ import annotations

import asyncio
import shutil
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchmarks.bench_research import FakeServer, load, ratio, warm_up
from benchmarks.common import (
    SAMPLE_COLLECTION,
    SAMPLE_DIR,
    Goal,
    base_parser,
    bench_settings,
    ensure_sample_index,
    machine_info,
    print_goals,
    print_table,
    remove_tree,
    scratch_dir,
)

if TYPE_CHECKING:
    from rabbithole.research.models import ResearchResult
    from rabbithole.services import Services

TOPIC = "Strahlenschutz beruflich exponierter Personen: Grenzwerte, Bereiche, Überwachung und Pflichten"
MAX_CALLS = 150  #: goal: LLM calls of a 4-section report with one refinement round
MIN_SPEEDUP = 3.0  #: goal: parallel against concurrency 1
LATENCY_MS = 300
LEGACY_CALLS = "about 560"  #: the replaced report writer (issue 10)
#: the weak model's report topics: research dev-set questions (de single, en chain, en broad, de broad)
WEAK_TOPICS = ("rd02", "rd12", "rd18", "rd19")

SECTIONS = [
    (
        "Dosisgrenzwerte",
        "Grenzwerte für beruflich exponierte Personen",
        "Dosisgrenzwerte berufliche Exposition",
    ),
    ("Strahlenschutzbereiche", "Wann Bereiche einzurichten sind", "Einrichtung von Strahlenschutzbereichen"),
    ("Überwachung", "Messung und Ermittlung der Körperdosis", "Ermittlung der Körperdosis"),
    ("Pflichten", "Pflichten des Strahlenschutzverantwortlichen", "Pflichten Strahlenschutzverantwortlicher"),
]
OUTLINE = {
    "title": "Strahlenschutz beruflich exponierter Personen",
    "sections": [
        {"title": t, "description": d, "research": True, "questions": [q], "corpus_queries": []}
        for t, d, q in SECTIONS
    ],
}
REVIEW_ALL = {
    "improve": [
        {"section": f"s{i}", "instructions": "Genauer und vollständiger", "queries": [f"{q} Ausnahmen"]}
        for i, (_t, _d, q) in enumerate(SECTIONS, start=1)
    ]
}
FAIL = {
    "passed": False,
    "missing": ["Einzelheiten"],
    "follow_up_queries": ["Einzelheiten"],
    "corpus_queries": [],
}


@dataclass(frozen=True, slots=True)
class TimedReport:
    result: ResearchResult
    seconds: float
    requests: int


async def report_run(
    services: Services,
    fake: FakeServer,
    overrides: Mapping[str, Any],
    scripts: Sequence[tuple[Any, str]] = (),
    *,
    latency_ms: int = 0,
) -> TimedReport:
    """One report approved as proposed, with the outline (and ``scripts``: (response, schema)) scripted,
    the fake answering after ``latency_ms`` (a reset of the fake clears its latency and scripts)."""
    from rabbithole.runs.runner import ResearchRunner

    fake.client.reset()
    fake.set_latency(latency_ms)
    fake.client.script(OUTLINE, schema="OutlineDraft")
    for response, schema in scripts:
        fake.client.script(response, schema=schema)
    before = fake.chat_requests()
    started = time.perf_counter()
    runner = ResearchRunner(services)
    record = runner.create(TOPIC, [SAMPLE_COLLECTION], "report", dict(overrides))
    view = await runner.advance(record.id)
    view = await runner.advance(record.id, {"action": "approve"})
    seconds = time.perf_counter() - started
    assert view.result is not None
    return TimedReport(view.result, seconds, fake.chat_requests() - before)


def print_calls(runs: Sequence[tuple[str, TimedReport]]) -> None:
    kinds = sorted({k for _, r in runs for k in r.result.llm_calls})
    rows: list[list[object]] = [[kind, *(r.result.llm_calls.get(kind, 0) for _, r in runs)] for kind in kinds]
    rows.append(["total (run)", *(sum(r.result.llm_calls.values()) for _, r in runs)])
    rows.append(["chat requests (fake)", *(r.requests for _, r in runs)])
    rows.append(
        ["sections refined", *(sum(1 for s in r.result.sections or [] if s.refined) for _, r in runs)]
    )
    rows.append(["search rounds", *(sum(s.rounds for s in r.result.sections or []) for _, r in runs)])
    rows.append(["sources", *(len(r.result.sources) for _, r in runs)])
    rows.append(["status", *(r.result.status for _, r in runs)])
    print_table(["LLM calls by kind", *(label for label, _ in runs)], rows)


async def measure(args: Any, data_dir: Path, shared: Path, goals: list[Goal]) -> None:
    from rabbithole.services import Services

    fake = FakeServer()
    try:
        settings = bench_settings(data_dir, llm=fake.llm_settings())
        settings = settings.model_copy(
            update={"report_mode": settings.report_mode.model_copy(update={"refinement_rounds": 1})}
        )
        async with Services(settings) as services:
            depth, concurrency = settings.references.max_depth, settings.research.concurrency
            print(
                f"fake Ollama at {fake.url}; depth {depth}, concurrency {concurrency}, "
                f"k {settings.research.k}, "
                f"max search depth {settings.report_mode.max_search_depth}, refinement rounds 1"
            )
            if not args.skip_calls:
                await measure_calls_and_time(args, services, fake, goals)
            if not args.skip_weak:
                measure_weak_reports(args, services, shared, goals)
    finally:
        fake.close()


async def measure_calls_and_time(args: Any, services: Services, fake: FakeServer, goals: list[Goal]) -> None:
    """Measurements 1 and 2: LLM calls by kind, and the wall time at 300 ms per call."""
    concurrency = services.settings.research.concurrency
    print(f"\n1. LLM calls of a 4-section report ({TOPIC!r})")
    fake.set_latency(0)
    warm_up(services)
    own = await report_run(services, fake, {})
    every = await report_run(services, fake, {}, [(REVIEW_ALL, "ReportReview")])
    runs = [("fake's review", own), ("review names all 4", every)]
    if not args.quick:
        worst = await report_run(
            services, fake, {}, [(REVIEW_ALL, "ReportReview"), (FAIL, "SectionGradeJudgement")]
        )
        runs.append(("all 4 + every grade fails", worst))
        runs.append(("baseline: no refinement", await report_run(services, fake, {"refinement_rounds": 0})))
    print_calls(runs)
    print(f"(the replaced report writer: {LEGACY_CALLS})")
    total = sum(every.result.llm_calls.values())
    goals.append(
        Goal(
            f"LLM calls of a 4-section report with 1 refinement round <= {MAX_CALLS}",
            total <= MAX_CALLS and len(every.result.sections or []) == 4,
            f"{total} calls with every section refined (fake's own review: "
            f"{sum(own.result.llm_calls.values())})",
        )
    )

    repeat = args.repeat or 1
    print(
        f"\n2. wall time with the fake Ollama at {LATENCY_MS} ms per call (fake's review; best of "
        f"{repeat}, parallel and serial alternating; the machine's load: {load()})"
    )
    bare = [own]
    parallel: list[TimedReport] = []
    serial: list[TimedReport] = []
    try:
        for _ in range(repeat):
            parallel.append(await report_run(services, fake, {}, latency_ms=LATENCY_MS))
            serial.append(await report_run(services, fake, {"concurrency": 1}, latency_ms=LATENCY_MS))
    finally:
        fake.set_latency(0)
    best = {k: min(v, key=lambda r: r.seconds) for k, v in (("bare", bare), ("p", parallel), ("s", serial))}
    speedup = ratio(best["s"].seconds, best["p"].seconds)
    rows: list[list[object]] = [
        [label, conc, best[key].seconds, " ".join(f"{r.seconds:.1f}" for r in runs_),
         best[key].requests, best[key].requests * latency / 1000, best[key].result.status]
        for label, key, conc, latency, runs_ in (
            ("without latency", "bare", concurrency, 0, bare),
            ("parallel", "p", concurrency, LATENCY_MS, parallel),
            ("baseline: serial", "s", 1, LATENCY_MS, serial),
        )
    ]  # fmt: skip
    headers = [
        "run",
        "concurrency",
        "best wall s",
        "all runs s",
        "chat requests",
        "latency sum s",
        "status",
    ]
    print_table(headers, rows)
    print(f"speed-up {speedup:.2f}x")
    goals.append(
        Goal(
            f"parallel report >= {MIN_SPEEDUP:.0f}x faster than concurrency 1 at {LATENCY_MS} ms per call",
            speedup >= MIN_SPEEDUP,
            f"{best['s'].seconds:.1f} s / {best['p'].seconds:.1f} s = {speedup:.2f}x "
            f"(concurrency {concurrency}, best of {repeat})",
            machine_dependent=True,
        )
    )


def measure_weak_reports(args: Any, services: Services, shared: Path, goals: list[Goal]) -> None:
    from benchmarks.bench_research import load_research_questions
    from benchmarks.weak_model import measure_weak

    wanted = [q.strip() for q in args.weak_questions.split(",") if q.strip()]
    by_id = {q.id: q for q in load_research_questions()}
    unknown = [q for q in wanted if q not in by_id]
    if unknown:
        raise SystemExit(f"--weak-questions: no dev-set question {', '.join(unknown)}")
    measure_weak(
        "report", services, shared, [by_id[q] for q in wanted], goals,
        title="3. the weak model: reports on dev-set questions, the fake's outline approved",
        verbose=args.verbose,
    )  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = base_parser(__doc__)
    parser.add_argument("--repeat", type=int, default=0, help="timed runs per setting (default 1)")
    parser.add_argument("--skip-calls", action="store_true", help="leave out measurements 1 and 2")
    parser.add_argument("--skip-weak", action="store_true", help="leave out the weak model (measurement 3)")
    parser.add_argument(
        "--weak-questions",
        default=",".join(WEAK_TOPICS),
        help="dev-set questions the weak model's reports are on (default: %(default)s)",
    )
    parser.add_argument("--verbose", "-v", action="store_true", help="list every weak-model run's problems")
    args = parser.parse_args(argv)
    print(f"machine: {machine_info()}")
    shared = ensure_sample_index(SAMPLE_DIR)
    work = scratch_dir("report")
    try:
        data_dir = work / "data"
        shutil.copytree(shared, data_dir)
        goals: list[Goal] = []
        asyncio.run(measure(args, data_dir, shared, goals))
    finally:
        remove_tree(work)
    return 0 if print_goals(goals) or args.quick else 1


if __name__ == "__main__":
    raise SystemExit(main())
