"""The weak model (issue 24, "Measure"): research or report runs with the fake Ollama's normal and weak
profiles (docs/testing.md, "The weak model"), today's code beside the code before issue 24 (98d1430) in the
same benchmark run.

Both codes run the same questions in a worker process of their own (benchmarks/weak_worker.py), with
``PYTHONPATH`` naming the ``backend/`` folder to import: today's, or the code before's extracted from git
(benchmarks/code_before.py; "baseline unavailable: <why>" without the history). Each worker gets its own
copy of the sample index and talks to one fake Ollama server (today's fake, the only one with the weak
profile), which is reset and set to the profile before each run. This process scores every run with
today's measures, whichever code made it (benchmarks/weak_scoring.py):

- failed runs: the run raised or did not end ``done``;
- guards triggered: the sum of ``result.text_guards``' counts (what the guards changed in the model's text);
- sections assembled from the verified findings (``result.assembled_sections``, the fallback; the code before
  had none) and runs whose measured checks passed (``result.checks``; the code before had none);
- tokens per run: prompt and output tokens of the run's chat requests as the fake counted them (its
  ``prompt_eval_count``/``eval_count``: the prompt's tokens up to ``num_ctx``, the answer's pieces), and
  beside it what the run reports (``result.llm_tokens``; the code before reported none);
- quotes verbatim on their page and citations outside the retrieved set (bench_research's checks);
- gold recall of the cited sources (gold (document, section) pairs among ``result.sources``) beside that of
  the retrieved passages;
- placeholder headings and repeated sentences in the final report's Markdown (benchmarks/report_text.py).

Goals with the weak profile, today's code: 0 failed runs, 0 placeholder headings and 0 repeated sentences
in final reports, quotes verbatim 100 %, no citation outside the retrieved set.
"""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchmarks.code_before import ISSUE_24_BASE, code_before, code_now
from benchmarks.common import Goal, print_table, remove_tree, run_worker, scratch_dir
from benchmarks.weak_scoring import WeakRun, score_weak_run

if TYPE_CHECKING:
    from benchmarks.bench_research import ResearchQuestion
    from rabbithole.services import Services

PROFILES = ("normal", "weak")
CODES = ("now", "before")
WORKER = "benchmarks.weak_worker"
WORKER_TIMEOUT_S = 1800.0


# --- the table and the goals ------------------------------------------------------------------------------


def ratio(part: float, whole: float) -> float:
    return part / whole if whole else float("nan")


def mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else float("nan")


def summary_rows(runs: Sequence[WeakRun], labels: Mapping[str, str]) -> tuple[list[str], list[list[object]]]:
    """One row per measure, one column per (profile, code) that ran."""
    columns = [(p, c) for p in PROFILES for c in CODES if any(r.profile == p and r.code == c for r in runs)]
    groups = {(p, c): [r for r in runs if r.profile == p and r.code == c] for p, c in columns}

    def finished(key: tuple[str, str]) -> list[WeakRun]:
        return [r for r in groups[key] if not r.failed]

    def reported(key: tuple[str, str], i: int) -> object:
        values = [r.reported_tokens[i] for r in finished(key) if r.reported_tokens]
        return mean(values) if values else "n/a"

    def total(key: tuple[str, str], attr: str) -> int:
        return sum(int(getattr(r, attr)) for r in groups[key])

    def share(key: tuple[str, str], part: str, whole: str) -> str:
        return fraction(total(key, part), total(key, whole))

    measures: list[tuple[str, Any]] = [
        ("runs", lambda k: len(groups[k])),
        ("failed runs", lambda k: total(k, "failed")),
        ("guards triggered", lambda k: total(k, "guards")),
        ("sections assembled (fallback)", lambda k: total(k, "assembled")),
        ("measured checks passed", lambda k: checks_cell(finished(k))),
        ("answers the weak profile changed", lambda k: total(k, "weak_answers")),
        ("chat requests / run", lambda k: mean([r.requests for r in groups[k]])),
        ("prompt tokens / run (fake)", lambda k: mean([r.prompt_tokens for r in groups[k]])),
        ("output tokens / run (fake)", lambda k: mean([r.output_tokens for r in groups[k]])),
        ("prompt tokens / run (result)", lambda k: reported(k, 0)),
        ("output tokens / run (result)", lambda k: reported(k, 1)),
        ("quotes verbatim", lambda k: share(k, "verbatim", "quotes")),
        ("citations outside retrieved", lambda k: total(k, "outside")),
        ("gold recall, retrieved", lambda k: share(k, "retrieved_gold", "gold")),
        ("gold recall, cited", lambda k: share(k, "cited_gold", "gold")),
        ("placeholder headings", lambda k: sum(len(r.placeholders) for r in groups[k])),
        ("repeated sentences", lambda k: total(k, "repeated")),
        ("contradictions left (issue 30)", lambda k: sum(len(r.contradictions) for r in groups[k])),
        ("s / run", lambda k: mean([r.seconds for r in groups[k]])),
    ]  # fmt: skip
    headers = ["measure", *(f"{p}, {labels[c]}" for p, c in columns)]
    return headers, [[name, *(cell(k) for k in columns)] for name, cell in measures]


def fraction(part: int, whole: int) -> str:
    return f"{part}/{whole} = {ratio(part, whole):.3f}" if whole else "-"


def checks_cell(runs: Sequence[WeakRun]) -> str:
    measured = [r for r in runs if r.checks_passed is not None]
    return f"{sum(bool(r.checks_passed) for r in measured)}/{len(measured)}" if measured else "n/a"


