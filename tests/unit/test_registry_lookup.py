"""DocumentRegistry: building, resolving names to documents, serialization."""

from __future__ import annotations

import json

import pytest

from rabbithole.core.models import PageText, ParsedDocument
from rabbithole.registry import (
    DocumentEntry,
    DocumentInfo,
    DocumentRegistry,
    MatchKind,
    RegistryDataError,
    Synonym,
    SynonymKind,
    SynonymSource,
    build_registry,
)


def _load_corpus(parsed: dict[str, ParsedDocument]) -> tuple[list[DocumentInfo], dict[str, str]]:
    """The registry inputs the ingestion pipeline has: what the parser read from each PDF of kb/sample."""
    documents = [DocumentInfo(name, doc.title, doc.abbreviation) for name, doc in parsed.items()]
    return documents, {name: doc.text for name, doc in parsed.items()}


@pytest.fixture(scope="module")
def corpus(sample_documents: dict[str, ParsedDocument]) -> tuple[list[DocumentInfo], dict[str, str]]:
    return _load_corpus(sample_documents)


@pytest.fixture(scope="module")
def registry(corpus: tuple[list[DocumentInfo], dict[str, str]]) -> DocumentRegistry:
    documents, texts = corpus
    return build_registry("sample", documents, texts, user_file=None)


# -- the real corpus ------

POSITIVE = [
    ("des Atomgesetzes", "AtG.pdf", SynonymKind.CASE_FORM),
    ("dem Atomgesetz", "AtG.pdf", SynonymKind.CASE_FORM),
    ("nach dem Atomgesetz", "AtG.pdf", SynonymKind.SHORT_NAME),
    ("Atomgesetz", "AtG.pdf", SynonymKind.SHORT_NAME),
    ("AtG", "AtG.pdf", SynonymKind.ABBREVIATION),
    ("der Strahlenschutzverordnung", "StrlSchV.pdf", SynonymKind.CASE_FORM),
    ("dem Strahlenschutzgesetz", "StrlSchG.pdf", SynonymKind.CASE_FORM),
    ("des Strahlenschutzgesetzes", "StrlSchG.pdf", SynonymKind.CASE_FORM),
    ("StrlSchV", "StrlSchV.pdf", SynonymKind.ABBREVIATION),
    ("StrlSchV 2018", "StrlSchV.pdf", SynonymKind.ABBREVIATION),
    ("StrlSchG", "StrlSchG.pdf", SynonymKind.ABBREVIATION),
    ("Standortauswahlgesetzes", "StandAG.pdf", SynonymKind.CASE_FORM),
    ("StandAG", "StandAG.pdf", SynonymKind.ABBREVIATION),
    ("des Entsorgungsübergangsgesetzes", "EntsorgÜG.pdf", SynonymKind.CASE_FORM),
    ("AtZüV", "AtZüV.pdf", SynonymKind.ABBREVIATION),
    ("AtZueV", "AtZüV.pdf", SynonymKind.ABBREVIATION),
    ("IMIS-ZustV", "IMIS-ZustV.pdf", SynonymKind.ABBREVIATION),
    ("der Atomrechtlichen Verfahrensverordnung", "AtVfV.pdf", SynonymKind.CASE_FORM),
    ("der Atomrechtlichen Deckungsvorsorge- Verordnung", "AtDeckV.pdf", SynonymKind.CASE_FORM),
    ("der Endlagersicherheitsanforderungsverordnung", "EndlSiAnfV.pdf", SynonymKind.CASE_FORM),
    ("Endlagervorausleistungsverordnung", "EndlagerVlV.pdf", SynonymKind.SHORT_NAME),
    (
        "des Gesetzes über die friedliche Verwendung der Kernenergie und den Schutz gegen ihre Gefahren",
        "AtG.pdf",
        SynonymKind.CASE_FORM,
    ),
    (
        "Gesetz über die friedliche Verwendung der Kernenergie und den Schutz gegen ihre Gefahren",
        "AtG.pdf",
        SynonymKind.TITLE,
    ),
    (
        "der Verordnung zum Schutz vor der schädlichen Wirkung ionisierender Strahlung",
        "StrlSchV.pdf",
        SynonymKind.CASE_FORM,
    ),
    (
        "dem Gesetz zum Schutz vor der schädlichen Wirkung ionisierender Strahlung",
        "StrlSchG.pdf",
        SynonymKind.CASE_FORM,
    ),
    (
        "der Kostenverordnung zum Atomgesetz und zum Strahlenschutzgesetz",
        "AtKostV.pdf",
        SynonymKind.CASE_FORM,
    ),
    ("StrlSchV.pdf", "StrlSchV.pdf", SynonymKind.FILE),
]


