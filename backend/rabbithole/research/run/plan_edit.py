"""The plan as proposed and as the user edits it (pure): the direct task first, at most a limit of tasks,
renumbered t1..tn; an edited task keeps its queries only while its title is unchanged."""

from __future__ import annotations

from collections.abc import Sequence

from rabbithole.research.models import TaskSpec
from rabbithole.research.run.schemas import PlanDecision, TaskDraft


class PlanEditError(ValueError):
    """An edited plan that cannot be used (no task, too many, empty or duplicate titles)."""


def _norm(text: str) -> str:
    return " ".join(text.split()).casefold()


def _clean(items: Sequence[str]) -> list[str]:
    out: list[str] = []
    for item in items:
        item = " ".join(item.split())
        if item and _norm(item) not in (_norm(o) for o in out):
            out.append(item)
    return out


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
        queries=_clean([question, *research_queries])[:3],
        corpus_queries=_clean(corpus_queries)[:3],
    )
    tasks = [direct]
    for d in drafts:
        if _norm(d.title) in (_norm(t.title) for t in tasks):
            continue
        tasks.append(
            TaskSpec(
                id="",
                title=" ".join(d.title.split()),
                description=" ".join(d.description.split()),
                queries=_clean(d.queries),
                corpus_queries=_clean(d.corpus_queries),
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
        if _norm(title) in (_norm(t.title) for t in out):
            raise PlanEditError(f"the task '{title}' appears twice")
        before = known.get(edit.id) if edit.id else None
        same = before is not None and _norm(before.title) == _norm(title)
        if edit.queries is not None:
            queries, corpus = _clean(edit.queries), (before.corpus_queries if same and before else [])
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
