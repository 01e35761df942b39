"""Questions naming a provision (issue 30, "Named provisions are pinned"): quick research runs over
kb/sample against the fake Ollama, each question naming one § or Anlage of a law
(benchmarks/data/pinned_questions.yaml).

    python -m benchmarks.bench_pinned [--quick] [-v]

The shared sample index (bench-data/sample-*, ingested once) is copied into a scratch data dir. Each question
is run at depth 0 with one task (the question's own, which pins what the question names) twice in the same
run: with the provisions pinned (``research.pin_provisions``, the default) and without them (false: the code
before, where a provision is searched like any other words). Measured per question and in all:

- found: the named provision resolved by the reference engine in the collection (``ResearchResult.pinned``);
- retrieved: its section among the passages the run retrieved;
- evidence: its section among the run's verified evidence (``ResearchResult.evidence``, after validation);
- answers: what extraction found in it answers the question (``PinnedProvision.answers``; "no": its findings
  are related only, or it is listed with its opening sentences and the statement that nothing in it answers).

Goals: every named provision found, and among the run's evidence with pinning (all of them). The fake chooses
the sentences of its findings among those shown; what it is shown first is what pinning decides.
"""

from __future__ import annotations

import asyncio
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

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
    from rabbithole.research.models import ResearchResult
    from rabbithole.services import Services

PINNED_QUESTIONS = DATA_DIR / "pinned_questions.yaml"
#: the quick runs: the question's own task alone, no reference hops (what is measured is the first task)
OVERRIDES = {"depth": 0, "max_tasks": 1}


@dataclass(frozen=True, slots=True)
class PinnedQuestion:
    id: str
    lang: str
    question: str
    document: str
    section: str


@dataclass(frozen=True, slots=True)
class PinnedScore:
    question: PinnedQuestion
    found: bool
    retrieved: bool
    evidence: bool
    answers: bool | None = None  # what extraction found in it answers (None: not pinned, or not read)
    error: str | None = None


def load_questions(path: Path = PINNED_QUESTIONS) -> list[PinnedQuestion]:
    import yaml

    data: dict[str, Any] = yaml.safe_load(path.read_text(encoding="utf-8"))
    questions = [
        PinnedQuestion(
            id=str(q["id"]),
            lang=str(q["lang"]),
            question=str(q["question"]),
            document=str(q["provision"]["document"]),
            section=str(q["provision"]["section"]),
        )
        for q in data["questions"]
    ]
    if len({q.id for q in questions}) != len(questions):
        raise ValueError(f"{path}: duplicate question ids")
    return questions


def score(services: Services, question: PinnedQuestion, result: ResearchResult) -> PinnedScore:
    wanted = (question.document, question.section)
    chunks = services.catalog.get_chunks(SAMPLE_COLLECTION, result.retrieved_chunks)
    return PinnedScore(
        question,
        found=any(p.found and (p.document, p.section) == wanted for p in result.pinned),
        retrieved=any((c.document, c.section) == wanted for c in chunks.values()),
        evidence=any((e.document, e.section) == wanted for e in result.evidence),
        answers=next((p.answers for p in result.pinned if (p.document, p.section) == wanted), None),
    )


async def run_all(services: Services, questions: list[PinnedQuestion]) -> list[PinnedScore]:
    from rabbithole.runs.runner import run_research

    scores: list[PinnedScore] = []
    for q in questions:
        try:
            result = await run_research(services, q.question, [SAMPLE_COLLECTION], overrides=OVERRIDES)
        except Exception as exc:  # a failed run finds nothing; it is listed
            scores.append(PinnedScore(q, False, False, False, error=f"{type(exc).__name__}: {exc}"))
            continue
        scores.append(score(services, q, result))
    return scores


def share(scores: list[PinnedScore], field: str) -> float:
    return sum(bool(getattr(s, field)) for s in scores) / len(scores) if scores else 0.0


async def measure(data_dir: Path, questions: list[PinnedQuestion], goals: list[Goal], verbose: bool) -> None:
    from rabbithole.devtools.fake_ollama import FakeOllama
    from rabbithole.services import Services

    with FakeOllama() as fake:
        settings = bench_settings(data_dir, llm=fake.settings(request_timeout_s=60.0))
        before = settings.model_copy(
            update={"research": settings.research.model_copy(update={"pin_provisions": False})}
        )
        async with Services(settings) as services:
            pinned = await run_all(services, questions)
            async with Services(before, share_with=services) as old:
                baseline = await run_all(old, questions)
    rows: list[list[object]] = [
        [
            p.question.id,
            p.question.lang,
            f"{p.question.document} {p.question.section}",
            *(_mark(v) for v in (b.retrieved, b.evidence, p.found, p.retrieved, p.evidence)),
            "-" if p.answers is None else _mark(p.answers),
        ]
        for p, b in zip(pinned, baseline, strict=True)
    ]
    rows.append(
        [
            "all",
            "",
            f"{len(questions)} questions",
            *(f"{share(baseline, f):.2f}" for f in ("retrieved", "evidence")),
            *(f"{share(pinned, f):.2f}" for f in ("found", "retrieved", "evidence", "answers")),
        ]
    )
    headers = ["id", "lang", "provision", "before: retrieved", "before: evidence"]
    headers += ["found", "retrieved", "evidence", "answers"]
    print_table(headers, rows, title=f"questions naming a provision (quick runs, {OVERRIDES})")
    for s in [*pinned, *baseline]:
        if s.error or verbose:
            print(f"  {s.question.id}: {s.question.question} {s.error or ''}")
    n = len(questions)
    goals.append(
        Goal(
            "every named provision found in the collection",
            share(pinned, "found") == 1.0,
            f"{sum(s.found for s in pinned)} of {n}",
        )
    )
    goals.append(
        Goal(
            "the named provision among the run's evidence: all of them",
            share(pinned, "evidence") == 1.0,
            f"{sum(s.evidence for s in pinned)} of {n} (before: {sum(s.evidence for s in baseline)} of {n})",
        )
    )


def _mark(value: bool) -> str:
    return "yes" if value else "no"


def main(argv: list[str] | None = None) -> int:
    parser = base_parser(__doc__)
    parser.add_argument("--verbose", "-v", action="store_true", help="list every question")
    args = parser.parse_args(argv)
    print(f"machine: {machine_info()}")
    questions = load_questions()
    if args.quick:
        questions = [q for q in questions if q.id in {"pq1", "pq2", "pq5", "pq6"}]
    shared = ensure_sample_index(SAMPLE_DIR)
    work = scratch_dir("pinned")
    try:
        data_dir = work / "data"
        shutil.copytree(shared, data_dir)  # runs and checkpoints stay out of the shared index
        goals: list[Goal] = []
        asyncio.run(measure(data_dir, questions, goals, args.verbose))
    finally:
        remove_tree(work)
    indicative = "--quick: 4 of 8 questions" if args.quick else None
    return 0 if print_goals(goals, indicative) or args.quick else 1


if __name__ == "__main__":
    raise SystemExit(main())
