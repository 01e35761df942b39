"""The report from its sections (pure): guarded together, measured, and an unusable section assembled from
its verified findings on the last pass (issue 24)."""

from __future__ import annotations

from rabbithole.research.evidence.citations import DraftClaim
from rabbithole.research.models import Evidence, ReportChecks, TaskResult
from rabbithole.research.synthesis.assembly import assemble_report
from rabbithole.research.synthesis.checks import with_support
from rabbithole.research.synthesis.sections import SectionDraft, SectionPlan, plan_sections

REPEATED = "Für beruflich exponierte Personen gilt ein Grenzwert der effektiven Dosis im Kalenderjahr."
LABEL = "Aus den geprüften Befunden zusammengestellt, ohne Text des Modells"


def evidence(eid: str, task: str, fact: str, *, answers: bool = True) -> Evidence:
    return Evidence(
        id=eid,
        task_id=task,
        chunk_id=f"c-{eid}",
        collection="sample",
        document="StrlSchG.pdf",
        page=3,
        quote=fact,
        start=0,
        end=len(fact),
        fact=fact,
        answers=answers,
    )


E1 = evidence("t1-b1-e1", "t1", "Der Grenzwert der effektiven Dosis beträgt 20 Millisievert im Kalenderjahr.")
E2 = evidence("t1-b1-e2", "t1", "Für Personen unter 18 Jahren beträgt er 1 Millisievert im Kalenderjahr.")
E3 = evidence("t2-b1-e1", "t2", "Die Behörde kann Ausnahmen zulassen.")
E4 = evidence("t2-b1-e2", "t2", "Die Organdosis der Augenlinse ist begrenzt.", answers=False)


def sections() -> list[SectionPlan]:
    tasks = [
        TaskResult(task_id="t1", title="Grenzwerte", evidence=[E1, E2]),
        TaskResult(task_id="t2", title="Ausnahmen", evidence=[E3, E4]),
        TaskResult(task_id="t3", title="Ohne Belege"),
    ]
    return plan_sections([], tasks, [E1, E2, E3, E4])


def draft(index: int, claims: list[tuple[str, list[str]]], **kw: object) -> SectionDraft:
    task = ["t1", "t2"][index]
    heading = ["Grenzwerte", "Ausnahmen"][index]
    return SectionDraft(
        index=index,
        task_id=task,
        heading=heading,
        claims=[DraftClaim(text=t, evidence_ids=ids) for t, ids in claims],
        **kw,  # type: ignore[arg-type]
    )


GOOD = draft(
    0, [("Der Grenzwert beträgt 20 Millisievert.", ["t1-b1-e1"]), ("Unter 18: 1 mSv.", ["t1-b1-e2"])]
)
WEAK = draft(
    1, [(REPEATED, ["t2-b1-e1"])] * 4 + [("Claims", []), ("Die Behörde prüft.", [])] + [(REPEATED, [])] * 4
)


def test_a_section_per_task_with_evidence_in_the_plans_order() -> None:
    planned = sections()
    assert [(s.index, s.heading, s.task.task_id) for s in planned] == [
        (0, "Grenzwerte", "t1"),
        (1, "Ausnahmen", "t2"),
    ]
    assert [e.id for e in planned[1].task.evidence] == ["t2-b1-e1", "t2-b1-e2"]


def test_a_quote_an_earlier_section_holds_is_left_to_it() -> None:
    """Tasks that retrieved the same passage share its reading: its finding is stated in one section."""
    shared = E1.model_copy(update={"id": "t2-b1-e3", "task_id": "t2"})  # the same quote, found by t2 too
    only_shared = E2.model_copy(update={"id": "t3-b1-e1", "task_id": "t3"})
    tasks = [
        TaskResult(task_id="t1", title="Grenzwerte", evidence=[E1, E2]),
        TaskResult(task_id="t2", title="Ausnahmen", evidence=[E3, shared]),
        TaskResult(task_id="t3", title="Jugendliche", evidence=[only_shared]),
    ]
    planned = plan_sections([], tasks, [E1, E2, E3, shared, only_shared])
    assert [[e.id for e in s.task.evidence] for s in planned] == [
        ["t1-b1-e1", "t1-b1-e2"],
        ["t2-b1-e1"],
        ["t3-b1-e1"],  # every quote of its own is held by an earlier section: it keeps them
    ]


def test_the_first_pass_measures_and_leaves_an_unusable_section_out() -> None:
    report = assemble_report(sections(), {0: GOOD, 1: WEAK}, question="Q?", language="de", final=False)
    assert [s.heading for s in report.sections] == ["Grenzwerte"]
    assert report.assembled == [] and not report.checks.passed
    kinds = [(p.kind, p.section, p.sentence) for p in report.checks.problems]
    assert ("repeated", "Ausnahmen", REPEATED) in kinds
    assert report.checks.sentences_written == 12 and report.checks.placeholders == 1
    assert report.guards.placeholder_claims_dropped == 1 and report.guards.repeated_claims_dropped == 7


