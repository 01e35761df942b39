"""The research run (issue 7) on kb/sample against the fake Ollama: LLM calls, parallel speed-up, and the
research dev set (benchmarks/data/research_dev.yaml).

    python -m benchmarks.bench_research [--quick] [--questions rd01,rd12] [--skip-timing] [--skip-dev]
                                        [--skip-languages] [--skip-weak] [--weak-full] [--skip-tokens] [-v]

The shared sample index (bench-data/sample-*, ingested once) is copied into a scratch data dir, so the runs'
registry and checkpoints never touch it. The LLM is the fake Ollama server (rabbithole.devtools.fake_ollama:
deterministic answers, structured output honoured), started in its own process like a real Ollama, so its
answer generation does not share this process's interpreter lock; embeddings and search are the real ones.
Measured:

1. LLM calls of one quick run (question rd18, English over the German laws) by kind, as the run reports
   them (``ResearchResult.llm_calls``) and as the fake server recorded them (chat requests, retries
   included): with the configured settings (the fake plans the fewest tasks the plan schema allows: 3) and
   with a plan of 5 tasks (``research.min_tasks = 5``). Goal: at most 50 for 5 tasks at the default depth
   (40 before issue 24's report in sections; see MAX_CALLS).
   Baseline: the 5-task run at depth 0.
2. Wall time of the 5-task run with the fake at 300 ms per call: default concurrency against concurrency 1
   in the same process, best of --repeat runs each (alternating; the machine may be shared), beside the
   same run without latency. Goal: at least 3x faster.
3. The dev set (fake without latency), each question at depth 0 and at the default depth:
   - quotes verbatim: ``page_text[start:end] == quote`` on the stored page (``catalog.pages``). Goal 100%.
   - citations outside the retrieved set: a source whose quote does not lie inside a passage of
     ``result.retrieved_chunks`` (by offsets in the document text), or whose reference chain ends in a passage
     that is not in it. Goal 0.
   - gold recall: gold (document, section) pairs among the retrieved passages, German and English apart;
     depth 0 is the baseline of the default depth.
   - assessment accuracy: ``result.answerable`` against the question's ``answerable`` flag. The fake model
     judges every question answerable and never asks for live data, so against it this measures only the
     retrieval side of the decision (best similarity below ``research.assess_floor`` declines); a real
     model's judgement decides between the floor and ``research.assess_clear``.
   A run that fails counts as finding no gold section and judging wrongly; it is listed and counted.
4. English against German (issue 24; benchmarks/research_languages.py): the dev set's gold recall by language
   with the translation views and without them (``research.translation_views = false``, the code before),
   with the fake's translation (dropped by the language check) and with a scripted one (German translations
   written by hand). Goal: English within 0.05 of German at the default depth, with and without.

5. The weak model (issue 24; benchmarks/weak_model.py): quick runs at the default depth with the fake's
   normal and weak profiles (docs/testing.md, "The weak model"), today's code beside the code before issue 24
   (98d1430) in the same run, each in a worker process of its own: failed runs, guards triggered, sections
   assembled, measured checks passed, tokens per run, quotes verbatim, citations outside the retrieved set,
   gold recall of the cited sources beside the retrieved ones, placeholder headings and repeated sentences
   in the final reports. Goals with the weak profile: 0 failed runs, 0 placeholder headings, 0 repeated
   sentences, quotes verbatim 100 %. Over the --quick subset (8 questions) unless --weak-full or
   --questions; --skip-weak leaves it out.
6. Tokens of the default quick run (issue 24; benchmarks/research_tokens.py): prompt tokens per run by step
   and in all, with the gold recall beside them, today, today with the whole JSON schema in each prompt
   (llm.schema_prompt = full) and the code before issue 24 (98d1430, a worker process) in the same run; the
   prompts the context window trimmed. Goals: at most half of the code before's prompt tokens at equal gold
   recall (within 0.01); 0 prompts trimmed. --skip-tokens leaves it out.

--quick: one question per language and kind (8 of 24) and no depth-0 pass of the call count; goals are
indicative then.
"""

