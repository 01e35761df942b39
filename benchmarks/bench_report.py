"""Report mode (issue 10) on kb/sample against the fake Ollama: LLM calls of a 4-section report with one
refinement round, and its wall time with the fake at 300 ms per call, parallel against concurrency 1.

    python -m benchmarks.bench_report [--quick] [--repeat N]

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
    from rabbithole.research.runner import ResearchRunner

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


async def measure(args: Any, data_dir: Path, goals: list[Goal]) -> None:
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
                runs.append(
                    ("baseline: no refinement", await report_run(services, fake, {"refinement_rounds": 0}))
                )
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
            best = {
                k: min(v, key=lambda r: r.seconds)
                for k, v in (("bare", bare), ("p", parallel), ("s", serial))
            }
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
                    f"parallel report >= {MIN_SPEEDUP:.0f}x faster than concurrency 1 "
                    f"at {LATENCY_MS} ms per call",
                    speedup >= MIN_SPEEDUP,
                    f"{best['s'].seconds:.1f} s / {best['p'].seconds:.1f} s = {speedup:.2f}x "
                    f"(concurrency {concurrency}, best of {repeat})",
                    machine_dependent=True,
                )
            )
    finally:
        fake.close()


def main(argv: list[str] | None = None) -> int:
    parser = base_parser(__doc__)
    parser.add_argument("--repeat", type=int, default=0, help="timed runs per setting (default 1)")
    args = parser.parse_args(argv)
    print(f"machine: {machine_info()}")
    shared = ensure_sample_index(SAMPLE_DIR)
    work = scratch_dir("report")
    try:
        data_dir = work / "data"
        shutil.copytree(shared, data_dir)
        goals: list[Goal] = []
        asyncio.run(measure(args, data_dir, goals))
    finally:
        remove_tree(work)
    return 0 if print_goals(goals) or args.quick else 1


if __name__ == "__main__":
    raise SystemExit(main())
