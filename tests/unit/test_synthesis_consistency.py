"""Claims checked against the quotes they cite (issue 30): a number or provision the quotes do not state
is a contradiction; the sentence is replaced by a cited finding that its quote supports, or removed."""

from __future__ import annotations

from rabbithole.research.evidence.citations import DraftClaim
from rabbithole.research.evidence.consistency import missing_from
from rabbithole.research.models import Evidence
from rabbithole.research.synthesis.consistency import cited_text, correct_claims, finding_claims

QUOTE = (
    "Für beruflich exponierte Personen unter 18 Jahren beträgt der Grenzwert der effektiven Dosis "
    "1 Millisievert im Kalenderjahr."
)


def evidence(
    eid: str, quote: str, fact: str, *, document: str = "StrlSchG.pdf", section: str | None = None
) -> Evidence:
    return Evidence(
        id=eid,
        task_id="t1",
        chunk_id=f"c-{eid}",
        collection="sample",
        document=document,
        page=1,
        section=section,
        quote=quote,
        start=0,
        end=len(quote),
        fact=fact,
    )


E1 = evidence("e1", QUOTE, "Unter 18 Jahren gilt ein Grenzwert von 1 mSv im Kalenderjahr.")
E2 = evidence(
    "e2",
    "Die Genehmigung ist zu versagen, wenn die Voraussetzungen fehlen.",
    "Eine Versagung ist möglich.",
    document="AtG.pdf",
    section="§ 7",
)
E3 = evidence("e3", QUOTE, "Der Grenzwert beträgt 20 Millisievert.")  # a fact its quote does not state
BY_ID = {e.id: e for e in (E1, E2, E3)}


def test_the_motivating_contradiction_is_replaced_by_the_finding_its_quote_supports() -> None:
    claims = [
        DraftClaim(
            text="Für Personen unter 18 Jahren gelten 20 Millisievert im Kalenderjahr.", evidence_ids=["e1"]
        )
    ]
    out, fixes = correct_claims("Grenzwerte", claims, BY_ID)
    assert [(c.text, c.evidence_ids) for c in out] == [(E1.fact, ["e1"])]
    assert [(f.action, f.missing, f.replacement) for f in fixes] == [
        ("rewritten", ["20 Millisievert"], E1.fact)
    ]


def test_the_same_figure_written_another_way_is_supported() -> None:
    claims = [
        DraftClaim(text="Unter 18 Jahren gilt 1 mSv pro Kalenderjahr.", evidence_ids=["e1"]),
        DraftClaim(text="Nach § 7 des Atomgesetzes ist die Genehmigung zu versagen.", evidence_ids=["e2"]),
        DraftClaim(text="Die Genehmigung kann versagt werden.", evidence_ids=["e2"]),
    ]
    out, fixes = correct_claims("S", claims, BY_ID)
    assert out == claims and fixes == []


def test_another_provision_is_replaced_and_without_a_supported_finding_the_sentence_goes() -> None:
    claims = [
        DraftClaim(text="Nach § 9 AtG ist die Genehmigung zu versagen.", evidence_ids=["e2"]),
        DraftClaim(text="Der Grenzwert liegt bei 6 Millisievert.", evidence_ids=["e3"]),
        DraftClaim(text="Die Behörde entscheidet über 5 Anträge.", evidence_ids=[]),  # uncited: left alone
    ]
    out, fixes = correct_claims("S", claims, BY_ID)
    assert [c.text for c in out] == [E2.fact, "Die Behörde entscheidet über 5 Anträge."]
    assert [(f.action, f.missing) for f in fixes] == [
        ("rewritten", ["§ 9 AtG"]),
        ("removed", ["6 Millisievert"]),
    ]


def test_a_finding_is_said_citing_every_quote_of_it_and_only_when_they_state_its_provisions() -> None:
    """Extraction ties one fact to several runs of sentences, each its own piece of evidence; one alone may
    hold only some of the fact's provisions (a whole Absatz copied as the fact, quoted in two places)."""
    fact = "Die Behörde ermächtigt Ärzte nach den §§ 77 und 79, auch in Verbindung mit § 158 Absatz 3."
    first = evidence("p1", "Überwachung nach den §§ 77 und 79", fact, section="§ 175")
    second = evidence("p2", "auch in Verbindung mit § 158 Absatz 3", fact, section="§ 175")
    alone = evidence(
        "p3", "Überwachung nach den §§ 77 und 79", "Es gelten die §§ 77, 78 und 79.", section="§ 175"
    )
    claims = finding_claims([first, alone, second, E1])
    assert [(c.text, c.evidence_ids) for c in claims] == [(fact, ["p1", "p2"]), (E1.fact, ["e1"])]
    assert missing_from(fact, [cited_text(first)]) != []  # the first quote alone would not state it
