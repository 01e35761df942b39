"""Measurement 6 of bench_research: the token economy of the default quick run (issue 24). On CPU, prompt
tokens are the time a local model takes.

Every dev-set question as a default quick run (the configured settings, default depth) with the fake
Ollama's normal profile, in three settings measured in one benchmark run:

- ``today``: the configured code and settings, in this process;
- ``today, whole schema``: the same with ``llm.schema_prompt = full`` (the whole JSON schema in every
  structured step's system prompt, as before issue 24; the other prompt changes stay);
- ``before issue 24``: the code before issue 24 (98d1430, extracted from git: benchmarks/code_before.py;
  "baseline unavailable: <why>" without the history), in a worker process of its own
  (benchmarks/weak_worker.py) against the same fake server.

Per setting: the mean prompt tokens per run as the fake counted the run's chat requests (its
``prompt_eval_count``: the prompt's tokens up to ``num_ctx``; retries included), by step (the schema each
request asked for) and in all, with the output tokens, failed runs and the gold recall of the retrieved
passages (bench_research's measure) beside them; for today's code also ``result.llm_tokens``' total, and the
prompts the context window had to trim ("did not fit num_ctx" warnings, which drop passages).

Goals: today's prompt tokens per run at most half of the code before's, at equal gold recall (within 0.01);
0 "did not fit num_ctx" warnings over the dev set.
"""

from __future__ import annotations

import json
import logging
import shutil
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchmarks.code_before import ISSUE_24_BASE, code_before
from benchmarks.common import Goal, print_table, remove_tree, run_worker, scratch_dir

if TYPE_CHECKING:
    from benchmarks.bench_research import FakeServer, ResearchQuestion
    from benchmarks.weak_scoring import WeakRun
    from rabbithole.services import Services

TODAY, WHOLE_SCHEMA, BEFORE = "today", "today, whole schema", f"before issue 24 ({ISSUE_24_BASE})"
MAX_SHARE = 0.5  #: goal: today's prompt tokens per run at most this share of the code before's
RECALL_TOLERANCE = 0.01  #: ... at a gold recall at most this much lower
WORKER = "benchmarks.weak_worker"
WORKER_TIMEOUT_S = 1800.0
CHAT_PATHS = ("/api/chat", "/api/generate", "/v1/chat/completions")
TRIMMED = "did not fit num_ctx"  #: the context window's warning when it drops passages


