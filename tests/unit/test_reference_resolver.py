"""Reference resolution: target document through the registry, target section through section labels.

The registry and section labels are built from the parsed kb/sample PDFs (no embedding, no store)."""

from __future__ import annotations

import pytest

from rabbithole.core.models import ParsedDocument
from rabbithole.references.grammar import detect_references
from rabbithole.references.models import Reference, RefType
from rabbithole.references.resolver import (
    Citing,
    ReferenceResolver,
    ResolvedReference,
    SectionIndex,
    Unresolved,
    parse_section_label,
)
from rabbithole.registry import (
    DocumentEntry,
    DocumentRegistry,
    MatchKind,
    Synonym,
    SynonymKind,
    SynonymSource,
    build_registry,
)


@pytest.fixture(scope="module")
def resolver(sample_documents: dict[str, ParsedDocument]) -> ReferenceResolver:
    registry = build_registry("sample", list(sample_documents.values()))
    labels = {name: {s.label for s in doc.sections if s.label} for name, doc in sample_documents.items()}
    return ReferenceResolver(registry, SectionIndex.from_labels(labels))


def resolve_one(resolver: ReferenceResolver, text: str, citing: Citing | None = None) -> ResolvedReference:
    refs = detect_references(text)
    assert refs, f"the grammar found nothing in {text!r}"
    return resolver.resolve(refs[0], citing or Citing())


# -- documents ---------------------------------------------------------------------------------------------


def test_reference_without_law_resolves_to_the_citing_document(resolver: ReferenceResolver) -> None:
    target = resolve_one(resolver, "die Genehmigung nach § 12 Absatz 1", Citing("StrlSchG.pdf", "§ 13"))
    assert (target.document, target.section, target.reason) == ("StrlSchG.pdf", "§ 12", None)
    assert target.internal and target.followable
    assert target.match is None  # no registry lookup for the citing document


@pytest.mark.parametrize(
    ("text", "document", "section"),
    [
        ("nach § 80 Absatz 1 und 2 des Strahlenschutzgesetzes", "StrlSchG.pdf", "§ 80"),
        ("gemäß dem § 7 des Atomgesetzes", "AtG.pdf", "§ 7"),
        ("im Sinne des § 104 der Strahlenschutzverordnung", "StrlSchV.pdf", "§ 104"),
        ("§ 3 Absatz 1 Nummer 1 der Atomrechtlichen Verfahrensverordnung", "AtVfV.pdf", "§ 3"),
        ("nach § 1 des Entsorgungsübergangsgesetzes", "EntsorgÜG.pdf", "§ 1"),
        ("§ 14 Absatz 1 des Standortauswahlgesetzes", "StandAG.pdf", "§ 14"),
        ("§ 12b des Atomgesetzes", "AtG.pdf", "§ 12b"),
    ],
)
def test_cross_law_reference_in_several_case_forms(
    resolver: ReferenceResolver, text: str, document: str, section: str
) -> None:
    target = resolve_one(resolver, text, Citing("EndlSiAnfV.pdf", "§ 2"))
    assert target.reason is None, target
    assert (target.document, target.section) == (document, section)
    assert target.match is not None and target.match.match is MatchKind.EXACT
    assert not target.internal


@pytest.mark.parametrize(
    ("text", "document", "section"),
    [
        ("§ 7 AtG", "AtG.pdf", "§ 7"),
        ("§ 80 StrlSchG", "StrlSchG.pdf", "§ 80"),
        ("§ 2 AtZüV", "AtZüV.pdf", "§ 2"),
    ],
)
def test_abbreviation(resolver: ReferenceResolver, text: str, document: str, section: str) -> None:
    target = resolve_one(resolver, text, Citing("AtVfV.pdf", "§ 1"))
    assert (target.document, target.section, target.reason) == (document, section, None)
    assert target.match is not None and target.match.kind is SynonymKind.ABBREVIATION


def test_whole_law_reference_resolves_to_the_document_without_section(resolver: ReferenceResolver) -> None:
    target = resolve_one(resolver, "Genehmigungen nach dem Atomgesetz", Citing("StrlSchG.pdf", "§ 10"))
    assert (target.document, target.section, target.reason) == ("AtG.pdf", None, None)
    assert target.resolved and not target.followable


