"""Reference units beyond the § grammar: amendment notes, law versions, document mentions, divisions,
ranges with inserted sections, the reported section, the model-reference check."""

from __future__ import annotations

import pytest

from rabbithole.references.detector import consistent, recognised_form
from rabbithole.references.divisions import division_units, sections_in_division
from rabbithole.references.grammar import detect_references
from rabbithole.references.llm_detector import LLMMention, to_reference
from rabbithole.references.models import Reference, RefType
from rabbithole.references.notes import (
    DocumentDates,
    amendment_spans,
    document_dates,
    is_older_version,
    version_after,
)
from rabbithole.references.report import reported_section
from rabbithole.references.resolver import (
    Citing,
    ReferenceResolver,
    SectionIndex,
    Unresolved,
)
from rabbithole.registry import DocumentEntry, DocumentRegistry, Synonym, SynonymKind

REGISTRY = DocumentRegistry(
    "test",
    [
        DocumentEntry(
            "StrlSchV.pdf",
            "Strahlenschutzverordnung",
            "StrlSchV",
            [
                Synonym("Strahlenschutzverordnung", SynonymKind.TITLE),
                Synonym("StrlSchV", SynonymKind.ABBREVIATION),
            ],
        ),
        DocumentEntry(
            "AtG.pdf",
            "Atomgesetz",
            "AtG",
            [Synonym("Atomgesetz", SynonymKind.TITLE), Synonym("AtG", SynonymKind.ABBREVIATION)],
        ),
    ],
)
LABELS: dict[str, list[str]] = {
    "AtG.pdf": ["§ 6", "§ 7", "§ 7a", "§ 7b", "§ 8", "§ 9", "§ 9a", "§ 9b", "§ 10"],
    "StrlSchV.pdf": ["§ 1", "§ 2", "§ 3", "§ 4", "Anlage 4"],
}
PATHS: dict[str, list[tuple[str, tuple[str, ...]]]] = {
    "AtG.pdf": [
        ("§ 6", ("Zweiter Abschnitt - Überwachungsvorschriften",)),
        ("§ 7", ("Zweiter Abschnitt - Überwachungsvorschriften",)),
        ("§ 10", ("Dritter Abschnitt - Verwaltungsbehörden",)),
    ],
    "StrlSchV.pdf": [
        ("§ 1", ("Teil 1 - Begriffe",)),
        ("§ 2", ("Teil 2 - Tätigkeiten", "Kapitel 1 - Rechtfertigung", "Abschnitt 1 - Allgemeines")),
        ("§ 3", ("Teil 2 - Tätigkeiten", "Kapitel 2 - Vorabkontrolle", "Abschnitt 1 - Anlagen")),
        ("§ 4", ("Teil 2 - Tätigkeiten", "Kapitel 2 - Vorabkontrolle", "Abschnitt 2 - Umgang")),
    ],
}
DATES = {
    "StrlSchV.pdf": DocumentDates("2018-11-29", "2021-10-08"),
    "AtG.pdf": DocumentDates("1959-12-23", "2021-08-10"),
}


@pytest.fixture
def resolver() -> ReferenceResolver:
    index = SectionIndex(lambda d: LABELS.get(d, []), lambda d: PATHS.get(d, []))
    return ReferenceResolver(REGISTRY, index, dates=DATES.get)


# -- amendment notes and versions ------------------------------------------------------------------------


def test_amendment_note_spans_end_at_the_verb() -> None:
    text = (
        "nach § 5 der Strahlenschutzverordnung vom 20. Juli 2001 (BGBl. I S. 1714), die zuletzt durch "
        "Artikel 5 Absatz 7 des Gesetzes vom 24. Februar 2012 (BGBl. I S. 212) geändert worden ist, gilt"
    )
    ((start, end),) = amendment_spans(text)
    assert text[start:end].startswith("durch Artikel 5") and text[start:end].endswith("geändert worden ist")
    refs = detect_references(text)
    assert [(r.section, r.law_normalized) for r in refs] == [("5", "Strahlenschutzverordnung")]
    assert amendment_spans("Die Prüfung durch den Sachverständigen ist geändert worden.") == []


def test_version_qualifiers() -> None:
    until = version_after("x in der bis zum 31. Dezember 2018 geltenden Fassung", 1)
    assert until is not None and (until.date, until.until) == ("2018-12-31", True)
    enacted = version_after("x vom 20. Juli 2001 (BGBl.", 1)
    assert enacted is not None and (enacted.date, enacted.until, enacted.text) == (
        "2001-07-20",
        False,
        "vom 20. Juli 2001",
    )
    promulgated = version_after("x in der Fassung der Bekanntmachung vom 15. Juli 1985", 1)
    assert promulgated is not None and promulgated.date == "1985-07-15"
    assert version_after("x vom Bund", 1) is None