class TrimCount(logging.Handler):
    """Counts the context window's "did not fit num_ctx" warnings (``rabbithole.llm.context``)."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if TRIMMED in record.getMessage():
            self.messages.append(record.getMessage())


def steps(records: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    """Prompt tokens by step (the schema a request asked for; "text" without one), as the fake counted
    them (up to ``num_ctx``)."""
    from rabbithole.devtools.fake_ollama.generation import DEFAULT_NUM_CTX

    out: dict[str, int] = {}
    for r in records:
        if r.get("status", 200) != 200:
            continue
        tokens = min(int(r.get("prompt_tokens") or 0), int(r.get("num_ctx") or DEFAULT_NUM_CTX))
        name = str(r.get("schema_name") or "text")
        out[name] = out.get(name, 0) + tokens
    return out


async def run_here(
    services: Services, fake: FakeServer, questions: Sequence[ResearchQuestion]
) -> list[dict[str, Any]]:
    """The questions as quick runs in this process, each recorded as the worker records its runs."""
    from benchmarks.bench_research import run_question
    from benchmarks.weak_worker import RECORD_FIELDS

    runs: list[dict[str, Any]] = []
    for q in questions:
        fake.client.reset()
        started = time.perf_counter()
        result, error = None, None
        try:
            result = (await run_question(services, q.question, {})).model_dump(mode="json")
        except Exception as exc:  # a failed run is a finding (and a miss), not the end of the benchmark
            error = f"{type(exc).__name__}: {exc}"
        records = [
            {k: r.get(k) for k in RECORD_FIELDS} for r in fake.client.requests if r.get("path") in CHAT_PATHS
        ]
        runs.append(
            {
                "id": q.id,
                "seconds": time.perf_counter() - started,
                "result": result,
                "error": error,
                "requests": records,
            }
        )
    fake.client.reset()
    return runs


def run_before(
    shared_index: Path, fake_url: str, questions: Sequence[ResearchQuestion]
) -> list[dict[str, Any]]:
    """The questions with the code before issue 24, in a worker on its own copy of the sample index; []
    with a line saying why when that code is unavailable."""
    before = code_before(ISSUE_24_BASE)
    if before.backend is None:
        print(f"baseline unavailable: {before.why}")
        return []
    work = scratch_dir("tokens-before")
    try:
        data_dir = work / "data"
        shutil.copytree(shared_index, data_dir)
        listed = work / "questions.json"
        listed.write_text(json.dumps([{"id": q.id, "question": q.question} for q in questions]), "utf-8")
        out = run_worker(
            WORKER,
            "research",
            {
                "data_dir": data_dir,
                "fake": fake_url,
                "profiles": "normal",
                "questions": listed,
                "expect_code": before.backend,
            },
            env={"PYTHONPATH": str(before.backend)},
            timeout_s=WORKER_TIMEOUT_S,
        )
    finally:
        remove_tree(work)
    runs: list[dict[str, Any]] = out["runs"]
    return runs


def mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else float("nan")


def recall(runs: Sequence[WeakRun]) -> float:
    gold = sum(r.gold for r in runs)
    return sum(r.retrieved_gold for r in runs) / gold if gold else float("nan")


def table(
    scored: Mapping[str, Sequence[WeakRun]], by_step: Mapping[str, Mapping[str, float]]
) -> tuple[list[str], list[list[object]]]:
    """Rows: prompt tokens per run by step (largest first today), the totals, the other measures."""
    labels = list(scored)
    names = sorted({n for s in by_step.values() for n in s}, key=lambda n: -by_step[labels[0]].get(n, 0.0))
    rows: list[list[object]] = [
        [f"prompt tokens / run: {n}", *(round(by_step[label].get(n, 0.0)) for label in labels)] for n in names
    ]
    rows += [
        ["prompt tokens / run", *(round(mean([r.prompt_tokens for r in scored[lb]])) for lb in labels)],
        ["output tokens / run", *(round(mean([r.output_tokens for r in scored[lb]])) for lb in labels)],
        ["chat requests / run", *(round(mean([r.requests for r in scored[lb]]), 1) for lb in labels)],
        ["runs (failed)", *(f"{len(scored[lb])} ({sum(r.failed for r in scored[lb])})" for lb in labels)],
        ["gold recall, retrieved", *(recall(scored[label]) for label in labels)],
    ]
    return ["measure", *labels], rows


async def measure_tokens(
    services: Services,
    fake: FakeServer,
    shared_index: Path,
    questions: Sequence[ResearchQuestion],
    goals: list[Goal],
) -> None:
    from benchmarks.weak_scoring import score_weak_run
    from rabbithole.services import Services as ServicesClass

    print(
        f"\n6. tokens of the default quick run: {len(questions)} dev questions at the default depth, the "
        "fake's normal profile; today, today with the whole JSON schema in each prompt (llm.schema_prompt = "
        f"full), and the code before issue 24 ({ISSUE_24_BASE})"
    )
    started = time.perf_counter()
    trims = TrimCount()
    context_log = logging.getLogger("rabbithole.llm.context")
    context_log.addHandler(trims)
    try:
        raw = {TODAY: await run_here(services, fake, questions)}
        today_trims = len(trims.messages)
        llm = services.settings.llm.model_copy(update={"schema_prompt": "full"})
        async with ServicesClass(
            services.settings.model_copy(update={"llm": llm}), share_with=services
        ) as whole:
            raw[WHOLE_SCHEMA] = await run_here(whole, fake, questions)
    finally:
        context_log.removeHandler(trims)
    if before := run_before(shared_index, fake.url, questions):
        raw[BEFORE] = before
    by_id = {q.id: q for q in questions}
    scored = {
        label: [score_weak_run(by_id[str(r["id"])], label, "normal", r, services) for r in runs]
        for label, runs in raw.items()
    }
    by_step: dict[str, dict[str, float]] = {}
    for label, runs in raw.items():
        totals: dict[str, int] = {}
        for r in runs:
            for name, tokens in steps(r["requests"]).items():
                totals[name] = totals.get(name, 0) + tokens
        by_step[label] = {name: tokens / len(runs) for name, tokens in totals.items()}
    headers, rows = table(scored, by_step)
    print_table(headers, rows)
    reported = [r.reported_tokens[0] for r in scored[TODAY] if r.reported_tokens]
    print(
        f"({sum(len(r) for r in raw.values())} runs in {time.perf_counter() - started:.0f} s; tokens as the "
        "fake counted the chat requests, retries included; today's result.llm_tokens: "
        f"{mean(reported):.0f} prompt tokens / run; prompts the context window trimmed: {today_trims} today, "
        f"{len(trims.messages) - today_trims} with the whole schema)"
    )
    today = mean([r.prompt_tokens for r in scored[TODAY]])
    whole_schema = mean([r.prompt_tokens for r in scored[WHOLE_SCHEMA]])
    print(f"today / whole schema: {today / whole_schema:.2f}")
    if BEFORE in scored:
        before_tokens = mean([r.prompt_tokens for r in scored[BEFORE]])
        share = today / before_tokens
        drop = recall(scored[BEFORE]) - recall(scored[TODAY])
        goals.append(
            Goal(
                f"prompt tokens per default quick run <= {MAX_SHARE:.0%} of the code before issue 24, gold "
                f"recall within {RECALL_TOLERANCE}",
                share <= MAX_SHARE and drop <= RECALL_TOLERANCE,
                f"{today:.0f} / {before_tokens:.0f} = {share:.2f}; gold recall {recall(scored[TODAY]):.3f} "
                f"(before {recall(scored[BEFORE]):.3f})",
            )
        )
    goals.append(
        Goal(
            "the default quick run fits num_ctx: 0 prompts trimmed over the dev set",
            today_trims == 0,
            f"{today_trims} 'did not fit num_ctx' warnings in {len(questions)} runs",
        )
    )