def test_unknown_law_is_kept_unresolved(resolver: ReferenceResolver) -> None:
    target = resolve_one(resolver, "nach § 3 des Bundesberggesetzes", Citing("StandAG.pdf", "§ 12"))
    assert target.reason is Unresolved.UNKNOWN_DOCUMENT
    assert target.document is None and target.target_name == "Bundesberggesetz"


def test_whole_law_outside_the_collection_is_unknown_not_external(resolver: ReferenceResolver) -> None:
    target = resolve_one(resolver, "nach dem Medizinproduktegesetz", Citing("StrlSchG.pdf", "§ 1"))
    assert target.reason is Unresolved.UNKNOWN_DOCUMENT
    assert not target.reference.external and target.document is None


def test_no_substring_guess_on_file_names(resolver: ReferenceResolver) -> None:
    # "Schutzgesetz" is part of "Strahlenschutzgesetz" (StrlSchG.pdf) but not a name of it
    target = resolve_one(resolver, "nach § 4 des Schutzgesetzes", Citing("AtG.pdf", "§ 1"))
    assert target.reason is Unresolved.UNKNOWN_DOCUMENT and target.document is None


@pytest.mark.parametrize(
    "text",
    [
        "Richtlinie 2013/59/Euratom",
        "Artikel 3 Nummer 2 der Verordnung (EU) 2016/679",
        "siehe https://www.gesetze-im-internet.de/atg/",
    ],
)
def test_external_acts_are_unresolved_and_external(resolver: ReferenceResolver, text: str) -> None:
    refs = detect_references(text)
    assert refs and refs[0].external
    target = resolver.resolve(refs[0], Citing("StrlSchG.pdf", "§ 1"))
    assert target.reason is Unresolved.EXTERNAL and target.document is None


def test_ambiguous_name_is_unresolved() -> None:
    entries = [
        DocumentEntry("A.pdf", synonyms=[Synonym("Prüfgesetz", SynonymKind.USER, SynonymSource.USER)]),
        DocumentEntry("B.pdf", synonyms=[Synonym("Prüfgesetz", SynonymKind.USER, SynonymSource.USER)]),
    ]
    resolver = ReferenceResolver(DocumentRegistry("c", entries))
    target = resolve_one(resolver, "§ 3 des Prüfgesetzes", Citing("A.pdf", "§ 1"))
    assert target.reason is Unresolved.AMBIGUOUS_DOCUMENT


def test_bibliographic_citation_is_not_locatable(resolver: ReferenceResolver) -> None:
    target = resolve_one(resolver, "as shown before [12].", Citing("StrlSchG.pdf"))
    assert target.reason is Unresolved.NOT_LOCATABLE


# -- sections ----------------------------------------------------------------------------------------------


def test_bare_absatz_resolves_to_the_citing_section(resolver: ReferenceResolver) -> None:
    ref = detect_references("die Anforderungen nach Absatz 2 Satz 1")[0]
    assert ref.type is RefType.PARAGRAPH and ref.relative_to == "section"
    target = resolver.resolve(ref, Citing("StrlSchG.pdf", "§ 80"))
    assert (target.document, target.section, target.reason) == ("StrlSchG.pdf", "§ 80", None)


def test_bare_satz_without_citing_section_is_unresolved(resolver: ReferenceResolver) -> None:
    ref = detect_references("die Pflichten nach Satz 1")[0]
    target = resolver.resolve(ref, Citing("StrlSchG.pdf", None))
    assert target.reason is Unresolved.NO_CITING_SECTION and target.document == "StrlSchG.pdf"


def test_internal_reference_without_source_document(resolver: ReferenceResolver) -> None:
    target = resolve_one(resolver, "nach § 5 Absatz 2")
    assert target.reason is Unresolved.NO_SOURCE


