"""The plan as proposed and as edited by the user: direct task first, renumbered, validated."""

from __future__ import annotations

import pytest

from rabbithole.research.models import TaskSpec
from rabbithole.research.run.plan_edit import PlanEditError, apply_decision, proposed_plan
from rabbithole.research.run.schemas import PlanDecision, TaskDraft, TaskEdit

QUESTION = "Welche Dosisgrenzwerte gelten für beruflich exponierte Personen?"


def drafts(*titles: str) -> list[TaskDraft]:
    return [TaskDraft(title=t, queries=[f"{t} q"], corpus_queries=[f"{t} k"]) for t in titles]


def test_direct_task_comes_first_and_tasks_are_numbered() -> None:
    plan = proposed_plan(QUESTION, ["Grenzwerte Berufsgruppe"], ["occupational limits"], drafts("A", "B"), 5)
    assert [t.id for t in plan] == ["t1", "t2", "t3"]
    assert plan[0].title == QUESTION
    assert plan[0].queries == [QUESTION, "Grenzwerte Berufsgruppe"]
    assert plan[0].corpus_queries == ["occupational limits"]
    assert [t.title for t in plan[1:]] == ["A", "B"]


def test_duplicates_of_the_question_and_each_other_are_dropped_and_the_limit_holds() -> None:
    plan = proposed_plan(QUESTION, [], [], drafts(QUESTION.upper(), "A", " a ", "B", "C", "D"), 4)
    assert [t.title for t in plan] == [QUESTION, "A", "B", "C"]


def test_approve_as_proposed_keeps_the_plan() -> None:
    plan = proposed_plan(QUESTION, [], [], drafts("A", "B"), 5)
    assert apply_decision(plan, PlanDecision(tasks=None), 15) == plan


def proposed() -> list[TaskSpec]:
    return proposed_plan(QUESTION, ["q"], ["k"], drafts("A", "B", "C"), 5)


def test_edit_remove_add_and_reorder() -> None:
    plan = proposed()
    decision = PlanDecision(
        tasks=[
            TaskEdit(id="t3", title="B"),  # kept, moved first: keeps its queries
            TaskEdit(id="t1", title=QUESTION),
            TaskEdit(id="t2", title="A renamed"),  # renamed: queries planned again
            TaskEdit(title="New task", queries=["my own query"]),
        ]
    )
    out = apply_decision(plan, decision, 15)
    assert [t.id for t in out] == ["t1", "t2", "t3", "t4"]
    assert [t.title for t in out] == ["B", QUESTION, "A renamed", "New task"]
    assert out[0].queries == ["B q"] and out[0].corpus_queries == ["B k"]
    assert out[2].queries == [] and out[2].corpus_queries == []
    assert out[3].queries == ["my own query"]


@pytest.mark.parametrize(
    ("tasks", "message"),
    [
        ([], "at least one task"),
        ([TaskEdit(title="A"), TaskEdit(title=" a ")], "appears twice"),
        ([TaskEdit(title=f"T{i}") for i in range(4)], "at most 3 tasks"),
    ],
)
def test_invalid_edits_say_why(tasks: list[TaskEdit], message: str) -> None:
    with pytest.raises(PlanEditError, match=message):
        apply_decision(proposed(), PlanDecision(tasks=tasks), 3)


def test_blank_title_is_rejected_by_the_schema() -> None:
    with pytest.raises(ValueError):
        TaskEdit(title="")