@pytest.mark.parametrize(("name", "document", "kind"), POSITIVE)
def test_exact_matches(registry: DocumentRegistry, name: str, document: str, kind: SynonymKind) -> None:
    found = registry.resolve(name)
    assert found is not None, name
    assert found.document == document
    assert found.match is MatchKind.EXACT
    assert found.kind is kind
    assert 0.75 <= found.confidence <= 1.0


def test_exact_match_reports_the_synonym_as_written(registry: DocumentRegistry) -> None:
    found = registry.resolve("des Atomgesetzes")
    assert found is not None and found.synonym == "des Atomgesetzes"
    found = registry.resolve("StrlSchV 2018")
    assert found is not None and found.synonym == "StrlSchV 2018" and found.confidence == 1.0


NEGATIVE = [
    "Abs",
    "Abs.",
    "Nr",
    "EU",
    "G",
    "V",
    "Satz",
    "Gesetz",
    "des Gesetzes",
    "Verordnung",
    "Rechtsverordnung",
    "Bundes-Immissionsschutzgesetz",
    "Verwaltungsverfahrensgesetzes",
    "Sozialgesetzbuch",
    "Strahlenschutzvorsorgegesetz",  # another law; StrlSchG is only close
    "Aktiengesetz",
    "Röntgenverordnung",
    "StrlSchV 2001",  # the predecessor regulation, not the one in the collection
    "StrlSch",
    "AtGx",
    "des Gesetzes über die Umweltverträglichkeitsprüfung",
    "Verordnung über den",
    "Verordnung zum Schutz vor",
    "",
]


@pytest.mark.parametrize("name", NEGATIVE)
def test_names_outside_the_collection_resolve_to_none(registry: DocumentRegistry, name: str) -> None:
    assert registry.resolve(name) is None


def test_fuzzy_tolerates_a_typo_in_a_long_name(registry: DocumentRegistry) -> None:
    found = registry.resolve("Strahlenschutzverordnug")
    assert found is not None
    assert (found.document, found.match, found.synonym) == (
        "StrlSchV.pdf",
        MatchKind.FUZZY,
        "Strahlenschutzverordnung",
    )
    assert 0.5 < found.confidence < 0.9
    found = registry.resolve("des Standortauswahlgesetztes")
    assert found is not None and found.document == "StandAG.pdf" and found.match is MatchKind.FUZZY


@pytest.mark.parametrize(
    "name", ["Atomgesetzs", "Atomgestz", "StrlSchW", "StrlSchV 2019", "AtGG", "Nrr", "Abss"]
)
def test_fuzzy_never_applies_to_short_names_or_abbreviations(registry: DocumentRegistry, name: str) -> None:
    assert registry.resolve(name) is None


def test_substring_truncated_title_and_qualified_name(registry: DocumentRegistry) -> None:
    found = registry.resolve("Gesetz über die friedliche Verwendung der Kernenergie")
    assert found is not None and found.document == "AtG.pdf" and found.match is MatchKind.SUBSTRING
    assert found.confidence < 0.8
    found = registry.resolve("des Atomgesetzes in der Fassung der Bekanntmachung vom 15. Juli 1985")
    assert found is not None and found.document == "AtG.pdf" and found.match is MatchKind.SUBSTRING
    assert registry.resolve("Atomgesetz und Strahlenschutzgesetz") is None  # no qualifier: not one name


def test_atomgesetz_without_atg_in_the_collection(corpus: tuple[list[DocumentInfo], dict[str, str]]) -> None:
    documents, texts = corpus
    without_atg = [d for d in documents if d.file_name != "AtG.pdf"]
    other_texts = {k: v for k, v in texts.items() if k != "AtG.pdf"}
    registry = build_registry("no-atg", without_atg, other_texts)
    for name in ("Atomgesetz", "des Atomgesetzes", "AtG"):
        assert registry.resolve(name) is None, name
    for entry in registry:
        assert "Atomgesetz" not in entry.short_names