def test_document_dates_and_older_versions() -> None:
    head = (
        "Ausfertigungsdatum: 1959-12-23\nNeugefasst durch: Bek. v. 15.7.1985 I 1565\n"
        "Zuletzt geändert durch: Art. 1 G v. 10.8.2021 I 3530\n"
    )
    dates = document_dates(head)
    assert dates == DocumentDates("1959-12-23", "2021-08-10")
    assert not is_older_version("1985-07-15", False, dates)  # the current version's promulgation
    assert is_older_version("1958-01-01", False, dates)
    assert is_older_version("2018-12-31", True, dates)
    assert not is_older_version("2001-07-20", False, None)  # nothing known: not an older version


def test_historical_version_is_external(resolver: ReferenceResolver) -> None:
    old = resolver.resolve(
        detect_references("nach § 5 der Strahlenschutzverordnung vom 20. Juli 2001 gilt")[0]
    )
    assert (old.reason, old.document, old.external) == (Unresolved.HISTORICAL_VERSION, None, True)
    current = resolver.resolve(
        detect_references("nach § 3 der Strahlenschutzverordnung vom 29. November 2018")[0]
    )
    assert (current.document, current.section, current.reason) == ("StrlSchV.pdf", "§ 3", None)
    gone = resolver.resolve(
        detect_references("§ 3 der Röntgenverordnung in der bis zum 31. Dezember 2018 geltenden Fassung")[0]
    )
    assert gone.reason is Unresolved.HISTORICAL_VERSION


# -- document mentions -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "mention", "law", "rtype"),
    [
        ("Es gilt StrlSchG.", "StrlSchG", "StrlSchG", RefType.LAW),
        ("AtG und mehr", "AtG", "AtG", RefType.LAW),
        ("nach dem strahlenschutzgesetz", "strahlenschutzgesetz", "Strahlenschutzgesetz", RefType.LAW),
        ("des atomgesetzes", "atomgesetzes", "Atomgesetz", RefType.LAW),
        (
            "regelt die Strahlenschutzverordung",
            "Strahlenschutzverordung",
            "Strahlenschutzverordnung",
            RefType.LAW,
        ),
        (
            'siehe Dokument "Sicherheitsbericht".',
            'siehe Dokument "Sicherheitsbericht"',
            "Sicherheitsbericht",
            RefType.DOCUMENT,
        ),
    ],
)
def test_document_mentions(text: str, mention: str, law: str, rtype: RefType) -> None:
    (ref,) = detect_references(text)
    assert (ref.mention, ref.law_normalized, ref.type) == (mention, law, rtype)
    assert text[ref.start : ref.end] == ref.mention


@pytest.mark.parametrize(
    "text",
    [
        "Der Wert wird festgesetzt und eingesetzt.",
        "Verordnungen und Rechtsverordnungen sowie die Anordnung bleiben unberührt.",
        "Das Bundesgesetz regelt es; gesetzliche Vorgaben gelten.",
        "Die Energie beträgt 5 MeV und der TÜV prüft.",
    ],
)
def test_no_document_mention(text: str) -> None:
    assert detect_references(text) == []


def test_document_mentions_resolve(resolver: ReferenceResolver) -> None:
    for text, document in [
        ("gilt StrlSchV", "StrlSchV.pdf"),
        ("das strahlenschutzverordnung", "StrlSchV.pdf"),
    ]:
        target = resolver.resolve(detect_references(text)[-1], Citing("AtG.pdf"))
        assert (target.document, target.section, target.reason) == (document, None, None)


# -- divisions and ranges --------------------------------------------------------------------------------


def test_division_units() -> None:
    assert division_units("Teil 4 Kapitel 2") == [("teil", "4"), ("kapitel", "2")]
    assert division_units("Erster Abschnitt - Allgemeine Vorschriften") == [("abschnitt", "1")]
    assert division_units("Teil II") == [("teil", "2")]


def test_sections_in_division_by_path_and_citing_context() -> None:
    paths = PATHS["StrlSchV.pdf"]
    assert sections_in_division("Teil 2", paths) == ["§ 2", "§ 3", "§ 4"]
    assert sections_in_division("Teil 2 Kapitel 2", paths) == ["§ 3", "§ 4"]
    # "Abschnitt 1" exists in two Kapitel: the one the citing section stands in
    assert sections_in_division("Abschnitt 1", paths) == []
    assert sections_in_division("Abschnitt 1", paths, paths[3][1]) == ["§ 3"]
    assert sections_in_division("Zweiter Abschnitt", PATHS["AtG.pdf"]) == ["§ 6", "§ 7"]
    assert sections_in_division("Teil 9", paths) == []


