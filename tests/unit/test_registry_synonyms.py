"""German name forms, abbreviation fitting and corpus mining of the document registry."""

from __future__ import annotations

import pytest

from rabbithole.core.models import ParsedDocument
from rabbithole.registry.mining import (
    abbreviation_groups,
    collect_names,
    fit_cost,
    iter_law_names,
    mine_short_names,
)
from rabbithole.registry.synonyms import (
    clean_name,
    name_forms,
    normalize_key,
    normalize_words,
    split_year,
    title_and_abbreviation,
    title_forms,
)


def load_corpus(parsed: dict[str, ParsedDocument]) -> tuple[list[tuple[str, str, str]], dict[str, str]]:
    """(PDF name, title, abbreviation) per law as the parser read them from kb/sample, and the texts."""
    documents = [(name, *title_and_abbreviation(doc.title, doc.abbreviation)) for name, doc in parsed.items()]
    return documents, {name: doc.text for name, doc in parsed.items()}


# -- normalization ------


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("des Atomgesetzes", "atomgesetzes"),
        ("nach dem  Strahlenschutzgesetz", "strahlenschutzgesetz"),
        ("gemäß der\nStrahlenschutzverordnung", "strahlenschutzverordnung"),
        ("StrlSchV 2018", "strlschv2018"),
        ("AtZüV", "atzuv"),
        ("AtZueV", "atzuv"),
        ("Entsorgungsübergangsgesetz", "entsorgungsubergangsgesetz"),
        ("Entsorgungsuebergangsgesetz", "entsorgungsubergangsgesetz"),
        ("Deckungsvorsorge- Verordnung", "deckungsvorsorgeverordnung"),
        ("Die", ""),
        ("  ", ""),
    ],
)
def test_normalize_key(text: str, key: str) -> None:
    assert normalize_key(text) == key


def test_normalize_words_keeps_word_boundaries() -> None:
    assert (
        normalize_words("des Gesetzes über die friedliche Verwendung")
        == "gesetzes uber die friedliche verwendung"
    )
    assert clean_name("Atomrechtliche   Zuverlässigkeitsüberprüfungs-\nVerordnung") == (
        "Atomrechtliche Zuverlässigkeitsüberprüfungs-Verordnung"
    )


def test_split_year_and_parenthetical_abbreviation() -> None:
    assert split_year("StrlSchV 2018") == ("StrlSchV", "2018")
    assert split_year("AtAV 2009") == ("AtAV", "2009")
    assert split_year("AtG") == ("AtG", None)
    assert split_year("IMIS-ZustV") == ("IMIS-ZustV", None)
    title = "Gesetz über die friedliche Verwendung der Kernenergie und den Schutz gegen ihre Gefahren"
    assert title_and_abbreviation(f"{title} (AtG)", "AtG") == (title, "AtG")
    assert title_and_abbreviation(f"{title} (AtG)", "") == (title, "AtG")
    # the PDF parser gives the abbreviation without its year; the title's parenthesis has it
    assert title_and_abbreviation("Verordnung über X (StrlSchV 2018)", "StrlSchV") == (
        "Verordnung über X",
        "StrlSchV 2018",
    )
    assert title_and_abbreviation("Verordnung über X (StrlSchV 2018)", "StrlSchV 2018") == (
        "Verordnung über X",
        "StrlSchV 2018",
    )
    assert title_and_abbreviation("Verordnung (EU)", "") == ("Verordnung (EU)", "")
    assert title_and_abbreviation("Bericht (Entwurf)", "") == ("Bericht (Entwurf)", "")
    assert title_and_abbreviation("Gesetz über Y (AtG)", "StrlSchG") == ("Gesetz über Y (AtG)", "StrlSchG")


# -- case forms ------


def test_name_forms_neuter_law() -> None:
    forms = name_forms("Atomgesetz")
    for expected in [
        "Atomgesetz",
        "Atomgesetzes",
        "Atomgesetze",
        "das Atomgesetz",
        "des Atomgesetzes",
        "dem Atomgesetz",
        "die Atomgesetze",
    ]:
        assert expected in forms
    assert "Atomgesetzs" not in forms  # genitive of -z nouns is -es only


def test_name_forms_feminine_is_invariant_in_singular() -> None:
    forms = name_forms("Strahlenschutzverordnung")
    assert {
        "Strahlenschutzverordnung",
        "die Strahlenschutzverordnung",
        "der Strahlenschutzverordnung",
    } <= set(forms)
    assert "Strahlenschutzverordnunges" not in forms


def test_name_forms_with_adjective_and_coordination() -> None:
    forms = name_forms("Atomrechtliche Verfahrensverordnung")
    assert "der Atomrechtlichen Verfahrensverordnung" in forms
    assert "die Atomrechtliche Verfahrensverordnung" in forms
    forms = name_forms("Atomrechtliche Sicherheitsbeauftragten- und Meldeverordnung")
    assert "der Atomrechtlichen Sicherheitsbeauftragten- und Meldeverordnung" in forms
    forms = name_forms("Bürgerliches Gesetzbuch")
    assert {
        "des Bürgerlichen Gesetzbuchs",
        "das Bürgerliche Gesetzbuch",
        "dem Bürgerlichen Gesetzbuch",
    } <= set(forms)


