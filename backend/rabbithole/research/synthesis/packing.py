"""The synthesis context: the conversation summary, task summaries and evidence, packed into the model's
context window by priority (primary evidence before secondary before tertiary, each by tier score). What
does not fit is recorded, never silently truncated."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from rabbithole.research.evidence.packing import PackItem, pack
from rabbithole.research.models import Evidence, PackingReport, TaskResult
from rabbithole.research.synthesis.prompts import evidence_item

_TIER_PRIORITY = {"primary": 2, "secondary": 3, "tertiary": 4}


@dataclass(frozen=True, slots=True)
class PackedContext:
    text: str
    evidence: list[Evidence]  # the evidence shown, in the order shown
    report: PackingReport


def pack_context(
    summary: str,
    tasks: Sequence[TaskResult],
    evidence: Sequence[Evidence],
    budget: int,
    count: Callable[[str], int],
) -> PackedContext:
    items: list[PackItem] = []
    if summary.strip():
        text = f"<conversation>\n{summary.strip()}\n</conversation>"
        items.append(PackItem("conversation", text, 0, count(text)))
    for t in tasks:
        if t.summary.findings or t.summary.gaps:
            lines = [f'<task id="{t.task_id}" title="{t.title}">']
            lines += [f"finding: {f}" for f in t.summary.findings]
            lines += [f"gap: {g}" for g in t.summary.gaps]
            lines.append("</task>")
            text = "\n".join(lines)
            items.append(PackItem(f"task:{t.task_id}", text, 1, count(text)))
    ranked = sorted(evidence, key=lambda e: (_TIER_PRIORITY[e.tier], -e.tier_score))
    by_key: dict[str, Evidence] = {}
    for e in ranked:
        text = evidence_item(e)
        items.append(PackItem(e.id, text, _TIER_PRIORITY[e.tier], count(text)))
        by_key[e.id] = e
    packed = pack(items, budget)
    shown = [by_key[i.key] for i in packed.kept if i.key in by_key]
    return PackedContext(
        text="\n".join(i.text for i in packed.kept),
        evidence=shown,
        report=PackingReport(
            budget_tokens=budget, used_tokens=packed.used, kept=len(packed.kept), cut=packed.cut
        ),
    )
