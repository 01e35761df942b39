"""The report's sections guarded, measured and, where the model's text stayed unusable, assembled from their
verified findings (pure), as the research run's synthesis does (``synthesis.checks``,
``synthesis.sections.assembled_section``, the labels of ``synthesis.prompts``).

A research section with evidence is measured by what the model last wrote for it (after the section's own
retries, grades and the reviewer's refinement): no valid answer, nothing left after the guards, more than
half repeats or more than half uncited makes it unusable, and it is shown assembled from its findings,
labelled under its heading with the reason and listed (``AssembledSection``). A section that read passages
it could not read says so under its heading; one that found nothing keeps its statement (no evidence, or
the passages the model could not read), which is never marked uncited. Framing sections are guarded with
the others but not measured: they have no findings of their own to fall back to.

Before the guards, a sentence of any section stating a number, date, amount, percentage or provision none
of its cited quotes states is replaced by a cited finding whose own quote states it, or removed
(``synthesis.consistency.correct_claims``, as in a research run): a research section against its own
evidence, a framing section against the research sections' evidence it cites. Each is recorded in the
checks (``corrections``, ``contradictions``; not those of a section shown assembled) and warned."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from rabbithole.research.evidence.citations import DraftSection
from rabbithole.research.guards import GuardClaim, GuardSection
from rabbithole.research.language import language_name
from rabbithole.research.models import (
    AssembledSection,
    ClaimCorrection,
    Evidence,
    QualityProblem,
    ReportChecks,
    TextGuards,
)
from rabbithole.research.report.assembly import guarded_report, merged_drafts
from rabbithole.research.report.models import SectionResult
from rabbithole.research.report.unread import unread_sentence
from rabbithole.research.synthesis.checks import Failure, check_section, report_checks
from rabbithole.research.synthesis.consistency import correct_claims
from rabbithole.research.synthesis.prompts import labels
from rabbithole.research.synthesis.sections import SectionDraft as WrittenSection
from rabbithole.research.synthesis.sections import assembled_section

#: The label of each failure's reason (``synthesis.prompts.LABELS``).
REASONS: dict[Failure, str] = {
    "no_answer": "no_answer",
    "empty": "empty",
    "repeated": "repeated",
    "uncited": "uncited_reason",
}


@dataclass(slots=True)
class CheckedReport:
    """The report as shown: its title, the sections kept (each with its guarded draft and note, in outline
    order), what the guards did to the model's text, the measured checks, the sections assembled from
    their findings, warnings, and the sections' statements of what they could not find or read."""

    title: str
    sections: list[tuple[SectionResult, DraftSection]]
    guards: TextGuards
    checks: ReportChecks
    assembled: list[AssembledSection] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    statements: set[str] = field(default_factory=set)


def _guarded(draft: DraftSection | None) -> GuardSection | None:
    if draft is None:
        return None
    claims = [GuardClaim(c.text, list(c.evidence_ids), uncited=not c.evidence_ids) for c in draft.claims]
    return GuardSection(draft.heading, claims)


def _mapped(evidence: Sequence[Evidence], mapping: Mapping[str, str]) -> list[Evidence]:
    """The section's evidence under the ids of the report's sources, each source once."""
    out: dict[str, Evidence] = {}
    for e in evidence:
        eid = mapping.get(e.id, e.id)
        out.setdefault(eid, e.model_copy(update={"id": eid}))
    return list(out.values())