@pytest.mark.parametrize(
    ("text", "citing", "document", "section"),
    [
        ("in der Anlage 4 zu diesem Gesetz genannten Termine", "AtG.pdf", "AtG.pdf", "Anlage 4"),
        ("die in Anlage 3 Spalte 2 aufgeführte Elektrizitätsmenge", "AtG.pdf", "AtG.pdf", "Anlage 3"),
        ("Werte nach Anlage 4 Tabelle 1 Spalte 5", "StrlSchV.pdf", "StrlSchV.pdf", "Anlage 4"),
        ("Arbeitsfelder nach Anlage 8", "StrlSchG.pdf", "StrlSchG.pdf", "Anlage 8"),
        ("nach Anlage 4 Teil B zur Strahlenschutzverordnung", "StrlSchG.pdf", "StrlSchV.pdf", "Anlage 4"),
    ],
)
def test_annex(resolver: ReferenceResolver, text: str, citing: str, document: str, section: str) -> None:
    ref = next(r for r in detect_references(text) if r.type is RefType.ANNEX)
    target = resolver.resolve(ref, Citing(citing, "§ 1"))
    assert (target.document, target.section, target.reason) == (document, section, None)


def test_missing_section_is_unresolved_with_its_document(resolver: ReferenceResolver) -> None:
    target = resolve_one(resolver, "§ 999 des Atomgesetzes", Citing("StrlSchG.pdf", "§ 1"))
    assert target.reason is Unresolved.SECTION_NOT_FOUND
    assert target.document == "AtG.pdf" and target.section is None
    ref = next(r for r in detect_references("Anlage XI Teil A zur Strahlenschutzverordnung"))
    assert resolver.resolve(ref, Citing("StrlSchG.pdf")).reason is Unresolved.SECTION_NOT_FOUND


def test_section_inside_a_grouped_heading(resolver: ReferenceResolver) -> None:
    # AtG has the heading "§§ 50 bis 52"; § 51 is covered by it
    target = resolve_one(resolver, "§ 51 des Atomgesetzes", Citing("StrlSchG.pdf", "§ 1"))
    assert (target.document, target.section) == ("AtG.pdf", "§§ 50 bis 52")


def test_without_section_index_the_label_is_canonical() -> None:
    entries = [DocumentEntry("AtG.pdf", synonyms=[Synonym("AtG", SynonymKind.ABBREVIATION)])]
    resolver = ReferenceResolver(DocumentRegistry("c", entries))
    assert resolve_one(resolver, "§ 7 AtG").section == "§ 7"
    assert resolve_one(resolver, "Anlage 4 zu diesem Gesetz", Citing("AtG.pdf")).section == "Anlage 4"


@pytest.mark.parametrize(
    ("label", "units"),
    [
        ("§ 80", [("§", "80")]),
        ("§ 9a", [("§", "9a")]),
        ("§§ 12c und 12d", [("§", "12c"), ("§", "12d")]),
        ("§§ 50 bis 52", [("§", "50"), ("§", "51"), ("§", "52")]),
        ("§§ 7 bis 7b", [("§", "7"), ("§", "7a"), ("§", "7b")]),
        ("Anlage 4", [("annex", "4")]),
        ("Anlage 1 und 2", [("annex", "1"), ("annex", "2")]),
        ("Anlage XI", [("annex", "xi")]),
        ("Anlage", [("annex", "")]),
        ("Anhang", [("annex", "")]),
        ("Art 2 und 3", [("art", "2"), ("art", "3")]),
        ("4.2", [("other", "4.2")]),
    ],
)
def test_parse_section_label(label: str, units: list[tuple[str, str]]) -> None:
    assert parse_section_label(label) == units


def test_unnumbered_annex_answers_for_the_only_annex() -> None:
    index = SectionIndex.from_labels({"AtEV.pdf": {"§ 1", "Anlage"}})
    assert index.find("AtEV.pdf", ("annex", "")) == "Anlage"
    assert index.find("AtEV.pdf", ("annex", "1")) == "Anlage"
    assert index.find("AtEV.pdf", ("annex", "2")) is None


def test_resolve_all_keeps_every_reference(resolver: ReferenceResolver) -> None:
    text = "§ 7 AtG, § 3 des Bundesberggesetzes und die Richtlinie 2013/59/Euratom"
    refs: list[Reference] = detect_references(text)
    resolved = resolver.resolve_all(refs, Citing("StrlSchG.pdf", "§ 1"))
    assert len(resolved) == len(refs) == 3
    assert [r.reason for r in resolved] == [None, Unresolved.UNKNOWN_DOCUMENT, Unresolved.EXTERNAL]
