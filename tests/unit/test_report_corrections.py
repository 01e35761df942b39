"""Report mode corrects sentences that contradict their evidence (issue 30), through ``checked_report``: a
research section against its own evidence, a framing section against the research sections' evidence it
cites, each correction recorded in the checks and warned."""

from __future__ import annotations

from rabbithole.research.evidence.citations import DraftClaim, DraftSection
from rabbithole.research.models import Evidence
from rabbithole.research.report.checking import CheckedReport, checked_report
from rabbithole.research.report.models import SectionResult, SectionSpec

YEAR = "Der Grenzwert der effektiven Dosis beträgt für beruflich exponierte Personen 20 Millisievert."
CAREER = "Die Summe der effektiven Dosen über das Berufsleben darf 400 Millisievert nicht überschreiten."
YEAR_FACT = "Für beruflich exponierte Personen gelten 20 Millisievert im Kalenderjahr."


def evidence(eid: str, quote: str, fact: str, start: int) -> Evidence:
    return Evidence(
        id=eid, task_id="s1-p0-d0", chunk_id=f"c{start}", collection="sample", document="StrlSchG.pdf",
        page=52, quote=quote, start=start, end=start + len(quote), fact=fact, relevance=0.9, tier="primary",
        tier_score=0.9,
    )  # fmt: skip


#: the year's finding states what its quote does; the career's finding states a figure its quote does not
E_YEAR = evidence("s1-p0-d0-b0-e1", YEAR, YEAR_FACT, 0)
E_CAREER = evidence("s1-p0-d0-b0-e2", CAREER, "Über das Berufsleben gelten 500 Millisievert.", 400)


def section(sid: str, title: str, claims: list[DraftClaim], research: bool = True) -> SectionResult:
    return SectionResult(
        section=SectionSpec(id=sid, title=title, research=research),
        draft=DraftSection(heading=title, claims=claims),
        evidence=[E_YEAR, E_CAREER] if research else [],
    )


def checked(framing: list[DraftClaim]) -> CheckedReport:
    """A research section whose career sentence states 500 Millisievert (its evidence: 400, and its finding
    states 500 too: nothing to replace it with), and a framing section with ``framing``."""
    limits = section(
        "s1",
        "Dosisgrenzwerte",
        [
            DraftClaim(text="Im Kalenderjahr gelten 20 Millisievert.", evidence_ids=[E_YEAR.id]),
            DraftClaim(text="Für das Berufsleben gelten 500 Millisievert.", evidence_ids=[E_CAREER.id]),
        ],
    )
    conclusion = section("s2", "Fazit", framing, research=False)
    mapping = {E_YEAR.id: E_YEAR.id, E_CAREER.id: E_CAREER.id}
    return checked_report(
        "Strahlenschutz", [limits, conclusion], mapping, question="Grenzwerte", language="de"
    )


def claims_of(report: CheckedReport, heading: str) -> list[tuple[str, list[str]]]:
    return [(c.text, c.evidence_ids) for r, d in report.sections if d.heading == heading for c in d.claims]


def test_a_framing_sentence_is_corrected_against_the_research_evidence_it_cites() -> None:
    report = checked(
        [
            DraftClaim(
                text="Über das Berufsleben sind höchstens 400 Millisievert zulässig.",
                evidence_ids=[E_CAREER.id],
            ),
            DraftClaim(text="Im Kalenderjahr gelten 987 Millisievert.", evidence_ids=[E_YEAR.id]),
        ]
    )
    # the research section's 500 Millisievert is removed: no finding it cites states what its quote does
    assert claims_of(report, "Dosisgrenzwerte") == [("Im Kalenderjahr gelten 20 Millisievert.", [E_YEAR.id])]
    # the framing sentence its quote supports keeps its citation, though no research sentence cites it now;
    # the one stating 987 Millisievert is replaced by the finding it cites
    assert claims_of(report, "Fazit") == [
        ("Über das Berufsleben sind höchstens 400 Millisievert zulässig.", [E_CAREER.id]),
        (YEAR_FACT, [E_YEAR.id]),
    ]
    fixed = [(c.section, c.sentence, c.missing, c.action, c.replacement) for c in report.checks.corrections]
    assert fixed == [
        (
            "Dosisgrenzwerte",
            "Für das Berufsleben gelten 500 Millisievert.",
            ["500 Millisievert"],
            "removed",
            None,
        ),
        ("Fazit", "Im Kalenderjahr gelten 987 Millisievert.", ["987 Millisievert"], "rewritten", YEAR_FACT),
    ]
    assert report.checks.contradictions == 2
    assert any(
        "2 sentence(s) stated a number" in n and "1 replaced" in n and "1 removed" in n for n in report.notes
    )


def test_a_framing_sentence_citing_nothing_or_stating_what_its_quote_does_stays() -> None:
    framing = [
        DraftClaim(text="Der Bericht fasst die Grenzwerte zusammen.", evidence_ids=[]),
        DraftClaim(text="Im Kalenderjahr sind es 20 Millisievert.", evidence_ids=[E_YEAR.id]),
    ]
    report = checked(framing)
    assert [text for text, _ in claims_of(report, "Fazit")] == [c.text for c in framing]
    assert [c.section for c in report.checks.corrections] == ["Dosisgrenzwerte"]