def test_name_forms_unknown_head_returns_name_only() -> None:
    assert name_forms("Kerntechnischer Ausschuss") == ["Kerntechnischer Ausschuss"]


def test_title_forms() -> None:
    title = "Gesetz über die friedliche Verwendung der Kernenergie und den Schutz gegen ihre Gefahren"
    forms = title_forms(title)
    assert forms[0] == title
    assert f"des Gesetzes {title[7:]}" in forms
    assert f"dem Gesetz {title[7:]}" in forms
    forms = title_forms("Verordnung zum Schutz vor der schädlichen Wirkung ionisierender Strahlung")
    assert "der Verordnung zum Schutz vor der schädlichen Wirkung ionisierender Strahlung" in forms
    forms = title_forms("Kostenverordnung zum Atomgesetz und zum Strahlenschutzgesetz")
    assert "der Kostenverordnung zum Atomgesetz und zum Strahlenschutzgesetz" in forms
    assert title_forms("Annual report 2021") == ["Annual report 2021"]
    assert title_forms("") == []


# -- fitting names to abbreviations ------


def test_abbreviation_groups() -> None:
    assert abbreviation_groups("StrlSchV 2018") == (["strl", "sch"], "verordnung")
    assert abbreviation_groups("AtG") == (["at"], "gesetz")
    assert abbreviation_groups("EntsorgÜG") == (["entsorg", "ü"], "gesetz")
    assert abbreviation_groups("BGB") == (["b"], "gesetzbuch")
    assert abbreviation_groups("IMIS-ZustV") == (["i", "m", "i", "s", "zust"], "verordnung")
    assert abbreviation_groups("G") is None  # nothing before the head
    assert abbreviation_groups("KTA 1401") is None
    assert abbreviation_groups("") is None
    assert abbreviation_groups("Bericht") is None


@pytest.mark.parametrize(
    ("name", "abbreviation"),
    [
        ("Atomgesetz", "AtG"),
        ("Strahlenschutzgesetz", "StrlSchG"),
        ("Strahlenschutzverordnung", "StrlSchV 2018"),
        ("Standortauswahlgesetz", "StandAG 2017"),
        ("Entsorgungsübergangsgesetz", "EntsorgÜG"),
        ("Atomrechtliche Deckungsvorsorge-Verordnung", "AtDeckV 1977"),
        ("Atomrechtliche Verfahrensverordnung", "AtVfV"),
        ("Atomrechtliche Sicherheitsbeauftragten- und Meldeverordnung", "AtSMV"),
        ("Endlagervorausleistungsverordnung", "EndlagerVlV"),
        ("Bundes-Immissionsschutzgesetz", "BImSchG"),
        ("Bürgerliches Gesetzbuch", "BGB"),
    ],
)
def test_fit_cost_accepts(name: str, abbreviation: str) -> None:
    assert fit_cost(name, abbreviation) is not None


@pytest.mark.parametrize(
    ("name", "abbreviation"),
    [
        ("Atomgesetz", "AtDeckV"),  # head: gesetz is not a Verordnung
        ("Atomgesetz", "AtEV"),
        ("Atomgesetz", "StrlSchG"),
        ("Strahlenschutzverordnung", "StrlSchG"),
        ("Atomrechtliche Neue Entsorgungsverordnung", "AtEV"),  # "Neue" takes no letter
        ("Entsorgungsverordnung", "AtEV"),  # must start with the first group
        ("Gesetz", "AtG"),
        ("Endlagersicherheitsanforderungsverordnung", "EndlSiUntV"),
    ],
)
def test_fit_cost_rejects(name: str, abbreviation: str) -> None:
    assert fit_cost(name, abbreviation) is None


def test_fit_cost_prefers_the_closer_name() -> None:
    right = fit_cost("Strahlenschutzgesetz", "StrlSchG")
    longer = fit_cost("Strahlenschutzvorsorgegesetz", "StrlSchG")
    assert right is not None and longer is not None and right + 0.5 < longer
    atom = fit_cost("Atomgesetz", "AtG")
    aktien = fit_cost("Aktiengesetz", "AtG")
    assert atom is not None and aktien is not None and atom + 0.5 < aktien


# -- scanning texts ------


def test_iter_law_names_variants_and_definitions() -> None:
    text = (
        "nach § 7 des Atomgesetzes (AtG) und der Atomrechtlichen Deckungsvorsorge-\nVerordnung sowie der "
        "Atomrechtlichen Sicherheitsbeauftragten- und Meldeverordnung; der Gesetzgeber; des Strahlenschutz-\n"
        "gesetzes; Bundes-Immissionsschutzgesetzes; Ordnungswidrigkeiten"
    )
    found = list(iter_law_names(text))
    assert (["Atomgesetz"], "AtG") in found
    assert (["Atomrechtliche Deckungsvorsorge-Verordnung", "Deckungsvorsorge-Verordnung"], None) in found
    assert (
        [
            "Atomrechtliche Sicherheitsbeauftragten- und Meldeverordnung",
            "Sicherheitsbeauftragten- und Meldeverordnung",
            "Meldeverordnung",
        ],
        None,
    ) in found
    assert (["Strahlenschutzgesetz"], None) in found  # PDF hyphenation joined
    assert (["Bundes-Immissionsschutzgesetz"], None) in found
    assert len(found) == 5  # not "Gesetzgeber", not "Ordnungswidrigkeiten"