def test_every_document_has_title_abbreviation_and_file_synonyms(registry: DocumentRegistry) -> None:
    assert len(registry) == 17
    for entry in registry:
        kinds = {s.kind for s in entry.synonyms}
        assert {SynonymKind.TITLE, SynonymKind.ABBREVIATION, SynonymKind.FILE, SynonymKind.CASE_FORM} <= kinds
        assert all(s.source is SynonymSource.AUTO for s in entry.synonyms)
        assert not entry.title.endswith(")")
    atg = registry.document("AtG.pdf")
    assert atg is not None and atg.short_names == ["Atomgesetz"]
    strlschv = registry.document("StrlSchV.pdf")
    assert strlschv is not None
    abbreviations = [s.text for s in strlschv.synonyms if s.kind is SynonymKind.ABBREVIATION]
    assert abbreviations == ["StrlSchV 2018", "StrlSchV"]
    texts = {s.text for s in strlschv.synonyms}
    assert {
        "Strahlenschutzverordnung",
        "der Strahlenschutzverordnung",
        "die Strahlenschutzverordnung",
    } <= texts
    assert registry.warnings == []


def test_serialization_round_trip(registry: DocumentRegistry) -> None:
    data = json.loads(json.dumps(registry.to_dict(), ensure_ascii=False))
    assert data["version"] == 1 and data["collection"] == "sample"
    restored = DocumentRegistry.from_dict(data)
    assert restored.to_dict() == registry.to_dict()
    for name, document, _kind in POSITIVE:
        found = restored.resolve(name)
        assert found is not None and found.document == document
    for name in NEGATIVE:
        assert restored.resolve(name) is None


@pytest.mark.parametrize(
    "data",
    [
        {"version": 99, "documents": []},
        {"version": 1, "documents": "nope"},
        {"version": 1, "documents": [{"title": "no file name"}]},
        {"version": 1, "documents": [{"file_name": "a.pdf", "synonyms": [{"text": "x", "kind": "bogus"}]}]},
    ],
)
def test_from_dict_rejects_broken_data(data: dict[str, object]) -> None:
    with pytest.raises(RegistryDataError):
        DocumentRegistry.from_dict(data)


# -- small collections (no corpus needed) ------


def _small_registry() -> DocumentRegistry:
    documents = [
        DocumentInfo("AtG.pdf", "Gesetz über die friedliche Verwendung der Kernenergie (AtG)", "AtG"),
        DocumentInfo(
            "AtDeckV.pdf", "Verordnung über die Deckungsvorsorge nach dem Atomgesetz", "AtDeckV 1977"
        ),
        DocumentInfo(
            "StrlSchV.pdf", "Verordnung zum Schutz vor der schädlichen Wirkung ionisierender Strahlung"
        ),
        DocumentInfo("notes.pdf", "Meeting notes"),
    ]
    texts = {
        "StrlSchV.pdf": "nach § 7 des Atomgesetzes und der Atomrechtlichen Deckungsvorsorge-Verordnung",
        "AtDeckV.pdf": "die Strahlenschutzverordnung; das Atomgesetz",
    }
    return build_registry("small", documents, texts)


def test_small_collection_uses_the_file_stem_as_abbreviation_for_mining() -> None:
    registry = _small_registry()
    strlschv = registry.document("StrlSchV.pdf")
    assert (
        strlschv is not None
        and strlschv.abbreviation == ""
        and strlschv.short_names == ["Strahlenschutzverordnung"]
    )
    found = registry.resolve("der Strahlenschutzverordnung")
    assert found is not None and found.document == "StrlSchV.pdf"
    atg = registry.document("AtG.pdf")
    assert atg is not None and atg.title == "Gesetz über die friedliche Verwendung der Kernenergie"


def test_small_collection_atomgesetz_is_not_the_deckungsvorsorge_verordnung() -> None:
    registry = _small_registry()
    found = registry.resolve("des Atomgesetzes")
    assert found is not None and found.document == "AtG.pdf"
    found = registry.resolve("Atomrechtliche Deckungsvorsorge-Verordnung")
    assert found is not None and found.document == "AtDeckV.pdf"
    assert registry.resolve("notes") is not None  # file stem, exact
    assert registry.resolve("Meeting") is None
    assert registry.resolve("Verordnung über die Deckungsvorsorge") is None  # one content word: too vague


