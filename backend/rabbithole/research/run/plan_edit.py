"""The plan as proposed and as the user edits it (pure): the direct task first, at most a limit of tasks,
renumbered t1..tn; an edited task keeps its queries only while its title is unchanged."""

from __future__ import annotations

from collections.abc import Sequence

from rabbithole.core.text import text_key, unique_texts
from rabbithole.research.models import TaskSpec
from rabbithole.research.run.schemas import PlanDecision, TaskDraft


class PlanEditError(ValueError):
    """An edited plan that cannot be used (no task, too many, empty or duplicate titles)."""


def renumber(tasks: Sequence[TaskSpec]) -> list[TaskSpec]:
    return [t.model_copy(update={"id": f"t{i}"}) for i, t in enumerate(tasks, start=1)]


def proposed_plan(
    question: str,
    research_queries: Sequence[str],
    corpus_queries: Sequence[str],
    drafts: Sequence[TaskDraft],
    limit: int,
) -> list[TaskSpec]:
    """The direct task (the question, with the research queries) and the model's tasks, deduplicated."""
    direct = TaskSpec(
        id="t1",
        title=question,
        description="",
        queries=unique_texts([question, *research_queries])[:3],
        corpus_queries=unique_texts(corpus_queries)[:3],
    )
    tasks = [direct]
    for d in drafts:
        if text_key(d.title) in (text_key(t.title) for t in tasks):
            continue
        tasks.append(
            TaskSpec(
                id="",
                title=" ".join(d.title.split()),
                description=" ".join(d.description.split()),
                queries=unique_texts(d.queries),
                corpus_queries=unique_texts(d.corpus_queries),
            )
        )
    return renumber(tasks[:limit])


def apply_decision(proposed: Sequence[TaskSpec], decision: PlanDecision, limit: int) -> list[TaskSpec]:
    """The plan after the user's decision; PlanEditError says what is wrong with an edited one."""
    if decision.tasks is None:
        return list(proposed)
    if not decision.tasks:
        raise PlanEditError("the plan needs at least one task")
    if len(decision.tasks) > limit:
        raise PlanEditError(f"the plan may have at most {limit} tasks, got {len(decision.tasks)}")
    known = {t.id: t for t in proposed}
    out: list[TaskSpec] = []
    for edit in decision.tasks:
        title = " ".join(edit.title.split())
        if not title:
            raise PlanEditError("a task needs a title")
        if text_key(title) in (text_key(t.title) for t in out):
            raise PlanEditError(f"the task '{title}' appears twice")
        before = known.get(edit.id) if edit.id else None
        same = before is not None and text_key(before.title) == text_key(title)
        if edit.queries is not None:
            queries, corpus = unique_texts(edit.queries), (before.corpus_queries if same and before else [])
        elif same and before is not None:
            queries, corpus = before.queries, before.corpus_queries
        else:
            queries, corpus = [], []  # dig asks the model for this task's queries
        out.append(
            TaskSpec(
                id="",
                title=title,
                description=" ".join(edit.description.split()),
                queries=queries,
                corpus_queries=corpus,
            )
        )
    return renumber(out)