def test_collect_names_counts_inflections_together() -> None:
    names = collect_names(["des Atomgesetzes", "dem Atomgesetz", "das Atomgesetz (AtG)"])
    candidate = names["atomgesetz"]
    assert candidate.occurrences == 3
    assert candidate.definitions["atg"] == 1


# -- mining ------


def test_mining_assigns_names_only_to_the_fitting_document() -> None:
    texts = [
        "nach § 7 des Atomgesetzes, dem Atomgesetz, der Atomrechtlichen Deckungsvorsorge-Verordnung, "
        "des Strahlenschutzgesetzes, des Strahlenschutzvorsorgegesetzes, des Aktiengesetzes, "
        "des Verwaltungsverfahrensgesetzes, der Rechtsverordnung, des Bundes-Immissionsschutzgesetzes"
    ]
    documents = [
        ("AtG.pdf", "AtG"),
        ("AtDeckV.pdf", "AtDeckV 1977"),
        ("AtEV.pdf", "AtEV"),
        ("StrlSchG.pdf", "StrlSchG"),
    ]
    result = mine_short_names(documents, texts)
    assert [n.name for n in result.for_document("AtG.pdf")] == ["Atomgesetz"]
    assert [n.name for n in result.for_document("AtDeckV.pdf")] == [
        "Atomrechtliche Deckungsvorsorge-Verordnung"
    ]
    assert result.for_document("AtEV.pdf") == []
    assert [n.name for n in result.for_document("StrlSchG.pdf")] == ["Strahlenschutzgesetz"]
    assert result.rejected["Strahlenschutzvorsorgegesetz"] == "StrlSchG.pdf"
    assert result.rejected["Aktiengesetz"] == "AtG.pdf"
    assert not result.ambiguous


def test_mining_leaves_out_names_that_fit_several_documents() -> None:
    texts = ["der Strahlenschutzverordnung und der Strahlenschutzverordnung"]
    result = mine_short_names([("old.pdf", "StrlSchV 2001"), ("new.pdf", "StrlSchV 2018")], texts)
    assert result.names == []
    assert result.ambiguous == {"Strahlenschutzverordnung": ["new.pdf", "old.pdf"]}


def test_mining_without_abbreviations_or_texts() -> None:
    assert mine_short_names([("report.pdf", "")], ["des Atomgesetzes"]).names == []
    assert mine_short_names([("AtG.pdf", "AtG")], []).names == []


#: What mining derives from the 17 laws of the sample corpus (short names only).
EXPECTED_SHORT_NAMES: dict[str, list[str]] = {
    "AtAV.pdf": ["Atomrechtliche Abfallverbringungsverordnung"],
    "AtDeckV.pdf": ["Atomrechtliche Deckungsvorsorge-Verordnung"],
    "AtEV.pdf": ["Atomrechtliche Entsorgungsverordnung"],
    "AtG.pdf": ["Atomgesetz"],
    "AtKostV.pdf": [],
    "AtSMV.pdf": ["Atomrechtliche Sicherheitsbeauftragten- und Meldeverordnung"],
    "AtVfV.pdf": ["Atomrechtliche Verfahrensverordnung"],
    "AtZüV.pdf": ["Atomrechtliche Zuverlässigkeitsüberprüfungs-Verordnung"],
    "BAStrlSchG.pdf": [],
    "EndlagerVlV.pdf": ["Endlagervorausleistungsverordnung"],
    "EndlSiAnfV.pdf": ["Endlagersicherheitsanforderungsverordnung"],
    "EndlSiUntV.pdf": [],
    "EntsorgÜG.pdf": ["Entsorgungsübergangsgesetz"],
    "IMIS-ZustV.pdf": [],
    "StandAG.pdf": ["Standortauswahlgesetz"],
    "StrlSchG.pdf": ["Strahlenschutzgesetz"],
    "StrlSchV.pdf": ["Strahlenschutzverordnung"],
}


def test_mining_the_real_corpus(sample_documents: dict[str, ParsedDocument]) -> None:
    documents, texts = load_corpus(sample_documents)
    assert len(documents) == 17
    result = mine_short_names([(file_name, abbr) for file_name, _title, abbr in documents], texts.values())
    derived = {file_name: [n.name for n in result.for_document(file_name)] for file_name, _t, _a in documents}
    assert derived == EXPECTED_SHORT_NAMES
    assert not result.ambiguous
    # other laws that happen to fit an abbreviation lose to the closer name
    assert result.rejected.get("Strahlenschutzvorsorgegesetz") == "StrlSchG.pdf"
    assert "Aktiengesetz" not in derived["AtG.pdf"]
    # the explicit "des Atomgesetzes (AtG)" in the corpus
    assert next(n for n in result.names if n.name == "Atomgesetz").defined