def test_ambiguous_names_resolve_to_none_but_are_listed_as_candidates() -> None:
    entries = [
        DocumentEntry("a.pdf", synonyms=[Synonym("Strahlenschutzgesetz", SynonymKind.SHORT_NAME)]),
        DocumentEntry("b.pdf", synonyms=[Synonym("Strahlenschutzgesetz", SynonymKind.SHORT_NAME)]),
        DocumentEntry("c.pdf", synonyms=[Synonym("Atomgesetz", SynonymKind.SHORT_NAME)]),
    ]
    registry = DocumentRegistry("x", entries)
    assert registry.resolve("Strahlenschutzgesetz") is None
    assert [c.document for c in registry.candidates("Strahlenschutzgesetz")] == ["a.pdf", "b.pdf"]
    assert registry.resolve("Strahlenschutzgesetzt") is None  # fuzzy, still ambiguous
    found = registry.resolve("Atomgesetz")
    assert found is not None and found.document == "c.pdf"


def test_two_versions_of_a_regulation_in_one_collection() -> None:
    title = "Verordnung über den Schutz vor Schäden durch ionisierende Strahlen"
    documents = [
        DocumentInfo("old.pdf", title + " (StrlSchV 2001)", ""),
        DocumentInfo("new.pdf", title, "StrlSchV 2018"),
    ]
    registry = build_registry("versions", documents, ["der Strahlenschutzverordnung"])
    found = registry.resolve("StrlSchV 2001")
    assert found is not None and found.document == "old.pdf"
    found = registry.resolve("StrlSchV 2018")
    assert found is not None and found.document == "new.pdf"
    for name in ("StrlSchV", title):
        assert registry.resolve(name) is None, name
        assert len(registry.candidates(name)) == 2
    assert registry.resolve("der Strahlenschutzverordnung") is None  # mined for both: left out, reported
    assert registry.ambiguous == {"Strahlenschutzverordnung": ["new.pdf", "old.pdf"]}
    assert any("Strahlenschutzverordnung" in p for p in registry.problems)


def test_empty_stored_registry_loads_empty() -> None:
    registry = DocumentRegistry.from_dict({})
    assert len(registry) == 0 and registry.resolve("AtG") is None


def test_higher_ranked_kind_wins_a_shared_key() -> None:
    entries = [
        DocumentEntry("AtG.pdf", abbreviation="AtG", synonyms=[Synonym("AtG", SynonymKind.ABBREVIATION)]),
        DocumentEntry("other.pdf", synonyms=[Synonym("AtG", SynonymKind.FILE)]),
    ]
    found = DocumentRegistry("x", entries).resolve("AtG")
    assert found is not None and found.document == "AtG.pdf"


def test_abbreviation_year_from_the_title_as_the_pdf_parser_gives_it() -> None:
    title = "Verordnung zum Schutz vor der schädlichen Wirkung ionisierender Strahlung (StrlSchV 2018)"
    registry = build_registry("pdf", [DocumentInfo("StrlSchV.pdf", title, "StrlSchV")], [])
    entry = registry.document("StrlSchV.pdf")
    assert entry is not None and entry.abbreviation == "StrlSchV 2018" and not entry.title.endswith(")")
    for name in (
        "StrlSchV 2018",
        "StrlSchV",
        "der Verordnung zum Schutz vor der schädlichen Wirkung ionisierender Strahlung",
    ):
        found = registry.resolve(name)
        assert found is not None and found.document == "StrlSchV.pdf" and found.match is MatchKind.EXACT


def test_build_from_parsed_documents() -> None:
    text = "Verordnung über Y\n\nnach dem Atomgesetz"
    parsed = [
        ParsedDocument(
            "AtG.pdf", [PageText(1, "Gesetz über X (AtG)", 0)], title="Gesetz über X", abbreviation="AtG"
        ),
        ParsedDocument("Y.pdf", [PageText(1, text, 0)], title="Verordnung über Y"),
    ]
    registry = build_registry("parsed", parsed)
    found = registry.resolve("dem Atomgesetz")
    assert found is not None and found.document == "AtG.pdf"
    # texts may also be a plain iterable of strings
    registry = build_registry("parsed", parsed, iter([text]))
    assert registry.document("AtG.pdf") is not None
    assert registry.document("AtG.pdf").short_names == ["Atomgesetz"]  # type: ignore[union-attr]


def test_stop_words_are_never_indexed_from_automatic_synonyms() -> None:
    registry = build_registry(
        "stop", [DocumentInfo("EU.pdf"), DocumentInfo("Abs.pdf"), DocumentInfo("G.pdf")], []
    )
    for name in ("EU", "Abs", "G"):
        assert registry.resolve(name) is None
    found = registry.resolve("EU.pdf")
    assert found is not None and found.document == "EU.pdf"