def checked_report(
    title: str,
    sections: Sequence[SectionResult],
    mapping: Mapping[str, str],
    *,
    question: str,
    language: str,
) -> CheckedReport:
    """``sections`` in outline order, citing the sources' ids (``mapping``: evidence id -> source id)."""
    names, english = labels(language), labels("en")
    drafts = merged_drafts(sections, mapping)
    measured = [i for i, r in enumerate(sections) if r.section.research and r.evidence]
    statements = {c.text for r in sections if r.section.research and not r.evidence for c in r.draft.claims}
    unread = {
        r.section.id: unread_sentence(r.passages_unread, language)
        for r in sections
        if r.section.research and r.evidence and r.passages_unread
    }
    # what the model wrote (an invalid answer: nothing), with the note of passages it could not read; a
    # sentence stating a figure or provision its cited quotes do not is replaced by a cited finding whose
    # quote states it, or removed (as in a research run). A framing section cites the research sections'
    # evidence and is corrected against it: a citation whose quote states what its sentence does stays,
    # whether or not a research sentence still cites that source.
    everything = {e.id: e for r in sections if r.section.research for e in _mapped(r.evidence, mapping)}
    corrections: list[ClaimCorrection] = []
    removed: dict[int, int] = {}
    written: list[DraftSection] = []
    for i, (r, d) in enumerate(zip(sections, drafts, strict=True)):
        if r.section.research and i not in measured:  # its statement: nothing found or nothing read
            written.append(d)
            continue
        if i in measured:
            evidence = {e.id: e for e in _mapped(r.evidence, mapping)}
            claims, fixed = correct_claims(r.section.title, d.claims if r.answered else [], evidence)
            removed[i] = sum(1 for c in fixed if c.action == "removed")
            written.append(d.model_copy(update={"claims": claims, "note": unread.get(r.section.id)}))
        else:
            claims, fixed = correct_claims(r.section.title, d.claims, everything)
            written.append(d.model_copy(update={"claims": claims}))
        corrections += fixed
    first = guarded_report(title, sections, written, question=question, language=language)
    after_guards = {r.section.id: d for r, d in first.sections}
    checks = {
        i: check_section(
            WrittenSection(
                index=i,
                task_id=sections[i].section.id,
                heading=sections[i].section.title,
                claims=written[i].claims,
                answered=sections[i].answered,
                language_ok=sections[i].language_ok,
            ),
            _guarded(after_guards.get(sections[i].section.id)),
            removed=removed.get(i, 0),
        )
        for i in measured
    }
    shown = list(written)
    failures: dict[str, tuple[Failure, str]] = {}  # by section id: the failure and the label
    for i, check in checks.items():
        failure = check.failure
        if failure is None:
            continue
        section = sections[i]
        label = f"{names['assembled']} ({names[REASONS[failure]]})."
        made = assembled_section(section.section.title, _mapped(section.evidence, mapping), label)
        if not made.claims:  # no finding states anything: the model's text stays, measured as it is
            continue
        note = " ".join(n for n in (label, unread.get(section.section.id)) if n)
        shown[i] = made.model_copy(update={"note": note})
        failures[section.section.id] = (failure, label)
    final = guarded_report(title, sections, shown, question=question, language=language)
    assembled = [
        AssembledSection(
            heading=d.heading,
            task_id=r.section.id,
            reason=names[REASONS[failures[r.section.id][0]]],
            note=failures[r.section.id][1],
        )
        for r, d in final.sections
        if r.section.id in failures
    ]
    claims = [c for _, d in final.sections for c in d.claims if c.text not in statements]
    written_ok = {i for i, c in checks.items() if sections[i].section.id not in failures}
    report = report_checks(
        list(checks.values()),
        shown=written_ok,
        planned=len(measured),
        assembled=len(assembled),
        cited=sum(1 for c in claims if c.evidence_ids),
        sentences=len(claims),
    )
    # the model's own grade of a section it wrote is one input to the verdict: a failed one is a problem
    graded = [
        QualityProblem(
            kind="failed_grade",
            section=sections[i].section.title,
            detail="the model's grade failed it"
            + (": missing " + "; ".join(grade.missing) if grade.missing else ""),
        )
        for i in sorted(written_ok)
        if (grade := sections[i].grade) is not None and not grade.passed
    ]
    if graded:
        problems = [*report.problems, *graded]
        report = report.model_copy(update={"problems": problems, "passed": False})
    shown_corrections = [c for c in corrections if c.section not in {a.heading for a in assembled}]
    report = report.model_copy(
        update={"contradictions": len(shown_corrections), "corrections": shown_corrections}
    )
    notes = [
        f"section '{a.heading}': {english['assembled']} ({english[REASONS[failures[a.task_id][0]]]})"
        for a in assembled
    ]
    if shown_corrections:
        notes.append(
            f"{len(shown_corrections)} sentence(s) stated a number, date or provision their evidence does "
            "not: "
            f"{sum(c.action == 'rewritten' for c in shown_corrections)} replaced by the finding they cite, "
            f"{sum(c.action == 'removed' for c in shown_corrections)} removed"
        )
    notes += [
        f"section '{sections[i].section.title}': not in the report's language ({language_name(language)})"
        for i in sorted(written_ok)
        if not checks[i].language_ok
    ]
    return CheckedReport(
        title=final.title,
        sections=final.sections,
        guards=first.counts,
        checks=report,
        assembled=assembled,
        notes=notes,
        statements=statements,
    )