def test_division_reference_resolves_to_its_sections(resolver: ReferenceResolver) -> None:
    ref = detect_references("nach Teil 2 Kapitel 2 dieser Verordnung")[0]
    target = resolver.resolve(ref, Citing("StrlSchV.pdf", "§ 1"))
    assert (target.section, target.labels) == ("§ 3", ("§ 3", "§ 4"))
    assert reported_section(ref, target) == "Teil 2 Kapitel 2"
    missing = resolver.resolve(detect_references("nach Teil 7 dieser Verordnung")[0], Citing("StrlSchV.pdf"))
    assert missing.reason is Unresolved.SECTION_NOT_FOUND


def test_range_includes_inserted_sections_of_the_target(resolver: ReferenceResolver) -> None:
    refs = detect_references("die §§ 7 bis 9 des Atomgesetzes")
    labels = [label for ref in refs for label in resolver.resolve(ref).labels]
    assert labels == ["§ 7", "§ 7a", "§ 7b", "§ 8", "§ 9", "§ 9a", "§ 9b"]
    # a range that ends at a lettered section stops there; a list is no range
    refs = detect_references("die §§ 6 bis 7a des Atomgesetzes")
    assert [label for ref in refs for label in resolver.resolve(ref).labels] == ["§ 6", "§ 7", "§ 7a"]
    refs = detect_references("die §§ 7 und 9 des Atomgesetzes")
    assert [label for ref in refs for label in resolver.resolve(ref).labels] == ["§ 7", "§ 9"]


# -- reported section ------------------------------------------------------------------------------------


def test_reported_section_for_annexes_articles_and_relative_references(resolver: ReferenceResolver) -> None:
    annex = detect_references("nach Anlage 4 Tabelle 1 Spalte 3 der Strahlenschutzverordnung")[0]
    assert reported_section(annex) == "Anlage 4"
    article = detect_references("Artikel 83 der Verordnung (EU) 2016/679")[0]
    assert reported_section(article) == "Artikel 83"
    relative = detect_references("Absatz 3 gilt entsprechend.")[0]
    assert reported_section(relative, resolver.resolve(relative, Citing("AtG.pdf", "§ 7"))) == "7"
    assert reported_section(relative, resolver.resolve(relative, Citing(None, "§ 7a"))) == "7a"
    assert reported_section(relative, resolver.resolve(relative, Citing("AtG.pdf"))) is None
    annexes = detect_references("in den Anlagen 7 bis 9")
    assert [reported_section(r) for r in annexes] == ["Anlage 7", "Anlage 8", "Anlage 9"]


# -- the model-reference check ---------------------------------------------------------------------------


def _model(mention: str, kind: str, **fields: str) -> Reference:
    text = f"Text: {mention}."
    item = LLMMention.model_validate({"mention": mention, "kind": kind, **fields})
    return to_reference(item, 6, 6 + len(mention), text)


@pytest.mark.parametrize(
    ("mention", "kind", "fields", "accepted"),
    [
        ("BGBl. I S. 1714", "article", {"article": "1714", "law": "BGBl"}, False),
        ("Absatz 1", "section", {"section": "1", "law": "Atomgesetz"}, False),
        ("der vorgenannten Verordnung", "law", {}, False),
        ("§ 7 des Atomgesetzes", "section", {"section": "7", "law": "Atomgesetz"}, True),
        (
            "Anlage 4 der Strahlenschutzverordnung",
            "annex",
            {"annex": "4", "law": "Strahlenschutzverordnung"},
            True,
        ),
        ("Anlage 4", "section", {"section": "4"}, False),
    ],
)
def test_model_references_must_match_their_mention(
    mention: str, kind: str, fields: dict[str, str], accepted: bool
) -> None:
    ref = _model(mention, kind, **fields)
    assert (consistent(ref) is None) is accepted


def test_recognised_external_forms() -> None:
    assert (
        recognised_form(_model("Richtlinie 2013/59/Euratom", "eu_act", law="Richtlinie 2013/59/Euratom"))
        is None
    )
    assert recognised_form(_model("KTA 1401", "standard")) is None
    assert recognised_form(_model("BGBl. I S. 1714", "article", article="1714")) is not None