def weak_goals(runs: Sequence[WeakRun], what: str) -> list[Goal]:
    """Issue 24's goals with the weak fake, today's code: no failed run, no placeholder heading, no
    repeated sentence, no contradiction left, quotes verbatim and no citation outside the retrieved set; a
    miss fails the benchmark."""
    weak = [r for r in runs if r.profile == "weak" and r.code == "now"]
    failed = sum(r.failed for r in weak)
    quotes, verbatim = sum(r.quotes for r in weak), sum(r.verbatim for r in weak)
    placeholders = sum(len(r.placeholders) for r in weak)
    repeated = sum(r.repeated for r in weak)
    left = sum(len(r.contradictions) for r in weak)
    outside = sum(r.outside for r in weak)
    before = [r for r in runs if r.profile == "weak" and r.code == "before"]

    def was(count: Any) -> str:
        return f"; before: {count(before)}" if before else ""

    def quotes_of(group: Sequence[WeakRun]) -> str:
        return f"{sum(r.verbatim for r in group)}/{sum(r.quotes for r in group)}"

    def failed_of(group: Sequence[WeakRun]) -> str:
        return f"{sum(r.failed for r in group)} of {len(group)}"

    return [
        Goal(f"{what}, weak model: 0 failed runs", bool(weak) and failed == 0,
             f"{failed_of(weak)}{was(failed_of)}"),
        Goal(f"{what}, weak model: 0 placeholder headings in final reports", bool(weak) and placeholders == 0,
             f"{placeholders}{was(lambda b: sum(len(r.placeholders) for r in b))}"),
        Goal(f"{what}, weak model: 0 repeated sentences in final reports", bool(weak) and repeated == 0,
             f"{repeated}{was(lambda b: sum(r.repeated for r in b))}"),
        Goal(f"{what}, weak model: 0 contradictions left in final reports", bool(weak) and left == 0,
             f"{left}{was(lambda b: sum(len(r.contradictions) for r in b))}"),
        Goal(f"{what}, weak model: quotes verbatim = 100%", quotes > 0 and verbatim == quotes,
             f"{quotes_of(weak)}{was(quotes_of)}"),
        Goal(f"{what}, weak model: citations outside the retrieved set = 0", outside == 0,
             f"{outside} of {sum(r.citations for r in weak)}"),
    ]  # fmt: skip


# --- running ----------------------------------------------------------------------------------------------


def run_code(
    kind: str,
    backend: Path,
    shared_index: Path,
    fake_url: str,
    questions: Sequence[ResearchQuestion],
) -> list[dict[str, Any]]:
    """The questions with every profile in a worker importing ``backend``'s rabbithole, on its own copy of
    the sample index."""
    work = scratch_dir(f"weak-{kind}")
    try:
        data_dir = work / "data"
        shutil.copytree(shared_index, data_dir)
        listed = work / "questions.json"
        listed.write_text(
            json.dumps([{"id": q.id, "question": q.question} for q in questions]), encoding="utf-8"
        )
        out = run_worker(
            WORKER,
            kind,
            {
                "data_dir": data_dir,
                "fake": fake_url,
                "profiles": ",".join(PROFILES),
                "questions": listed,
                "expect_code": backend,
            },
            env={"PYTHONPATH": str(backend)},
            timeout_s=WORKER_TIMEOUT_S,
        )
    finally:
        remove_tree(work)
    runs: list[dict[str, Any]] = out["runs"]
    return runs


def measure_weak(
    kind: str,
    services: Services,
    shared_index: Path,
    questions: Sequence[ResearchQuestion],
    goals: list[Goal],
    *,
    title: str,
    verbose: bool = False,
) -> list[WeakRun]:
    """Measure ``kind`` ("research" or "report") runs of ``questions`` with both profiles, today's code and
    the code before; print the table (and with ``verbose`` every run's problems) and add the goals."""
    from benchmarks.bench_research import FakeServer

    before = code_before(ISSUE_24_BASE)
    codes: list[tuple[str, Path]] = [("now", code_now())]
    if before.backend is not None:
        codes.append(("before", before.backend))
    print(
        f"\n{title}: {len(questions)} questions ({', '.join(q.id for q in questions)}), profiles "
        f"{' and '.join(PROFILES)}, today's code beside the code before issue 24 ({ISSUE_24_BASE})"
    )
    if before.backend is None:
        print(f"baseline unavailable: {before.why}")
    by_id = {q.id: q for q in questions}
    runs: list[WeakRun] = []
    started = time.perf_counter()
    fake = FakeServer("weak")
    try:
        for code, backend in codes:
            for raw in run_code(kind, backend, shared_index, fake.url, questions):
                question = by_id[str(raw["id"])]
                runs.append(score_weak_run(question, code, str(raw["profile"]), raw, services))
    finally:
        fake.close()
    labels = {"now": "today", "before": ISSUE_24_BASE}
    headers, rows = summary_rows(runs, labels)
    print_table(headers, rows)
    print(
        f"({len(runs)} runs in {time.perf_counter() - started:.0f} s, workers included; tokens (fake): as "
        "the fake counted the run's chat requests, retries included; (result): result.llm_tokens' total)"
    )
    if verbose:
        for run in runs:
            if run.problems:
                print(f"  {run.question.id} {run.profile}, {labels[run.code]} ({run.status}):")
                for problem in run.problems:
                    print(f"    {problem}")
    goals.extend(weak_goals(runs, kind))
    return runs
