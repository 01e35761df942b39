"""The support check's contradiction flag (issue 30): a number or provision of a claim that none of its
quotes (nor their sections) states flags the citation, however similar claim and quote are."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np
import pytest

from rabbithole.embeddings.base import FloatArray, l2_normalize
from rabbithole.research.evidence.consistency import CitedText, missing_from
from rabbithole.research.evidence.support import SupportChecker, content_tokens

# StrlSchG § 78 (3) and AtG § 7 (1) as they stand on their pages (line breaks included)
UNDER_18 = (
    "Für beruflich exponierte Personen unter 18 Jahren beträgt der Grenzwert der effektiven\n"
    "Dosis 1 Millisievert im Kalenderjahr."
)
ATG_7 = (
    "Wer eine ortsfeste Anlage zur Erzeugung oder zur Bearbeitung oder Verarbeitung oder zur Spaltung von\n"
    "Kernbrennstoffen oder zur Aufarbeitung bestrahlter Kernbrennstoffe errichtet, betreibt oder sonst\n"
    "innehat oder die Anlage oder ihren Betrieb wesentlich verändert, bedarf der Genehmigung."
)
FREIGABE = CitedText(
    "Eine Freigabe ersetzt keine Genehmigung nach § 7 Absatz 3 des Atomgesetzes.", "StrlSchV.pdf", "§ 31"
)


def bag_embed(texts: Sequence[str]) -> FloatArray:
    """A deterministic hashed bag of content words, L2-normalised (no model)."""
    rows = np.zeros((len(texts), 64), dtype=np.float32)
    for i, text in enumerate(texts):
        for token in content_tokens(text):
            rows[i, int(hashlib.sha1(token.encode()).hexdigest(), 16) % 64] += 1.0
    return l2_normalize(rows)


def check(claim: str, *cited: str | CitedText, **options: bool) -> list[object]:
    [support] = SupportChecker(bag_embed, **options).check([(claim, list(cited))])
    return [support.flagged, support.contradiction, support.missing, support.reason]


def test_twenty_millisievert_under_a_quote_of_one_is_a_contradiction() -> None:
    claim = (
        "Für beruflich exponierte Personen unter 18 Jahren beträgt der Grenzwert der effektiven Dosis "
        "20 Millisievert im Kalenderjahr."
    )
    [support] = SupportChecker(bag_embed).check([(claim, [UNDER_18])])
    assert support.score > 0.8  # the words agree: the scores alone let it through
    assert (support.flagged, support.contradiction, support.missing, support.reason) == (
        True,
        True,
        ["20 Millisievert"],
        "contradiction",
    )


def test_the_same_figure_in_other_notation_is_supported() -> None:
    assert check("Unter 18 Jahren gilt ein Grenzwert von 1 mSv im Kalenderjahr.", UNDER_18) == [
        False,
        False,
        [],
        None,
    ]
    # the page breaks the line between number and unit: "1\nMillisievert" states 1 mSv all the same
    assert check("Grenzwert effektive Dosis unter 18 Jahren: 1 Millisievert", UNDER_18)[1] is False


def test_section_9_of_the_atg_under_a_quote_from_section_7_is_a_contradiction() -> None:
    cited = CitedText(ATG_7, document="AtG.pdf", section="§ 7")
    claim = (
        "Nach § 9 AtG bedarf der Genehmigung, wer eine ortsfeste Anlage zur Spaltung von Kernbrennstoffen "
        "errichtet."
    )
    assert check(claim, cited) == [True, True, ["§ 9 AtG"], "contradiction"]
    # the same claim naming § 7, in either spelling of the law, is what the quote's section states
    assert check(claim.replace("§ 9 AtG", "§ 7 AtG"), cited) == [False, False, [], None]
    assert check(claim.replace("§ 9 AtG", "§ 7 des Atomgesetzes"), cited)[1] is False
    # § 7 of another law is not this quote's
    assert check(claim.replace("§ 9 AtG", "§ 7 StrlSchG"), cited)[2] == ["§ 7 StrlSchG"]


def test_a_provision_the_quote_names_matches_its_other_spelling() -> None:
    assert check("Eine Freigabe ersetzt keine Genehmigung nach § 7 Abs. 3 AtG.", FREIGABE)[1] is False
    assert check("Eine Freigabe ersetzt keine Genehmigung nach § 7 des Atomgesetzes.", FREIGABE)[1] is False
    assert check("Eine Freigabe ersetzt keine Genehmigung nach § 7 Absatz 1 AtG.", FREIGABE)[2] == [
        "§ 7 Absatz 1 AtG"
    ]
    assert check("Eine Freigabe ersetzt keine Genehmigung nach § 9 Absatz 3 AtG.", FREIGABE)[2] == [
        "§ 9 Absatz 3 AtG"
    ]


def test_a_provision_without_a_law_in_the_quote_belongs_to_its_document() -> None:
    quote = (
        "Wer Kernbrennstoffe außerhalb von Anlagen der in § 7 bezeichneten Art bearbeitet, bedarf der "
        "Genehmigung."
    )
    cited = CitedText(quote, document="AtG.pdf", section="§ 9")
    claim = (
        "Wer Kernbrennstoffe außerhalb von Anlagen nach § 7 AtG bearbeitet, braucht eine Genehmigung nach "
        "§ 9 AtG."
    )
    assert missing_from(claim, [cited]) == []
    assert [t.text for t in missing_from("Anlagen nach § 7 StrlSchV", [cited])] == ["§ 7 StrlSchV"]
    assert CitedText(quote, document="docs/AtG.pdf").laws == ("AtG",)
    assert CitedText(quote).laws == ()


def test_a_claim_with_figures_from_several_quotes_is_covered_by_them_together() -> None:
    first = "Der Grenzwert der effektiven Dosis beträgt für beruflich exponierte Personen 20 Millisievert."
    claim = "Der Grenzwert beträgt 20 Millisievert, unter 18 Jahren 1 Millisievert im Kalenderjahr."
    assert check(claim, first)[2] == ["18 Jahren", "1 Millisievert"]
    assert check(claim, first, UNDER_18)[1] is False


def test_each_missing_token_is_named_once_in_the_order_written() -> None:
    claim = "Bis 2031, spätestens nach 3 Monaten, zahlen sie 50 Euro; bis 2031 auch 5 %."
    assert check(claim, "Ein Text ohne Zahlen.")[2] == ["2031", "3 Monaten", "50 Euro", "5 %"]


def test_a_weak_citation_without_a_contradiction_is_flagged_weak() -> None:
    flagged, contradiction, missing, reason = check(
        "Das Endlager muss rückholbar sein.", "Die Kosten trägt der Abfallerzeuger.", threshold=0.15
    )
    assert (flagged, contradiction, missing, reason) == (True, False, [], "weak")


def test_without_the_contradiction_check_only_the_scores_decide() -> None:
    claim = "Unter 18 Jahren beträgt der Grenzwert der effektiven Dosis 20 Millisievert im Kalenderjahr."
    assert check(claim, UNDER_18, contradictions=False) == [False, False, [], None]


@pytest.mark.parametrize("claim", ["Der Grenzwert ist niedrig.", "Kein Grenzwert gilt hier."])
def test_a_claim_without_figures_or_provisions_is_never_contradicted(claim: str) -> None:
    assert missing_from(claim, ["Ein anderer Text über Genehmigungen."]) == []


def test_a_quote_without_its_place_is_checked_for_figures_but_not_provisions() -> None:
    # which § a bare quote is from is unknown: "§ 9 AtG" cannot be told from "§ 7 AtG" by its text alone
    claim = "Nach § 9 AtG bedarf der Genehmigung, wer eine Anlage zur Spaltung von Kernbrennstoffen betreibt."
    assert check(claim, ATG_7)[1] is False
    assert check(claim, CitedText(ATG_7, document="AtG.pdf"))[1] is False  # a web page has no section
    assert check(claim, CitedText(ATG_7, "AtG.pdf", "§ 7"), ATG_7)[1] is False  # one quote without it
    assert check(claim, CitedText(ATG_7, "AtG.pdf", "§ 7"))[2] == ["§ 9 AtG"]
    assert check("Personen unter 18 Jahren: 20 Millisievert", UNDER_18)[2] == ["20 Millisievert"]
    assert (
        check("Eine Freigabe nach § 31 StrlSchV ersetzt keine Genehmigung nach § 7 Abs. 3 AtG.", FREIGABE)[1]
        is False
    )


# StrlSchG § 78 (1) as it stands on its page: the single year's 50 and the five years' 100 Millisievert
SINGLE_YEAR = CitedText(
    "Die zuständige Behörde kann im Einzelfall für ein einzelnes\nJahr eine effektive Dosis von 50 "
    "Millisievert zulassen, wobei in fünf aufeinander folgenden\nJahren insgesamt 100 Millisievert nicht "
    "überschritten werden dürfen.",
    "StrlSchG.pdf",
    "§ 78",
)
ADULTS = (
    "Der Grenzwert der effektiven Dosis beträgt für beruflich exponierte Personen 20\n"
    "Millisievert im Kalenderjahr."
)


def test_a_figure_its_quote_gives_for_another_thing_is_a_contradiction() -> None:
    # support_dev.yaml's n04: the five years' total written as the single year's limit
    claim = (
        "Die Behörde kann im Einzelfall für ein einzelnes Jahr eine effektive Dosis von 100 Millisievert "
        "zulassen."
    )
    assert check(claim, SINGLE_YEAR) == [True, True, ["100 Millisievert"], "contradiction"]
    # issue 30: the adults' 20 Millisievert written for persons under 18, both quotes cited
    claim = (
        "Für beruflich exponierte Personen unter 18 Jahren beträgt der Grenzwert der effektiven Dosis 20 mSv."
    )
    assert check(claim, ADULTS, UNDER_18) == [True, True, ["20 mSv"], "contradiction"]
    assert [t.text for t in missing_from(claim, [f"{ADULTS} {UNDER_18}"])] == ["20 mSv"]


def test_claims_stating_several_figures_of_one_unit_where_the_quote_gives_them_are_supported() -> None:
    claim = (
        "Im Einzelfall kann die Behörde für ein einzelnes Jahr 50 Millisievert zulassen, sofern in fünf "
        "aufeinander folgenden Jahren insgesamt 100 Millisievert nicht überschritten werden."
    )
    assert check(claim, SINGLE_YEAR) == [False, False, [], None]
    claim = (
        "Erwachsene beruflich exponierte Personen: 20 mSv im Kalenderjahr, Personen unter 18 Jahren: 1 mSv."
    )
    assert check(claim, ADULTS, UNDER_18) == [False, False, [], None]
