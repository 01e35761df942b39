"""The report from its sections (pure): the sections the model wrote, their sentences that contradict their
evidence replaced or removed (``synthesis.consistency``), guarded together; each measured; and
on the last pass a section whose model text is still unusable replaced by the one assembled from its
task's verified findings, labelled as such with the reason."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from rabbithole.research.evidence.citations import DraftClaim, DraftSection
from rabbithole.research.guards import GuardClaim, GuardSection, guard_draft
from rabbithole.research.language import language_name
from rabbithole.research.models import AssembledSection, ClaimCorrection, ReportChecks, TextGuards
from rabbithole.research.synthesis.checks import SectionCheck, check_section, report_checks
from rabbithole.research.synthesis.consistency import correct_claims, finding_claims
from rabbithole.research.synthesis.prompts import labels
from rabbithole.research.synthesis.sections import SectionDraft, SectionPlan, assembled_section

_REASON_LABEL = {
    "no_answer": "no_answer",
    "empty": "empty",
    "repeated": "repeated",
    "uncited": "uncited_reason",
}


@dataclass(slots=True)
class AssembledReport:
    sections: list[DraftSection]
    checks: ReportChecks
    guards: TextGuards
    assembled: list[AssembledSection] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _guard(
    sections: Sequence[tuple[str, str, Sequence[DraftClaim]]],
    titles: Sequence[str],
    question: str,
    language: str,
) -> tuple[dict[str, GuardSection], TextGuards]:
    """(key, heading, claims) sections guarded together: the kept sections by key, and the counts."""
    guarded = guard_draft(
        question,
        [
            GuardSection(heading, [GuardClaim(c.text, list(c.evidence_ids)) for c in claims], key=key)
            for key, heading, claims in sections
        ],
        task_titles=titles,
        question=question,
        language=language,
    )
    return {s.key or "": s for s in guarded.sections}, guarded.counts


Shown = list[tuple[str, str, list[DraftClaim]]]  # (key, heading, claims) of the sections to guard


def _say_pinned(shown: Shown, planned: Sequence[SectionPlan]) -> Shown:
    """A provision the question or a task names is said in the report: its finding (what it provides, or
    the statement that it does not answer the question), citing it and the other quotes of that finding,
    in its task's section, when no sentence cites it yet (issue 30); before the guards, so a finding some
    sentence says already only adds its ids there. One whose quotes do not state its numbers and
    provisions is not said (``consistency.finding_claims``)."""
    cited = {i for _, _, claims in shown for c in claims for i in c.evidence_ids}
    out = [(key, heading, list(claims)) for key, heading, claims in shown]
    by_heading = {heading: claims for _, heading, claims in out}
    for p in planned:
        facts = {e.fact for e in p.task.evidence if e.pinned and e.id not in cited and e.fact.strip()}
        claims = finding_claims([e for e in p.task.evidence if e.fact in facts]) if facts else []
        if not claims:
            continue
        if p.heading in by_heading:
            by_heading[p.heading].extend(claims)
        else:
            by_heading[p.heading] = list(claims)
            out.append((f"pinned-{p.index}", p.heading, by_heading[p.heading]))
    order = {p.heading: p.index for p in planned}
    return sorted(out, key=lambda s: order.get(s[1], len(order)))


def _removed(corrections: Sequence[ClaimCorrection]) -> int:
    return sum(1 for c in corrections if c.action == "removed")


def assemble_report(
    planned: Sequence[SectionPlan],
    drafts: Mapping[int, SectionDraft],
    *,
    question: str,
    language: str,
    final: bool,
) -> AssembledReport:
    """The report of ``drafts`` (by section index). ``final``: the last pass (after the remediation), where
    an unusable section is assembled from its findings instead of being shown or left out."""
    names = labels(language)
    titles = [p.heading for p in planned]
    written = [(p, drafts[p.index]) for p in planned if p.index in drafts]
    corrected: dict[int, list[DraftClaim]] = {}
    corrections: dict[int, list[ClaimCorrection]] = {}
    for p, d in written:
        evidence = {e.id: e for e in p.task.evidence}
        corrected[p.index], corrections[p.index] = correct_claims(p.heading, d.claims, evidence)
    first, model_guards = _guard(
        [(str(p.index), p.heading, corrected[p.index]) for p, _ in written], titles, question, language
    )
    checks: dict[int, SectionCheck] = {
        p.index: check_section(d, first.get(str(p.index)), removed=_removed(corrections[p.index]))
        for p, d in written
    }
    shown: Shown = []
    notes_by_key: dict[str, str] = {}
    candidates: dict[str, tuple[AssembledSection, str]] = {}  # by key: the section, why (a failure)
    shown_indices: set[int] = set()
    for p in planned:
        check = checks.get(p.index)
        failure = check.failure if check is not None else "no_answer"
        if failure is None or not final:
            if failure is None:
                shown.append((str(p.index), p.heading, corrected[p.index]))
                shown_indices.add(p.index)
            continue
        reason = names[_REASON_LABEL[failure]]
        section = assembled_section(p.heading, p.task.evidence, f"{names['assembled']} ({reason}).")
        if not section.claims:
            continue
        key = f"assembled-{p.index}"
        shown.append((key, p.heading, section.claims))
        notes_by_key[key] = section.note or ""
        made = AssembledSection(
            heading=p.heading, task_id=p.task.task_id, reason=reason, note=section.note or ""
        )
        candidates[key] = (made, failure)
    shown = _say_pinned(shown, planned)
    final_sections, _ = _guard(shown, titles, question, language)
    sections: list[DraftSection] = []
    for key, _, _ in shown:
        guarded = final_sections.get(key)
        if guarded is None:  # every finding repeats one shown earlier (its ids were merged into it)
            candidates.pop(key, None)
            continue
        sections.append(
            DraftSection(
                heading=guarded.heading,
                claims=[DraftClaim(text=c.text, evidence_ids=c.evidence_ids) for c in guarded.claims],
                note=notes_by_key.get(key),
            )
        )
    assembled = [a for a, _ in candidates.values()]
    claims = [c for s in sections for c in s.claims]
    # before the last pass an unusable section is a problem (it is written again); on the last, it was
    # assembled and the problems (and corrections) are those of the sections shown
    judged = shown_indices if final else set(checks)
    fixed = [c for i in sorted(judged) for c in corrections.get(i, [])]
    report = report_checks(
        list(checks.values()),
        shown=judged,
        planned=len(planned),
        assembled=len(assembled),
        cited=sum(1 for c in claims if c.evidence_ids),
        sentences=len(claims),
    ).model_copy(update={"contradictions": len(fixed), "corrections": fixed})
    english = labels("en")
    notes = [
        f"section '{a.heading}': {english['assembled']} ({english[_REASON_LABEL[f]]})"
        for a, f in candidates.values()
    ]
    if fixed:
        notes.append(
            f"{len(fixed)} sentence(s) stated a number, date or provision their evidence does not: "
            f"{sum(c.action == 'rewritten' for c in fixed)} replaced by the finding they cite, "
            f"{sum(c.action == 'removed' for c in fixed)} removed"
        )
    if final and any(not checks[i].language_ok for i in shown_indices):
        notes.append(
            f"the report is not in the question's language ({language_name(language)}) after a retry"
        )
    return AssembledReport(
        sections=sections, checks=report, guards=model_guards, assembled=assembled, notes=notes
    )