from __future__ import annotations

import asyncio
import shutil
import statistics
import time
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from benchmarks.common import (
    DATA_DIR,
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
    from rabbithole.research.models import ResearchResult, Source
    from rabbithole.services import Services

RESEARCH_DEV = DATA_DIR / "research_dev.yaml"
CALLS_QUESTION = "rd18"  #: the question of the call count and the timing (English, broad, 3 gold sections)
#: goal: LLM calls of a default quick run with 5 tasks. 40 until issue 24; since then the report is written
#: one call per section (5) with one rewrite of the sections the checks fail (up to 5 more: the fake's German
#: sentences fail an English question's language check in every section), where one report call and its
#: language retry stood, and an English question's translation is one call: 50. The calls are smaller:
#: prompt tokens per run fell by 27% (measurement 6), which is what a model on CPU pays for.
MAX_CALLS = 50
MIN_SPEEDUP = 3.0  #: goal: parallel against concurrency 1
LATENCY_MS = 300  #: fake Ollama latency per call for the timing
LEGACY_CALLS = "about 120 + 1 per reference"  #: the replaced system's default run (issue 7)


# --- the dev set --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ResearchQuestion:
    id: str
    lang: str
    kind: str  # single | chain | broad | unanswerable
    answerable: bool
    question: str
    gold: tuple[tuple[str, str], ...]  # (document, section label); every one is needed


def load_research_questions(path: Path = RESEARCH_DEV) -> list[ResearchQuestion]:
    import yaml

    data: dict[str, Any] = yaml.safe_load(path.read_text(encoding="utf-8"))
    questions = [
        ResearchQuestion(
            id=str(q["id"]),
            lang=str(q["lang"]),
            kind=str(q["kind"]),
            answerable=bool(q["answerable"]),
            question=str(q["question"]),
            gold=tuple((str(g["document"]), str(g["section"])) for g in q.get("gold") or ()),
        )
        for q in data["questions"]
    ]
    ids = [q.id for q in questions]
    if len(set(ids)) != len(ids):
        raise ValueError(f"{path}: duplicate question ids")
    for q in questions:
        if q.answerable == (not q.gold):
            raise ValueError(f"{path}: {q.id}: an answerable question needs gold sections, only it")
    return questions


def quick_subset(questions: Sequence[ResearchQuestion]) -> list[ResearchQuestion]:
    """The first question of every (language, kind) pair, in file order."""
    seen: set[tuple[str, str]] = set()
    out = []
    for q in questions:
        if (q.lang, q.kind) not in seen:
            seen.add((q.lang, q.kind))
            out.append(q)
    return out


# --- scoring: pure functions over a ResearchResult ------------------------------------------------------


class ChunkLike(Protocol):
    """What scoring needs of a retrieved passage (rabbithole.core.models.Chunk has it)."""

    @property
    def document(self) -> str: ...
    @property
    def section(self) -> str | None: ...
    @property
    def start(self) -> int: ...  # offset in the document text
    @property
    def end(self) -> int: ...


@dataclass(frozen=True, slots=True)
class PageRef:
    """A stored page: its text and where it starts in the document text."""

    text: str
    offset: int


PageKey = tuple[str, str, int]  # (collection, document, page number)


def page_key(source: Source) -> PageKey:
    return (source.collection, source.document, source.page)


@dataclass(frozen=True, slots=True)
class QuoteCheck:
    n: int
    verbatim: bool
    reason: str  # "" when verbatim


def check_quote(source: Source, page: PageRef | None) -> QuoteCheck:
    """Is the source's quote exactly the page text between its offsets (and not empty)?"""
    if page is None:
        return QuoteCheck(source.n, False, f"no page {source.page} of {source.document}")
    if not source.quote.strip():
        return QuoteCheck(source.n, False, "empty quote")
    if not 0 <= source.start < source.end <= len(page.text):
        return QuoteCheck(source.n, False, f"offsets {source.start}:{source.end} outside the page")
    cut = page.text[source.start : source.end]
    if cut != source.quote:
        return QuoteCheck(source.n, False, f"page text differs: {cut[:60]!r} vs {source.quote[:60]!r}")
    return QuoteCheck(source.n, True, "")


def check_quotes(result: ResearchResult, pages: Mapping[PageKey, PageRef]) -> list[QuoteCheck]:
    return [check_quote(s, pages.get(page_key(s))) for s in result.sources]


def source_outside(
    source: Source,
    retrieved: Mapping[str, ChunkLike],
    page: PageRef | None,
) -> str:
    """Why the source lies outside the retrieved passages ("" when it lies inside).

    ``retrieved``: the run's retrieved chunks by id (``result.retrieved_chunks`` looked up in the source's
    collection). Inside means: its quote, placed in the document text by the page's offset, lies within a
    retrieved passage of the same document, and the reference chain, when there is one, ends in a retrieved
    passage.
    """
    if source.chain and source.chain[-1].chunk_id not in retrieved:
        return f"chain ends in {source.chain[-1].chunk_id}, which the run did not retrieve"
    if page is None:
        return f"no page {source.page} of {source.document}"
    start, end = page.offset + source.start, page.offset + source.end
    for chunk in retrieved.values():
        if chunk.document == source.document and chunk.start <= start and end <= chunk.end:
            return ""
    return f"{source.document} p. {source.page} [{source.start}:{source.end}] is in no retrieved passage"


def outside_citations(
    result: ResearchResult,
    retrieved: Mapping[str, Mapping[str, ChunkLike]],
    pages: Mapping[PageKey, PageRef],
) -> list[tuple[int, str]]:
    """(n, reason) of every source outside the retrieved set; ``retrieved``: collection -> id -> chunk,
    holding only ids of ``result.retrieved_chunks``."""
    wanted = set(result.retrieved_chunks)
    out = []
    for source in result.sources:
        chunks = {i: c for i, c in retrieved.get(source.collection, {}).items() if i in wanted}
        reason = source_outside(source, chunks, pages.get(page_key(source)))
        if reason:
            out.append((source.n, reason))
    return out


def norm_section(label: str | None) -> str:
    """Comparable section label ("§ 80" = "§80"), as retrieval scores it."""
    from rabbithole.retrieval.filters import section_key

    return section_key(label)


def gold_found(
    question: ResearchQuestion, sections: Iterable[tuple[str, str | None]]
) -> tuple[int, list[tuple[str, str]]]:
    """How many gold sections are among the (document, section) pairs, and which are missing."""
    reached = {(document, norm_section(section)) for document, section in sections}
    missing = [g for g in question.gold if (g[0], norm_section(g[1])) not in reached]
    return len(question.gold) - len(missing), missing


def assessment_correct(question: ResearchQuestion, result: ResearchResult) -> bool:
    return result.answerable == question.answerable


@dataclass(slots=True)
class RunScore:
    """One dev-set question at one depth."""

    question: ResearchQuestion
    depth: str  # "0" or "default"
    status: str
    quotes: int
    verbatim: int
    citations: int  # sources
    outside: int
    gold: int
    found: int
    assessment_ok: bool
    calls: int
    seconds: float
    problems: list[str] = field(default_factory=list)
    finished: bool = True


def failed_run(question: ResearchQuestion, depth: str, error: str) -> RunScore:
    """A run that raised: it found nothing and judged nothing (it counts as a miss in recall and accuracy)."""
    return RunScore(
        question=question,
        depth=depth,
        status="failed",
        quotes=0,
        verbatim=0,
        citations=0,
        outside=0,
        gold=len(question.gold),
        found=0,
        assessment_ok=False,
        calls=0,
        seconds=0.0,
        problems=[f"run failed: {error}"],
        finished=False,
    )


def score_run(
    question: ResearchQuestion,
    depth: str,
    result: ResearchResult,
    retrieved: Mapping[str, Mapping[str, ChunkLike]],
    pages: Mapping[PageKey, PageRef],
    seconds: float,
) -> RunScore:
    quotes = check_quotes(result, pages)
    outside = outside_citations(result, retrieved, pages)
    sections = [(c.document, c.section) for chunks in retrieved.values() for c in chunks.values()]
    found, missing = gold_found(question, sections)
    problems = [f"[{q.n}] quote: {q.reason}" for q in quotes if not q.verbatim]
    problems += [f"[{n}] outside: {why}" for n, why in outside]
    problems += [f"gold missing: {d} {s}" for d, s in missing]
    if not assessment_correct(question, result):
        problems.append(f"assessment: answerable={result.answerable}, expected {question.answerable}")
    return RunScore(
        question=question,
        depth=depth,
        status=result.status,
        quotes=len(quotes),
        verbatim=sum(q.verbatim for q in quotes),
        citations=len(result.sources),
        outside=len(outside),
        gold=len(question.gold),
        found=found,
        assessment_ok=assessment_correct(question, result),
        calls=sum(result.llm_calls.values()),
        seconds=seconds,
        problems=problems,
    )


def ratio(part: float, whole: float) -> float:
    return part / whole if whole else float("nan")


def mean(values: Sequence[float]) -> float:
    return statistics.fmean(values) if values else float("nan")


def dev_rows(scores: Sequence[RunScore]) -> list[list[object]]:
    """Per depth and language: runs, gold recall, quotes verbatim, outside citations, assessment."""
    rows: list[list[object]] = []
    for depth in dict.fromkeys(s.depth for s in scores):
        for lang in ("de", "en", "all"):
            subset = [s for s in scores if s.depth == depth and (lang == "all" or s.question.lang == lang)]
            if not subset:
                continue
            rows.append(
                [
                    depth,
                    lang,
                    len(subset),
                    f"{sum(s.found for s in subset)}/{sum(s.gold for s in subset)}",
                    ratio(sum(s.found for s in subset), sum(s.gold for s in subset)),
                    sum(s.found == s.gold for s in subset if s.gold),
                    ratio(sum(s.verbatim for s in subset), sum(s.quotes for s in subset)),
                    sum(s.citations for s in subset),
                    sum(s.outside for s in subset),
                    ratio(sum(s.assessment_ok for s in subset), len(subset)),
                    sum(not s.finished for s in subset),
                    mean([s.calls for s in subset if s.finished]),
                    mean([s.seconds for s in subset if s.finished]),
                ]
            )
    return rows


DEV_HEADER = ["depth", "lang", "runs", "gold found", "gold recall", "complete", "quotes verbatim",
              "citations", "outside", "assessment acc.", "failed", "calls/run", "s/run"]  # fmt: skip


# --- running ------------------------------------------------------------------------------------------


async def run_question(services: Services, question: str, overrides: Mapping[str, Any]) -> ResearchResult:
    """One quick research run over the sample collection."""
    from rabbithole.runs.runner import run_research

    result: ResearchResult = await run_research(
        services, question, collections=[SAMPLE_COLLECTION], mode="quick", overrides=dict(overrides)
    )
    return result


def lookups(
    services: Services, result: ResearchResult
) -> tuple[dict[str, dict[str, Any]], dict[PageKey, PageRef]]:
    """The run's retrieved chunks (collection -> id -> chunk) and the pages its sources cite."""
    collections = {s.collection for s in result.sources} | {SAMPLE_COLLECTION}
    retrieved = {c: services.catalog.get_chunks(c, result.retrieved_chunks) for c in collections}
    pages: dict[PageKey, PageRef] = {}
    for collection, document in {(s.collection, s.document) for s in result.sources}:
        for page in services.catalog.pages(collection, document):
            pages[(collection, document, page.number)] = PageRef(page.text, page.offset)
    return retrieved, pages


CHAT_PATHS = ("/api/chat", "/api/generate", "/v1/chat/completions")


class FakeServer:
    """The fake Ollama in its own process, as a real Ollama would be: in this process its answer generation
    would share the interpreter lock with the run it serves and distort the timings. Controlled over HTTP
    (``FakeOllamaClient``). ``profile``: how it answers (``normal``, or ``weak``: as the 0.5B model of
    issue 24 did; docs/testing.md, "The weak model"); its reset returns to it."""

    def __init__(self, profile: str = "normal") -> None:
        import subprocess
        import sys
        import threading

        import httpx

        from rabbithole.devtools.fake_ollama import FakeOllamaClient

        # port 0: the server binds a free port and names it on its first line (no race for the port)
        command = [sys.executable, "-m", "rabbithole.devtools.fake_ollama", "--port", "0"]
        command += ["--profile", profile]
        self.profile = profile
        self._process = subprocess.Popen(
            command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
        )
        assert self._process.stderr is not None
        first = self._process.stderr.readline()
        if not first.startswith("fake ollama listening on "):
            self.close()
            raise RuntimeError(f"the fake Ollama server did not start ({' '.join(command)}): {first.strip()}")
        self.url = first.split()[-1]
        stderr = self._process.stderr  # drained, so the server never blocks on a full pipe
        threading.Thread(target=lambda: [None for _ in stderr], daemon=True).start()
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(self.url, timeout=1.0).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if self._process.poll() is not None or time.monotonic() > deadline:
                self.close()
                raise RuntimeError(f"the fake Ollama server did not start ({' '.join(command)})")
            time.sleep(0.2)
        self.client = FakeOllamaClient(self.url, timeout_s=60.0)

    def llm_settings(self) -> Any:
        from rabbithole.core.config import LLMSettings

        return LLMSettings(base_url=self.url, request_timeout_s=60.0)

    def set_latency(self, latency_ms: int) -> None:
        self.client.set_latency(latency_ms)

    def chat_requests(self) -> int:
        return sum(1 for r in self.client.requests if r.get("path") in CHAT_PATHS)

    def close(self) -> None:
        if hasattr(self, "client"):
            self.client.close()
        self._process.terminate()
        try:
            self._process.wait(timeout=10)
        except Exception:
            self._process.kill()


def warm_up(services: Services) -> None:
    """Build what a first run would otherwise build inside its timing (embedding model, indexes)."""
    services.searcher.run("warm-up", SAMPLE_COLLECTION, k=1)
    services.reference_engine(SAMPLE_COLLECTION)


@dataclass(frozen=True, slots=True)
class TimedRun:
    result: ResearchResult
    seconds: float
    requests: int  # chat requests the fake server recorded during the run


async def timed_run(
    services: Services, fake: FakeServer, question: str, overrides: Mapping[str, Any]
) -> TimedRun:
    before = fake.chat_requests()
    started = time.perf_counter()
    result = await run_question(services, question, overrides)
    seconds = time.perf_counter() - started
    return TimedRun(result, seconds, fake.chat_requests() - before)


def print_calls(runs: Sequence[tuple[str, TimedRun]]) -> None:
    kinds = sorted({k for _, r in runs for k in r.result.llm_calls})
    rows: list[list[object]] = [[kind, *(r.result.llm_calls.get(kind, 0) for _, r in runs)] for kind in kinds]
    rows.append(["total (run)", *(sum(r.result.llm_calls.values()) for _, r in runs)])
    rows.append(["chat requests (fake)", *(r.requests for _, r in runs)])
    rows.append(["tasks", *(len(r.result.tasks) for _, r in runs)])
    rows.append(["status", *(r.result.status for _, r in runs)])
    print_table(["LLM calls by kind", *(label for label, _ in runs)], rows)


async def measure_calls_and_time(
    default_services: Services,
    five_services: Services,
    fake: FakeServer,
    question: ResearchQuestion,
    quick: bool,
    repeat: int,
    goals: list[Goal],
) -> None:
    """``default_services``: the configured settings (the fake plans as few tasks as the plan schema
    allows); ``five_services``: the same with ``research.min_tasks = 5``, so the plan has 5 tasks, the
    size the goals name."""
    settings = five_services.settings
    default_depth = settings.references.max_depth
    concurrency = settings.research.concurrency
    print(f"\n1. LLM calls of one quick run ({question.id}: {question.question!r})")
    fake.set_latency(0)
    for services in (default_services, five_services):  # load the embedder and the reference engine once
        warm_up(services)
    planned = await timed_run(default_services, fake, question.question, {})
    five = await timed_run(five_services, fake, question.question, {})
    runs = [
        (f"default plan, depth {default_depth}", planned),
        (f"5 tasks, depth {default_depth}", five),
    ]
    if not quick:
        runs.append(
            (
                "baseline: 5 tasks, depth 0",
                await timed_run(five_services, fake, question.question, {"depth": 0}),
            )
        )
    print_calls(runs)
    print(f"(the replaced system: {LEGACY_CALLS})")
    total = sum(five.result.llm_calls.values())
    tasks = len(five.result.tasks)
    goals.append(
        Goal(
            f"LLM calls of a quick run with 5 tasks at the default depth <= {MAX_CALLS}",
            total <= MAX_CALLS and tasks == 5,
            f"{total} calls for {tasks} tasks at depth {default_depth} (fake recorded {five.requests})",
            # the five tasks dig in parallel, and the passages each one reaches (so its extraction batches)
            # depend on the order they finish: 39 calls in 12 runs on a quiet machine, 40-42 in 5 runs
            # during or just after a CI run
            machine_dependent=True,
        )
    )

    print(
        f"\n2. wall time of the 5-task run with the fake Ollama at {LATENCY_MS} ms per call "
        f"(best of {repeat}, parallel and serial alternating; the machine's load: {load()})"
    )
    bare = [five]
    for _ in range(repeat - 1):
        bare.append(await timed_run(five_services, fake, question.question, {}))
    parallel_runs: list[TimedRun] = []
    serial_runs: list[TimedRun] = []
    fake.set_latency(LATENCY_MS)
    try:
        for _ in range(repeat):
            parallel_runs.append(await timed_run(five_services, fake, question.question, {}))
            serial_runs.append(await timed_run(five_services, fake, question.question, {"concurrency": 1}))
    finally:
        fake.set_latency(0)
    best = {
        label: min(runs, key=lambda r: r.seconds)
        for label, runs in (("bare", bare), ("parallel", parallel_runs), ("serial", serial_runs))
    }
    speedup = ratio(best["serial"].seconds, best["parallel"].seconds)
    rows: list[list[object]] = [
        [label, conc, best[key].seconds, " ".join(f"{r.seconds:.1f}" for r in runs), best[key].requests,
         best[key].requests * latency / 1000, len(best[key].result.tasks), best[key].result.status]
        for label, key, conc, latency, runs in (
            ("without latency", "bare", concurrency, 0, bare),
            ("parallel", "parallel", concurrency, LATENCY_MS, parallel_runs),
            ("baseline: serial", "serial", 1, LATENCY_MS, serial_runs),
        )
    ]  # fmt: skip
    print_table(
        [
            "run",
            "concurrency",
            "best wall s",
            "all runs s",
            "chat requests",
            "latency sum s",
            "tasks",
            "status",
        ],
        rows,
    )
    bare_s = best["bare"].seconds
    wait_serial, wait_parallel = best["serial"].seconds - bare_s, best["parallel"].seconds - bare_s
    print(
        f"speed-up {speedup:.2f}x. The run without latency ({bare_s:.1f} s: embedding, search, graph, the "
        f"fake's own work) is in both; the time the latency adds: serial {wait_serial:.1f} s, parallel "
        f"{wait_parallel:.1f} s ({ratio(wait_serial, wait_parallel):.1f}x)"
    )
    goals.append(
        Goal(
            f"parallel run >= {MIN_SPEEDUP:.0f}x faster than concurrency 1 at {LATENCY_MS} ms per call",
            speedup >= MIN_SPEEDUP,
            f"{best['serial'].seconds:.1f} s / {best['parallel'].seconds:.1f} s = {speedup:.2f}x "
            f"(concurrency {concurrency}, {len(best['parallel'].result.tasks)} tasks, best of {repeat})",
            machine_dependent=True,
        )
    )


def load() -> str:
    import os

    try:
        return "{:.1f}/{:.1f}/{:.1f}".format(*os.getloadavg())
    except OSError:  # pragma: no cover
        return "?"


async def measure_dev(
    services: Services, questions: Sequence[ResearchQuestion], verbose: bool, goals: list[Goal]
) -> list[RunScore]:
    default_depth = services.settings.references.max_depth
    print(f"\n3. research dev set: {len(questions)} questions, depth 0 and the default depth {default_depth}")
    scores: list[RunScore] = []
    for depth, overrides in (("0", {"depth": 0}), ("default", {})):
        for q in questions:
            started = time.perf_counter()
            try:
                result = await run_question(services, q.question, overrides)
            except Exception as exc:  # a failed run is a finding (and a miss), not the end of the benchmark
                print(f"  {q.id} {q.lang} {q.kind} depth {depth}: run failed: {type(exc).__name__}: {exc}")
                scores.append(failed_run(q, depth, f"{type(exc).__name__}: {exc}"))
                continue
            seconds = time.perf_counter() - started
            retrieved, pages = lookups(services, result)
            score = score_run(q, depth, result, retrieved, pages, seconds)
            scores.append(score)
            if verbose and score.problems:
                print(f"  {q.id} {q.lang} {q.kind} depth {depth} ({result.status}, {result.language}):")
                for problem in score.problems:
                    print(f"    {problem}")
                sections = dict.fromkeys(
                    f"{c.document.removesuffix('.pdf')} {c.section}" for by_id in retrieved.values()
                    for c in by_id.values()
                )  # fmt: skip
                print(
                    f"    retrieved {len(result.retrieved_chunks)} passages: {', '.join(list(sections)[:16])}"
                )
                for warning in result.warnings[:5]:
                    print(f"    warning: {warning[:160]}")
    print_table(DEV_HEADER, dev_rows(scores), title="(depth 0 is the baseline of the default depth)")
    failed = sum(not s.finished for s in scores)
    default = [s for s in scores if s.depth == "default"]
    quotes, verbatim = sum(s.quotes for s in scores), sum(s.verbatim for s in scores)
    outside = sum(s.outside for s in scores)
    goals.append(Goal("quotes verbatim on their page = 100%", quotes > 0 and verbatim == quotes,
                      f"{verbatim}/{quotes} over {len(scores)} runs"))  # fmt: skip
    goals.append(Goal("citations outside the retrieved set = 0", outside == 0 and quotes > 0,
                      f"{outside} of {sum(s.citations for s in scores)} citations"))  # fmt: skip
    goals.append(Goal("every dev-set run finishes", failed == 0, f"{failed} of {2 * len(questions)} failed"))
    print(
        "(assessment: the fake model judges every question answerable; only retrieval below "
        f"research.assess_floor = {services.settings.research.assess_floor} declines here)"
    )
    for lang in ("de", "en"):
        d0 = [s for s in scores if s.depth == "0" and s.question.lang == lang]
        dd = [s for s in default if s.question.lang == lang]
        print(
            f"gold recall {lang}: depth 0 {ratio(sum(s.found for s in d0), sum(s.gold for s in d0)):.3f}, "
            f"default depth {ratio(sum(s.found for s in dd), sum(s.gold for s in dd)):.3f}"
        )
    return scores


def selected_questions(args: Any, *, weak: bool = False) -> list[ResearchQuestion]:
    """The dev-set questions a measurement runs: --questions, else the --quick subset (the weak model's
    default unless --weak-full), else all."""
    questions = load_research_questions()
    if args.questions:
        wanted = {q.strip() for q in args.questions.split(",") if q.strip()}
        return [q for q in questions if q.id in wanted]
    if args.quick or (weak and not args.weak_full):
        return quick_subset(questions)
    return questions


async def measure(args: Any, data_dir: Path, shared: Path, goals: list[Goal]) -> None:
    from rabbithole.services import Services

    questions = selected_questions(args)
    by_id = {q.id: q for q in load_research_questions()}
    fake = FakeServer()
    try:
        settings = bench_settings(data_dir, llm=fake.llm_settings())
        five = settings.model_copy(
            update={"research": settings.research.model_copy(update={"min_tasks": 5, "max_tasks": 5})}
        )
        async with Services(settings) as services:
            print(
                f"fake Ollama at {fake.url}; default depth {settings.references.max_depth}, "
                f"concurrency {settings.research.concurrency}, k {settings.research.k}, "
                f"tasks {settings.research.min_tasks}-{settings.research.max_tasks}"
            )
            if not args.skip_timing:
                async with Services(five) as five_services:
                    await measure_calls_and_time(
                        services, five_services, fake, by_id[CALLS_QUESTION], args.quick,
                        args.repeat or (1 if args.quick else 3), goals,
                    )  # fmt: skip
            if not args.skip_dev:
                scores = await measure_dev(services, questions, args.verbose, goals)
                kinds = Counter(s.question.kind for s in scores if s.depth == "default")
                print(f"runs by kind (default depth): {dict(sorted(kinds.items()))}")
            if not args.skip_languages:
                from benchmarks.research_languages import measure_languages

                await measure_languages(services, fake, questions, goals)
            if not args.skip_weak:
                from benchmarks.weak_model import measure_weak

                measure_weak(
                    "research", services, shared, selected_questions(args, weak=True), goals,
                    title="5. the weak model: quick runs at the default depth", verbose=args.verbose,
                )  # fmt: skip
            if not args.skip_tokens:
                from benchmarks.research_tokens import measure_tokens

                await measure_tokens(services, fake, shared, questions, goals)
    finally:
        fake.close()


def main(argv: list[str] | None = None) -> int:
    parser = base_parser(__doc__)
    parser.add_argument("--questions", default="", help="comma-separated dev-set ids (default: all)")
    parser.add_argument("--skip-timing", action="store_true", help="leave out measurements 1 and 2")
    parser.add_argument("--skip-dev", action="store_true", help="leave out the dev set (measurement 3)")
    parser.add_argument(
        "--skip-languages", action="store_true", help="leave out English against German (measurement 4)"
    )
    parser.add_argument("--skip-weak", action="store_true", help="leave out the weak model (measurement 5)")
    parser.add_argument(
        "--weak-full", action="store_true", help="the weak model over all dev questions (default: 8)"
    )
    parser.add_argument(
        "--skip-tokens", action="store_true", help="leave out the tokens of the quick run (measurement 6)"
    )
    parser.add_argument("--repeat", type=int, default=0, help="timed runs per setting (default 3, --quick 1)")
    parser.add_argument("--verbose", "-v", action="store_true", help="list every run's problems")
    args = parser.parse_args(argv)

    print(f"machine: {machine_info()}")
    shared = ensure_sample_index(SAMPLE_DIR)
    work = scratch_dir("research")
    try:
        data_dir = work / "data"
        shutil.copytree(shared, data_dir)  # runs and checkpoints stay out of the shared index
        goals: list[Goal] = []
        asyncio.run(measure(args, data_dir, shared, goals))
    finally:
        remove_tree(work)
    indicative = "--quick: 8 of 24 dev questions" if args.quick else None
    return 0 if print_goals(goals, indicative) or args.quick else 1


if __name__ == "__main__":
    raise SystemExit(main())