def test_the_last_pass_assembles_the_section_from_its_findings_with_the_reason() -> None:
    report = assemble_report(sections(), {0: GOOD, 1: WEAK}, question="Q?", language="de", final=True)
    assert [s.heading for s in report.sections] == ["Grenzwerte", "Ausnahmen"]
    assembled = report.sections[1]
    assert assembled.note == f"{LABEL} (das Modell wiederholte seine Sätze)."
    # the answering finding only: the related one (answers=False) is left out while one answers
    assert [(c.text, c.evidence_ids) for c in assembled.claims] == [(E3.fact, [E3.id])]
    assert [(a.heading, a.task_id, a.reason) for a in report.assembled] == [
        ("Ausnahmen", "t2", "das Modell wiederholte seine Sätze")
    ]
    assert report.checks.passed and report.checks.sections_written == 1
    assert report.checks.sections_assembled == 1 and report.checks.repeated_share > 0.5
    assert report.notes == [
        "section 'Ausnahmen': Assembled from the verified findings, without the model's prose "
        "(the model repeated its sentences)"
    ]


def test_no_answer_and_mostly_uncited_sections_are_unusable() -> None:
    failed = draft(1, [], answered=False)
    uncited = draft(1, [("Erstens gilt etwas.", []), ("Zweitens gilt anderes.", []), ("Drittens.", [E3.id])])
    for second, reason in (
        (failed, "das Modell gab keine gültige Antwort"),
        (uncited, "die meisten Sätze des Modells nannten keinen Beleg"),
    ):
        report = assemble_report(sections(), {0: GOOD, 1: second}, question="Q?", language="de", final=True)
        assert [a.reason for a in report.assembled] == [reason]


def test_a_section_in_the_wrong_language_is_shown_with_its_problem() -> None:
    english = draft(1, [("The authority may allow exceptions.", [E3.id])], language_ok=False)
    first = assemble_report(sections(), {0: GOOD, 1: english}, question="Q?", language="de", final=False)
    assert [p.kind for p in first.checks.problems] == ["wrong_language"] and not first.notes
    last = assemble_report(sections(), {0: GOOD, 1: english}, question="Q?", language="de", final=True)
    assert [s.heading for s in last.sections] == ["Grenzwerte", "Ausnahmen"] and not last.assembled
    assert not last.checks.passed and not last.checks.language_ok
    assert last.notes == ["the report is not in the question's language (German) after a retry"]


def test_most_citations_weakly_supported_fails_the_report() -> None:
    flagged = [("Grenzwerte", "Der Grenzwert beträgt 20 Millisievert.")]
    assert with_support(ReportChecks(), flagged, 1, 2).passed  # half: not most
    failing = with_support(ReportChecks(), flagged, 2, 3)
    assert not failing.passed and failing.flagged_share == 0.667
    assert [(p.kind, p.sentence) for p in failing.problems] == [("weak_support", flagged[0][1])]


def test_an_assembled_finding_cites_all_its_quotes_and_one_they_do_not_state_is_left_out() -> None:
    """The CI failure of issue 26's stop: a finding (a whole Absatz) tied to two quotes, each alone holding
    only some of its provisions, was said citing one of them; the claim stated §§ its quote did not."""
    fact = "Die Behörde ermächtigt Ärzte nach den §§ 77 und 79, auch in Verbindung mit § 158 Absatz 3."
    split = [
        evidence("t2-b1-e1", "t2", fact).model_copy(
            update={"quote": "nach den §§ 77 und 79", "section": "§ 175"}
        ),
        evidence("t2-b1-e2", "t2", fact).model_copy(
            update={"quote": "in Verbindung mit § 158 Absatz 3", "section": "§ 175"}
        ),
    ]
    unstated = evidence("t2-b2-e1", "t2", "Es gilt § 81.").model_copy(
        update={"quote": "Es gilt die Vorschrift.", "section": "§ 175"}
    )
    tasks = [
        TaskResult(task_id="t1", title="Grenzwerte", evidence=[E1, E2]),
        TaskResult(task_id="t2", title="Ausnahmen", evidence=[*split, unstated]),
    ]
    planned = plan_sections([], tasks, [E1, E2, *split, unstated])
    report = assemble_report(planned, {0: GOOD, 1: WEAK}, question="Q?", language="de", final=True)
    assert [(c.text, c.evidence_ids) for c in report.sections[1].claims] == [(fact, ["t2-b1-e1", "t2-b1-e2"])]
