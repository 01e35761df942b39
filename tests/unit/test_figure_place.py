"""A figure the quote states, put where the quote gives another (issue 30; research.evidence.figure_place):
a claim's figure that its quote gives for another thing contradicts it, and is reported with what the
quote gives there; claims that state several figures of one unit where the quote gives them stay
supported."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np
import pytest

from rabbithole.embeddings.base import FloatArray, l2_normalize
from rabbithole.research.evidence.citations import DraftClaim
from rabbithole.research.evidence.claim_tokens import claim_tokens
from rabbithole.research.evidence.consistency import CitedText, contradictions, missing_from
from rabbithole.research.evidence.figure_place import figure_places
from rabbithole.research.evidence.support import SupportChecker, content_tokens
from rabbithole.research.models import Evidence
from rabbithole.research.synthesis.consistency import correct_claims

# StrlSchG § 78 (1) to (4) as it stands on page 53 of kb/sample's StrlSchG.pdf, line breaks included
STRLSCHG_78 = """(1) Der Grenzwert der effektiven Dosis beträgt für beruflich exponierte Personen 20
Millisievert im Kalenderjahr. Die zuständige Behörde kann im Einzelfall für ein einzelnes
Jahr eine effektive Dosis von 50 Millisievert zulassen, wobei in fünf aufeinander folgenden
Jahren insgesamt 100 Millisievert nicht überschritten werden dürfen.

(2) Der Grenzwert der Organ-Äquivalentdosis beträgt für beruflich exponierte Personen

1. für die Augenlinse 20 Millisievert im Kalenderjahr,

2. für die Haut, gemittelt über jede beliebige Hautfläche von einem Quadratzentimeter,
unabhängig von der exponierten Fläche, (lokale Hautdosis) 500 Millisievert im
Kalenderjahr und

3. für die Hände, die Unterarme, die Füße und Knöchel jeweils 500 Millisievert im
Kalenderjahr.

Für die Organ-Äquivalentdosis der Augenlinse gilt Absatz 1 Satz 2 entsprechend.

(3) Für beruflich exponierte Personen unter 18 Jahren beträgt der Grenzwert der effektiven
Dosis 1 Millisievert im Kalenderjahr. Der Grenzwert der Organ-Äquivalentdosis beträgt

1. für die Augenlinse 15 Millisievert im Kalenderjahr,

2. für die lokale Hautdosis 50 Millisievert im Kalenderjahr,

3. für die Hände, die Unterarme, die Füße und Knöchel jeweils 50 Millisievert im
Kalenderjahr.

Abweichend davon kann die zuständige Behörde für Auszubildende und Studierende im
Alter zwischen 16 und 18 Jahren einen Grenzwert von 6 Millisievert im Kalenderjahr für die
effektive Dosis und jeweils 150 Millisievert im Kalenderjahr für die Organ-Äquivalentdosis
der Haut, der Hände, der Unterarme, der Füße und Knöchel zulassen, wenn dies zur
Erreichung des Ausbildungszieles notwendig ist.

