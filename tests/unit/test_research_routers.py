"""Pure routers and passage selection of the research graphs."""

from __future__ import annotations

from typing import Any

from rabbithole.core.config import ResearchSettings
from rabbithole.research.clarify import routers as clarify
from rabbithole.research.dig import routers as dig
from rabbithole.research.dig.selection import batches_of, select_passages
from rabbithole.research.models import (
    ClarificationRound,
    Passage,
    QualityScores,
    QueryAnchor,
    ReportChecks,
    TaskResult,
    TaskSpec,
)
from rabbithole.research.synthesis import routers as synthesis
from rabbithole.research.synthesis.sections import SectionDraft, SectionPlan

SETTINGS = ResearchSettings(max_clarify_rounds=3)


def round_(
    n: int, coverage: float = 0.5, dedup: float = 0.2, gaps: int = 3, questions: int = 2
) -> ClarificationRound:
    return ClarificationRound(
        round=n,
        questions=[f"q{i}" for i in range(questions)],
        understanding="u",
        coverage=coverage,
        gaps=[f"g{i}" for i in range(gaps)],
        dedup_ratio=dedup,
    )


def test_clarification_asks_until_converged_or_out_of_rounds() -> None:
    assert clarify.after_analysis({"current": round_(1)}, SETTINGS) == "ask_user"  # type: ignore[typeddict-item]
    converged = round_(1, coverage=0.85, dedup=0.75, gaps=2)
    assert clarify.after_analysis({"current": converged}, SETTINGS) == "record_round"  # type: ignore[typeddict-item]
    assert clarify.after_analysis({"current": round_(3)}, SETTINGS) == "record_round"  # type: ignore[typeddict-item]
    assert clarify.after_analysis({"current": round_(1, questions=0)}, SETTINGS) == "record_round"  # type: ignore[typeddict-item]


def test_clarification_ends_on_end_or_rounds() -> None:
    state: Any = {"ended": True, "rounds": [round_(1)]}
    assert clarify.after_answer(state, SETTINGS) == "make_anchor"
    state = {"ended": False, "rounds": [round_(1)]}
    assert clarify.after_answer(state, SETTINGS) == "make_queries"
    state = {"ended": False, "rounds": [round_(1), round_(2), round_(3)]}
    assert clarify.after_answer(state, SETTINGS) == "make_anchor"


def task(queries: list[str], corpus: list[str]) -> TaskSpec:
    return TaskSpec(id="t1", title="T", queries=queries, corpus_queries=corpus)


def test_dig_plans_queries_only_when_missing() -> None:
    base: Any = {"language": "en", "corpus_language": "de"}
    assert dig.start({**base, "task": task(["a"], ["b"])}) == "search"
    assert dig.start({**base, "task": task(["a"], [])}) == "make_queries"
    assert dig.start({**base, "task": task([], [])}) == "make_queries"
    same: Any = {"language": "de", "corpus_language": "de", "task": task(["a"], [])}
    assert dig.start(same) == "search"


def test_one_extraction_call_per_batch_in_parallel() -> None:
    base: Any = {
        "task": task(["a"], []),
        "anchor": QueryAnchor(question="q", language="de"),
        "language": "de",
        "passages": [passage("p1", 0, 0.5), passage("p2", 0, 0.5), passage("p3", 1, 0.4)],
    }
    sends = dig.to_extraction({**base, "batches": [["p1", "p2"], ["p3"]]})
    assert isinstance(sends, list) and [s.node for s in sends] == ["extract", "extract"]
    assert [[p.chunk_id for p in s.arg["batch"]] for s in sends] == [["p1", "p2"], ["p3"]]
    assert [s.arg["batch_index"] for s in sends] == [0, 1]
    assert [s.arg["batch_count"] for s in sends] == [2, 2]  # they share the task's extra calls
    assert dig.to_extraction({**base, "batches": []}) == "summarize"


def quality(passed: bool) -> QualityScores:
    return QualityScores(
        factual_accuracy=50,
        semantic_validity=50,
        structure=50,
        citation_correctness=50,
        query_relevance=50,
        overall=50,
        passed=passed,
    )


def planned(n: int) -> list[SectionPlan]:
    return [
        SectionPlan(index=i, task=TaskResult(task_id=f"t{i + 1}", title=f"T{i + 1}"), heading=f"T{i + 1}")
        for i in range(n)
    ]


def test_one_section_call_each_side_by_side_and_none_without_sections() -> None:
    state: Any = {
        "sections_planned": planned(3),
        "pending": [0, 2],
        "anchor": QueryAnchor(question="q", language="de"),
        "language": "de",
        "feedback": {2: ["repeated"]},
        "drafts": {2: SectionDraft(index=2, task_id="t3", heading="T3", language_ok=False)},
    }
    sends = synthesis.to_sections(state)
    assert isinstance(sends, list) and [s.node for s in sends] == ["write_section", "write_section"]
    assert [s.arg["section"].index for s in sends] == [0, 2]
    assert [s.arg["feedback"] for s in sends] == [[], ["repeated"]]
    assert [s.arg["wrong_language"] for s in sends] == [False, True]
    assert [s.arg["passes"] for s in sends] == [1, 2]
    assert synthesis.to_sections({**state, "pending": []}) == "assemble"


def test_one_remediation_when_the_checks_or_the_grades_fail() -> None:
    base: Any = {"sections_planned": planned(2)}
    failed = ReportChecks(passed=False)
    assert synthesis.after_quality({**base, "checks": failed}) == "start_remediation"
    assert synthesis.after_quality({**base, "checks": ReportChecks(), "quality": quality(False)}) == (
        "start_remediation"
    )
    assert (
        synthesis.after_quality({**base, "checks": ReportChecks(), "quality": quality(True)}) == "attribute"
    )
    assert synthesis.after_quality({**base, "checks": ReportChecks(), "quality": None}) == "attribute"
    assert synthesis.after_quality({**base, "checks": failed, "remediated": True}) == "attribute"
    assert synthesis.after_quality({"sections_planned": [], "checks": failed}) == "attribute"


def passage(cid: str, depth: int, relevance: float | None, text: str = "x" * 40) -> Passage:
    return Passage(
        chunk_id=cid,
        collection="c",
        document="d.pdf",
        page=1,
        page_end=1,
        start=0,
        end=len(text),
        text=text,
        depth=depth,
        relevance=relevance,
    )


def test_selection_keeps_seeds_and_the_most_relevant_reached_passages() -> None:
    ps = [
        passage("s1", 0, 0.1),
        passage("r1", 1, 0.5),
        passage("r2", 1, 0.1),
        passage("r3", 2, 0.9),
        passage("s2", 0, None),
    ]
    chosen = select_passages(ps, limit=4, min_relevance=0.2)
    assert [p.chunk_id for p in chosen] == ["s1", "s2", "r1", "r3"]
    assert [p.chunk_id for p in select_passages(ps, limit=1, min_relevance=0.2)] == ["s1"]


def test_batches_respect_the_budget() -> None:
    ps = [passage(f"p{i}", 0, 0.5, text="w " * 50) for i in range(5)]
    batches = batches_of(ps, budget=200, count=lambda text: len(text.split()))
    assert [len(b) for b in batches] == [2, 2, 1]
    assert [cid for b in batches for cid in b] == [p.chunk_id for p in ps]
