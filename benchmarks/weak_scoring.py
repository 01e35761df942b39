"""Scoring of one weak-model run (benchmarks/weak_model.py): what the worker (benchmarks/weak_worker.py) wrote
for it, scored with today's measures whichever code made it. Pure, but for the catalog lookups of the pages
and retrieved passages."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from benchmarks.report_text import extra_occurrences, placeholder_headings, repeated_sentences

if TYPE_CHECKING:
    from benchmarks.bench_research import ResearchQuestion
    from rabbithole.services import Services


@dataclass(slots=True)
class WeakRun:
    """One run of one code with one profile, scored."""

    question: ResearchQuestion
    code: str  # "now" | "before"
    profile: str  # "normal" | "weak"
    failed: bool
    status: str
    seconds: float
    requests: int = 0  # chat requests the fake recorded
    weak_answers: int = 0  # of them, answers the weak profile changed
    prompt_tokens: int = 0  # as the fake counted them
    output_tokens: int = 0
    reported_tokens: tuple[int, int] | None = None  # result.llm_tokens total (prompt, output)
    guards: int = 0
    assembled: int = 0
    checks_passed: bool | None = None
    quotes: int = 0
    verbatim: int = 0
    citations: int = 0
    outside: int = 0
    gold: int = 0
    retrieved_gold: int = 0
    cited_gold: int = 0
    placeholders: list[str] = field(default_factory=list)
    repeats: list[tuple[str, int]] = field(default_factory=list)
    contradictions: list[str] = field(
        default_factory=list
    )  # final sentences stating what their quotes do not
    problems: list[str] = field(default_factory=list)

    @property
    def repeated(self) -> int:
        return extra_occurrences(self.repeats)


def fake_tokens(records: Sequence[Mapping[str, Any]]) -> tuple[int, int]:
    """Prompt and output tokens of the recorded chat requests as the fake answered them: the prompt's
    tokens up to ``num_ctx`` (``prompt_eval_count``) and the answer's pieces (``eval_count``)."""
    from rabbithole.devtools.fake_ollama.generation import DEFAULT_NUM_CTX, split_pieces

    prompt = output = 0
    for record in records:
        if record.get("status", 200) != 200:
            continue
        prompt += min(int(record.get("prompt_tokens") or 0), int(record.get("num_ctx") or DEFAULT_NUM_CTX))
        output += len(split_pieces(str(record.get("response_text") or "")))
    return prompt, output


def guards_triggered(text_guards: Mapping[str, Any]) -> int:
    """The sum of the guards' counts (a replaced title counts 1)."""
    return sum(int(v) for v in text_guards.values() if isinstance(v, int | bool))


def contradictions_left(result: Any) -> list[str]:
    """The final report's sentences stating a number, date, amount, percentage or provision that none of
    the sources they cite states (research.evidence.consistency, as the run's own check: issue 30's goal is
    none left)."""
    from rabbithole.research.evidence.consistency import CitedText, missing_from

    by_number = {s.n: s for s in result.sources}
    left: list[str] = []
    for claim in result.claims:
        cited = [by_number[n] for n in claim.citations if n in by_number]
        quotes = [CitedText(s.quote, s.document, s.section) for s in cited]
        if quotes and missing_from(claim.text, quotes):
            left.append(claim.text)
    return left


def cited_sections(result: Any) -> list[tuple[str, str | None]]:
    return [(s.document, s.section) for s in result.sources]


def failed_weak_run(
    question: ResearchQuestion, code: str, profile: str, raw: Mapping[str, Any], why: str
) -> WeakRun:
    """A run that raised or did not end done: it found and cited nothing."""
    seconds = float(raw.get("seconds") or 0.0)
    run = WeakRun(question, code, profile, True, "failed", seconds, gold=len(question.gold))
    add_requests(run, raw.get("requests") or [])
    run.problems.append(f"run failed: {why}")
    return run


def add_requests(run: WeakRun, records: Sequence[Mapping[str, Any]]) -> None:
    run.requests = len(records)
    run.weak_answers = sum(1 for r in records if r.get("weak"))
    run.prompt_tokens, run.output_tokens = fake_tokens(records)


def score_weak_run(
    question: ResearchQuestion, code: str, profile: str, raw: Mapping[str, Any], services: Services
) -> WeakRun:
    """Score one worker run: ``raw`` as the worker wrote it; ``services``: a catalog holding the same
    sample index (the pages and retrieved passages are looked up in it)."""
    from benchmarks.bench_research import check_quotes, gold_found, lookups, outside_citations
    from rabbithole.research.models import ResearchResult

    if raw.get("error") or not raw.get("result"):
        return failed_weak_run(question, code, profile, raw, str(raw.get("error") or "no result"))
    result = ResearchResult.model_validate(raw["result"])
    if result.status != "done":
        return failed_weak_run(question, code, profile, raw, f"status {result.status}: {result.error}")
    retrieved, pages = lookups(services, result)
    quotes = check_quotes(result, pages)
    outside = outside_citations(result, retrieved, pages)
    retrieved_found, _ = gold_found(
        question, [(c.document, c.section) for chunks in retrieved.values() for c in chunks.values()]
    )
    cited_found, cited_missing = gold_found(question, cited_sections(result))
    total = result.llm_tokens.get("total")
    run = WeakRun(
        question=question,
        code=code,
        profile=profile,
        failed=False,
        status=result.status,
        seconds=float(raw.get("seconds") or 0.0),
        reported_tokens=(total.prompt, total.output) if total else None,
        guards=guards_triggered(raw["result"].get("text_guards") or {}),
        assembled=len(result.assembled_sections),
        checks_passed=result.checks.passed if result.checks else None,
        quotes=len(quotes),
        verbatim=sum(q.verbatim for q in quotes),
        citations=len(result.sources),
        outside=len(outside),
        gold=len(question.gold),
        retrieved_gold=retrieved_found,
        cited_gold=cited_found,
        placeholders=placeholder_headings(result.report_markdown),
        repeats=repeated_sentences(result.report_markdown),
        contradictions=contradictions_left(result),
    )
    add_requests(run, raw.get("requests") or [])
    run.problems += [f"[{q.n}] quote: {q.reason}" for q in quotes if not q.verbatim]
    run.problems += [f"[{n}] outside: {why}" for n, why in outside]
    run.problems += [f"placeholder heading: {h!r}" for h in run.placeholders]
    run.problems += [f"sentence {n}x: {s[:100]!r}" for s, n in run.repeats]
    run.problems += [f"contradicts its quotes: {s[:100]!r}" for s in run.contradictions]
    run.problems += [f"gold not cited: {d} {s}" for d, s in cited_missing]
    return run