(4) Bei gebärfähigen Frauen beträgt der Grenzwert für die Organ- Äquivalentdosis der
Gebärmutter 2 Millisievert im Monat. Für ein ungeborenes Kind, das auf Grund der
Beschäftigung der Mutter einer Exposition ausgesetzt ist, beträgt der Grenzwert der
effektiven Dosis vom Zeitpunkt der Mitteilung über die Schwangerschaft bis zu deren Ende
1 Millisievert."""
WHOLE = CitedText(STRLSCHG_78, "StrlSchG.pdf", "§ 78")
# support_dev.yaml's n04 and s04: the quote as research cites it (cut from the page, line breaks kept)
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
UNDER_18 = (
    "Für beruflich exponierte Personen unter 18 Jahren beträgt der Grenzwert der effektiven\n"
    "Dosis 1 Millisievert im Kalenderjahr."
)


def swaps(claim: str, *cited: str | CitedText) -> list[tuple[str, str | None]]:
    """What contradicts the claim: (its token as written, what the quote gives there)."""
    return [(c.token.text, c.instead) for c in contradictions(claim, cited)]


def bag_embed(texts: Sequence[str]) -> FloatArray:
    """A deterministic hashed bag of content words, L2-normalised (no model)."""
    rows = np.zeros((len(texts), 64), dtype=np.float32)
    for i, text in enumerate(texts):
        for token in content_tokens(text):
            rows[i, int(hashlib.sha1(token.encode()).hexdigest(), 16) % 64] += 1.0
    return l2_normalize(rows)


def test_the_five_year_total_written_as_the_single_years_limit_is_a_contradiction() -> None:
    claim = (
        "Die Behörde kann im Einzelfall für ein einzelnes Jahr eine effektive Dosis von 100 Millisievert "
        "zulassen."
    )
    assert swaps(claim, SINGLE_YEAR) == [("100 Millisievert", "50 Millisievert")]
    assert [t.text for t in missing_from(claim, [SINGLE_YEAR])] == ["100 Millisievert"]
    [support] = SupportChecker(bag_embed).check([(claim, [SINGLE_YEAR])])
    assert support.score > 0.8  # every word and figure of the claim is in its quote
    assert (support.flagged, support.contradiction, support.missing, support.reason) == (
        True,
        True,
        ["100 Millisievert"],
        "contradiction",
    )
    # the total where the quote gives it, and the single year's 50, are what the quote says
    assert (
        swaps(
            "In fünf aufeinander folgenden Jahren dürfen insgesamt 100 mSv nicht überschritten werden.",
            SINGLE_YEAR,
        )
        == []
    )
    assert swaps(claim.replace("100", "50"), SINGLE_YEAR) == []


def test_the_adults_limit_written_for_persons_under_18_is_a_contradiction() -> None:
    claim = (
        "Für beruflich exponierte Personen unter 18 Jahren beträgt der Grenzwert der effektiven Dosis "
        "20 Millisievert im Kalenderjahr."
    )
    expected = [("20 Millisievert", "1 Millisievert")]
    assert swaps(claim, f"{ADULTS} {UNDER_18}") == expected  # one quote giving both
    assert swaps(claim, ADULTS, UNDER_18) == expected  # two quotes cited together
    assert swaps(claim, WHOLE) == expected  # the whole section with all its figures
    # the adults' limit written for adults, and 1 mSv for persons under 18, are supported
    assert (
        swaps(
            "Für beruflich exponierte Personen beträgt der Grenzwert 20 mSv im Kalenderjahr.",
            ADULTS,
            UNDER_18,
        )
        == []
    )
    assert swaps(claim.replace("20 Millisievert", "1 mSv"), ADULTS, UNDER_18) == []


@pytest.mark.parametrize(
    ("claim", "instead"),
    [
        (
            (
                "In fünf aufeinander folgenden Jahren dürfen insgesamt 50 Millisievert nicht "
                "überschritten werden."
            ),
            "100 Millisievert",
        ),
        ("Für ein ungeborenes Kind beträgt der Grenzwert 20 Millisievert.", "1 Millisievert"),
        # a rule's figure written for the exception that follows it in its Absatz
        ("Für ein ungeborenes Kind beträgt der Grenzwert 2 Millisievert.", "1 Millisievert"),
        (
            (
                "Auszubildende zwischen 16 und 18 Jahren dürfen eine effektive Dosis von 150 Millisievert "
                "erhalten."
            ),
            "6 Millisievert",
        ),
        (
            (
                "Für die Augenlinse gilt für beruflich exponierte Personen ein Grenzwert von 500 "
                "Millisievert im Kalenderjahr."
            ),
            "20 Millisievert",
        ),
    ],
)
def test_a_figure_of_the_section_put_in_another_figures_place_is_named_with_that_figure(
    claim: str, instead: str
) -> None:
    [(written, given)] = swaps(claim, WHOLE)
    assert given == instead
    assert written in claim


@pytest.mark.parametrize(
    "claim",
    [
        (
            "Der Grenzwert der effektiven Dosis für beruflich exponierte Personen beträgt 20 Millisievert "
            "im Kalenderjahr."
        ),
        (
            "Im Einzelfall kann die Behörde für ein einzelnes Jahr 50 mSv zulassen, in fünf aufeinander "
            "folgenden Jahren insgesamt aber nicht mehr als 100 mSv."
        ),
        (
            "Für die Augenlinse gilt ein Grenzwert von 20 Millisievert im Kalenderjahr, für die Haut und "
            "die Hände jeweils 500 Millisievert."
        ),
        (
            "Unter 18 Jahren gelten 1 mSv effektive Dosis, 15 mSv für die Augenlinse und 50 mSv für die "
            "lokale Hautdosis."
        ),
        (
            "Erwachsene beruflich exponierte Personen dürfen 20 mSv im Jahr erhalten, Personen unter 18 "
            "Jahren nur 1 mSv."
        ),
        (
            "Für Auszubildende und Studierende kann die Behörde 6 mSv effektive Dosis und 150 mSv "
            "Organ-Äquivalentdosis der Haut zulassen."
        ),
        "Auszubildende zwischen 16 und 18 Jahren können bis zu 6 Millisievert effektive Dosis erhalten.",
        "Bei gebärfähigen Frauen beträgt der Grenzwert für die Gebärmutter 2 Millisievert im Monat.",
        "Für ein ungeborenes Kind gilt ab Mitteilung der Schwangerschaft ein Grenzwert von 1 Millisievert.",
        "Der Grenzwert der Organ-Äquivalentdosis der Augenlinse beträgt 20 Millisievert im Kalenderjahr.",
        "Für Personen unter 18 Jahren gilt für Hände, Unterarme, Füße und Knöchel jeweils 50 Millisievert.",
        "Die Hautdosis ist auf 500 Millisievert im Kalenderjahr begrenzt.",
        (
            "The effective dose limit for occupationally exposed persons is 20 mSv per calendar year, 1 "
            "mSv for persons under 18."
        ),
        "The lens of the eye is limited to 20 mSv per year for adults and 15 mSv for workers under 18.",
        "For the hands, forearms, feet and ankles the limit is 500 mSv per calendar year.",
        (
            "Die Organ-Äquivalentdosis der Haut ist für Erwachsene auf 500 mSv, für Personen unter 18 "
            "Jahren auf 50 mSv begrenzt."
        ),
        "Für die Augenlinse gelten 20 mSv für Erwachsene und 15 mSv für Personen unter 18 Jahren.",
        (
            "Jugendliche unter 18 Jahren dürfen an der Augenlinse höchstens 15 Millisievert im "
            "Kalenderjahr erhalten."
        ),
        (
            "Trainees and students aged 16 to 18 may be allowed 6 mSv effective dose and 150 mSv for the "
            "skin and hands."
        ),
    ],
)
def test_claims_stating_several_figures_where_the_section_gives_them_stay_supported(claim: str) -> None:
    assert swaps(claim, WHOLE) == []
    [support] = SupportChecker(bag_embed).check([(claim, [WHOLE])])
    assert (support.contradiction, support.missing) == (False, [])


def test_several_amounts_where_the_quote_gives_them_stay_supported() -> None:
    quote = CitedText(
        "Die Regeldeckungssumme beträgt für Reaktoren mit einer Höchstleistung von bis zu 25 Megawatt 70 "
        "Millionen Euro und für jedes weitere Megawatt 2,5 Millionen Euro bis zum Höchstbetrag von 2,5 "
        "Milliarden Euro.",
        "AtDeckV.pdf",
        "§ 9",
    )
    claim = (
        "Bis 25 Megawatt beträgt die Regeldeckungssumme 70 Millionen Euro, je weiteres Megawatt 2,5 "
        "Millionen Euro."
    )
    assert swaps(claim, quote) == []
    assert (
        swaps(
            (
                "For reactors of up to 25 MW the standard cover is EUR 70 million plus EUR 2.5 million "
                "for each further megawatt."
            ),
            quote,
        )
        == []
    )
    assert swaps("Der Höchstbetrag der Regeldeckungssumme beträgt 2,5 Milliarden Euro.", quote) == []
    assert swaps("Die Regeldeckungssumme ist auf höchstens 2,5 Milliarden Euro begrenzt.", quote) == []
    # each further megawatt's amount written for the first 25 megawatts, and the reverse
    assert swaps(
        "Für Reaktoren bis 25 Megawatt beträgt die Regeldeckungssumme 2,5 Millionen Euro.", quote
    ) == [("2,5 Millionen Euro", "70 Millionen Euro")]
    assert swaps("Für jedes weitere Megawatt kommen 70 Millionen Euro hinzu.", quote) == [
        ("70 Millionen Euro", "2,5 Millionen Euro")
    ]


def test_a_claim_whose_words_point_to_neither_place_is_not_flagged() -> None:
    # nothing around the figure tells which of the quote's figures it is: no swap can be read
    assert swaps("Der Wert beträgt 100 Millisievert.", SINGLE_YEAR) == []
    assert swaps("The limit is 20 mSv.", ADULTS, UNDER_18) == []
    # a figure the quote gives once has no other place to be put in
    assert swaps("Für Personen unter 18 Jahren gilt 1 mSv.", UNDER_18) == []


def test_a_list_items_words_are_the_places_of_the_figure_they_lead_to() -> None:
    text = " ".join(STRLSCHG_78.split())
    tokens = claim_tokens(text)
    figures = [t for t in tokens if t.key in {"20 msv", "500 msv"}]
    places = {f.start: p.words for f, p in zip(figures, figure_places(text, tokens, figures), strict=True)}
    skin, hands = (places[f.start] for f in figures if f.key == "500 msv")
    effective, lens = (places[f.start] for f in figures if f.key == "20 msv")
    assert {"haut", "lokal", "hautdosi"} <= skin and "haend" not in skin  # "2. für die Haut, ..."
    assert {"haend", "unterarm", "fuess", "knoechel"} <= hands  # "3. für die Hände, die Unterarme, ..."
    assert "augenlins" in lens and "haut" not in lens
    # the enumeration's lead-in ("Der Grenzwert der Organ-Äquivalentdosis beträgt ...") is each item's
    assert all("aequivalentdosi" in p for p in (lens, skin, hands)) and "aequivalentdosi" not in effective
    assert not any("#2" in p or "#3" in p for p in places.values())  # list markers are not figures


def test_synthesis_rewrites_a_claim_whose_figure_stands_in_another_place() -> None:
    quote = " ".join(SINGLE_YEAR.text.split())
    found = Evidence(
        id="e1",
        task_id="t1",
        chunk_id="c1",
        collection="sample",
        document="StrlSchG.pdf",
        page=53,
        section="§ 78",
        quote=quote,
        start=0,
        end=len(quote),
        fact="Die Behörde kann für ein einzelnes Jahr 50 Millisievert zulassen.",
    )
    claim = DraftClaim(
        text="Für ein einzelnes Jahr kann die Behörde 100 Millisievert zulassen.", evidence_ids=["e1"]
    )
    out, fixes = correct_claims("Grenzwerte", [claim], {"e1": found})
    assert [c.text for c in out] == [found.fact]
    assert [(f.action, f.missing) for f in fixes] == [("rewritten", ["100 Millisievert"])]
