"""The report's sections (pure): one per approved task with verified evidence, in the plan's order, each
written by its own model call (a cut or failed answer costs one section, never the report), and the
section assembled from the task's verified findings when the model's text stays unusable."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, Field

from rabbithole.research.evidence.citations import DraftClaim, DraftSection, same_source
from rabbithole.research.models import Evidence, TaskResult, TaskSpec
from rabbithole.research.synthesis.consistency import finding_claims

#: Findings an assembled section lists at most (answering ones first).
MAX_ASSEMBLED = 12
_TIER_ORDER = {"primary": 0, "secondary": 1, "tertiary": 2}


class SectionDraft(BaseModel):
    """One section as its last model call left it (checkpointed between the graph's steps)."""

    index: int
    task_id: str
    heading: str
    claims: list[DraftClaim] = Field(default_factory=list, description="As the model wrote them.")
    answered: bool = Field(True, description="False: the model gave no valid answer.")
    truncated: bool = Field(False, description="The answer was cut; its complete sentences were kept.")
    language_ok: bool = True
    passes: int = 1
    warnings: list[str] = Field(default_factory=list)


class SectionPlan(BaseModel):
    """What one section call gets: its position, its task and that task's validated evidence."""

    index: int
    task: TaskResult
    heading: str
    description: str = ""


def plan_sections(
    plan: Sequence[TaskSpec], tasks: Sequence[TaskResult], evidence: Sequence[Evidence]
) -> list[SectionPlan]:
    """A section per task (in the plan's order, tasks the plan does not list after it) that kept verified
    evidence after validation; its heading is the task's title. A quote an earlier section already holds
    (tasks that retrieved the same passage share its reading) is left to that section, so two sections do
    not state the same finding; a section whose every quote an earlier one holds keeps them all."""
    by_task: dict[str, list[Evidence]] = {}
    for e in evidence:
        by_task.setdefault(e.task_id, []).append(e)
    order = {t.id: i for i, t in enumerate(plan)}
    described = {t.id: t.description for t in plan}
    ranked = sorted(tasks, key=lambda t: order.get(t.task_id, len(order)))
    out: list[SectionPlan] = []
    source = same_source(e for t in ranked for e in by_task.get(t.task_id, []))  # one id per quoted place
    held: set[str] = set()
    for t in ranked:
        own = by_task.get(t.task_id, [])
        kept = [e for e in own if source[e.id] not in held] or own
        held.update(source[e.id] for e in kept)
        if not kept:
            continue
        out.append(
            SectionPlan(
                index=len(out),
                task=t.model_copy(update={"evidence": kept}),
                heading=" ".join(t.title.split()) or t.task_id,
                description=described.get(t.task_id, ""),
            )
        )
    return out


def assembled_section(heading: str, evidence: Sequence[Evidence], note: str) -> DraftSection:
    """The section from the task's verified findings: each finding's fact, citing its own evidence
    (answering findings first, primary before secondary before tertiary, then as found)."""
    answering = [e for e in evidence if e.answers] or list(evidence)
    ranked = sorted(answering, key=lambda e: _TIER_ORDER.get(e.tier, 3))
    return DraftSection(heading=heading, claims=finding_claims(ranked)[:MAX_ASSEMBLED], note=note)
