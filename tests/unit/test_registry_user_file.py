"""The user-editable registry.yaml: reading, merging into the built registry, reporting problems."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest

from rabbithole.registry import (
    USER_FILE_NAME,
    DocumentInfo,
    DocumentRegistry,
    MatchKind,
    RegistryFileError,
    SynonymKind,
    SynonymSource,
    build_registry,
    load_user_file,
    render_user_file,
    user_file_path,
)

DOCUMENTS = [
    DocumentInfo(
        "AtG.pdf",
        "Gesetz über die friedliche Verwendung der Kernenergie und den Schutz gegen ihre Gefahren",
        "AtG",
    ),
    DocumentInfo(
        "StrlSchV.pdf",
        "Verordnung zum Schutz vor der schädlichen Wirkung ionisierender Strahlung",
        "StrlSchV 2018",
    ),
    DocumentInfo(
        "EntsorgÜG.pdf",
        "Gesetz zur Regelung des Übergangs der Finanzierungs- und Handlungspflichten",
        "EntsorgÜG",
    ),
    DocumentInfo("law1.pdf", "Gesetz über die Errichtung eines Bundesamtes für Strahlenschutz", ""),
]
TEXTS = {
    "StrlSchV.pdf": "nach § 7 des Atomgesetzes; des Strahlenschutzgesetzes; des Entsorgungsübergangsgesetzes",
    "AtG.pdf": "der Strahlenschutzverordnung",
}


def _write(tmp_path: Path, text: str) -> Path:
    path = user_file_path(tmp_path)
    path.write_text(text, encoding="utf-8")
    return path


def _build(path: Path | None) -> DocumentRegistry:
    return build_registry("sample", DOCUMENTS, TEXTS, user_file=path)


def test_user_file_path_and_name(tmp_path: Path) -> None:
    assert USER_FILE_NAME == "registry.yaml"
    assert user_file_path(tmp_path) == tmp_path / "registry.yaml"


def test_load_valid_file_with_lines(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        """\
version: 1
documents:
  AtG.pdf:
    synonyms:
      - AtomG
      - Kernenergiegesetz
  StrlSchV.pdf:
    title: Strahlenschutzverordnung 2018
    abbreviation: StrlSchV
    exclude: [Strahlenschutzverordnung]
  law1.pdf:
    synonyms: BfS-Gesetz
  EntsorgÜG.pdf:
""",
    )
    loaded = load_user_file(path)
    assert loaded.problems == []
    by_name = {d.file_name: d for d in loaded.documents}
    assert by_name["AtG.pdf"].synonyms == ["AtomG", "Kernenergiegesetz"]
    assert by_name["AtG.pdf"].line == 3
    assert by_name["StrlSchV.pdf"].title == "Strahlenschutzverordnung 2018"
    assert by_name["StrlSchV.pdf"].abbreviation == "StrlSchV"
    assert by_name["StrlSchV.pdf"].exclude == ["Strahlenschutzverordnung"]
    assert by_name["StrlSchV.pdf"].exclude_lines == {"Strahlenschutzverordnung": 10}
    assert by_name["law1.pdf"].synonyms == ["BfS-Gesetz"]
    assert by_name["EntsorgÜG.pdf"].synonyms == []


def test_merge_adds_user_synonyms_with_case_forms(tmp_path: Path) -> None:
    path = _write(tmp_path, "documents:\n  AtG.pdf:\n    synonyms: [AtomG, Kernenergiegesetz]\n")
    registry = _build(path)
    assert registry.warnings == []
    found = registry.resolve("AtomG")
    assert found is not None and found.document == "AtG.pdf"
    assert found.kind is SynonymKind.USER and found.source is SynonymSource.USER
    found = registry.resolve("des Kernenergiegesetzes")  # case form of a user synonym
    assert found is not None and found.document == "AtG.pdf" and found.source is SynonymSource.USER
    found = registry.resolve("des Atomgesetzes")  # automatic synonyms stay
    assert found is not None and found.document == "AtG.pdf" and found.source is SynonymSource.AUTO


def test_exclude_drops_an_automatic_name_and_its_forms(tmp_path: Path) -> None:
    assert _build(None).resolve("des Atomgesetzes") is not None
    path = _write(tmp_path, "documents:\n  AtG.pdf:\n    exclude:\n      - Atomgesetz\n")
    registry = _build(path)
    assert registry.warnings == []
    for name in ("Atomgesetz", "des Atomgesetzes", "dem Atomgesetz"):
        assert registry.resolve(name) is None, name
    found = registry.resolve("AtG")
    assert found is not None and found.document == "AtG.pdf"
    atg = registry.document("AtG.pdf")
    assert atg is not None and "Atomgesetz" not in atg.short_names


def test_exclude_one_form_only(tmp_path: Path) -> None:
    path = _write(tmp_path, "documents:\n  AtG.pdf:\n    exclude: [dem Atomgesetze]\n")
    registry = _build(path)
    assert registry.resolve("dem Atomgesetze") is None
    assert registry.resolve("dem Atomgesetz") is not None


def test_user_synonym_outranks_an_automatic_one_of_another_document(tmp_path: Path) -> None:
    # the user says "Strahlenschutzverordnung" means law1.pdf (contrived, but the user decides)
    path = _write(tmp_path, "documents:\n  law1.pdf:\n    synonyms: [Strahlenschutzverordnung]\n")
    found = _build(path).resolve("Strahlenschutzverordnung")
    assert found is not None and found.document == "law1.pdf" and found.kind is SynonymKind.USER


def test_title_and_abbreviation_override(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        "documents:\n"
        "  StrlSchV.pdf:\n    title: Strahlenschutzverordnung 2018 (neu)\n"
        "  law1.pdf:\n    abbreviation: StrlSchG\n",
    )
    registry = _build(path)
    strlschv = registry.document("StrlSchV.pdf")
    assert strlschv is not None
    assert (
        strlschv.title == "Strahlenschutzverordnung 2018 (neu)"
        and strlschv.title_source is SynonymSource.USER
    )
    # the parsed title is gone, the new one resolves
    assert (
        registry.resolve("Verordnung zum Schutz vor der schädlichen Wirkung ionisierender Strahlung") is None
    )
    found = registry.resolve("Strahlenschutzverordnung 2018 (neu)")
    assert found is not None and found.document == "StrlSchV.pdf" and found.source is SynonymSource.USER
    # the overridden abbreviation drives mining: "Strahlenschutzgesetz" now belongs to law1.pdf
    law1 = registry.document("law1.pdf")
    assert (
        law1 is not None
        and law1.abbreviation == "StrlSchG"
        and law1.abbreviation_source is SynonymSource.USER
    )
    assert law1.short_names == ["Strahlenschutzgesetz"]
    found = registry.resolve("des Strahlenschutzgesetzes")
    assert found is not None and found.document == "law1.pdf" and found.match is MatchKind.EXACT


def test_invalid_yaml_is_reported_with_line_and_the_build_goes_on(tmp_path: Path) -> None:
    path = _write(tmp_path, "documents:\n  AtG.pdf:\n    synonyms: [AtomG\n  StrlSchV.pdf: {}\n")
    loaded = load_user_file(path)
    assert not loaded.ok
    assert len(loaded.problems) == 1
    problem = loaded.problems[0]
    assert problem.path == path and problem.line is not None and problem.line >= 3
    assert "invalid YAML" in problem.message and str(path) in str(problem)
    registry = _build(path)  # never raises
    assert len(registry) == len(DOCUMENTS)
    found = registry.resolve("des Atomgesetzes")
    assert found is not None and found.document == "AtG.pdf"
    assert registry.resolve("AtomG") is None
    assert len(registry.warnings) == 1 and f"{path}:{problem.line}" in registry.warnings[0]


def test_unknown_document_and_wrong_types_are_warnings_with_lines(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        """\
documents:
  AtX.pdf:
    synonyms: [Atomgesetz]
  AtG.pdf:
    synonyms: {a: b}
    title: [not, a, string]
    synonym: [typo]
  StrlSchV.pdf:
    synonyms: [Strahlenschutz-VO, ~]
    exclude: [Gibt es nicht]
  law1: [wrong]
extra: 1
""",
    )
    registry = _build(path)
    warnings = "\n".join(registry.warnings)
    assert f"{path}:2:" in warnings and "unknown document 'AtX.pdf'" in warnings and "AtG.pdf" in warnings
    assert f"{path}:5:" in warnings and "'synonyms' of 'AtG.pdf' must be a list" in warnings
    assert f"{path}:6:" in warnings and "'title' of 'AtG.pdf'" in warnings
    assert f"{path}:7:" in warnings and "unknown key 'synonym'" in warnings
    assert f"{path}:9:" in warnings and "expected a name" in warnings
    assert f"{path}:10:" in warnings and "exclude 'Gibt es nicht'" in warnings
    assert f"{path}:11:" in warnings and "entry of 'law1' must be a mapping" in warnings
    assert f"{path}:12:" in warnings and "unknown key 'extra'" in warnings
    # the valid parts still apply
    found = registry.resolve("Strahlenschutz-VO")
    assert found is not None and found.document == "StrlSchV.pdf"
    assert registry.document("AtG.pdf") is not None
    assert registry.document("AtG.pdf").title.startswith("Gesetz über die friedliche")  # type: ignore[union-attr]


def test_document_keys_match_by_stem_case_and_unicode_form(tmp_path: Path) -> None:
    nfd = unicodedata.normalize("NFD", "EntsorgÜG.pdf")
    path = _write(
        tmp_path, f"documents:\n  {nfd}:\n    synonyms: [Entsorgungsgesetz]\n  atg:\n    synonyms: [AtomG]\n"
    )
    registry = _build(path)
    assert registry.warnings == []
    found = registry.resolve("Entsorgungsgesetz")
    assert found is not None and found.document == "EntsorgÜG.pdf"
    found = registry.resolve("AtomG")
    assert found is not None and found.document == "AtG.pdf"


def test_duplicate_entries_warn_and_the_later_wins(tmp_path: Path) -> None:
    path = _write(tmp_path, "documents:\n  AtG.pdf:\n    synonyms: [A1]\n  AtG:\n    synonyms: [Atomrecht]\n")
    registry = _build(path)
    assert any("listed twice" in w and ":4:" in w for w in registry.warnings)
    assert registry.resolve("Atomrecht") is not None


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("- just\n- a list\n", "must be a mapping"),
        ("version: 2\ndocuments: {}\n", "unsupported version"),
        ("documents: [AtG.pdf]\n", "'documents' must map"),
    ],
)
def test_structural_errors(tmp_path: Path, text: str, message: str) -> None:
    path = _write(tmp_path, text)
    loaded = load_user_file(path)
    assert not loaded.ok
    assert message in str(loaded.problems[0])
    assert loaded.problems[0].line is not None and f"{path}:{loaded.problems[0].line}:" in str(
        loaded.problems[0]
    )
    registry = _build(path)
    assert registry.resolve("des Atomgesetzes") is not None
    with pytest.raises(RegistryFileError, match=message):
        load_user_file(path, strict=True)


def test_empty_and_missing_files(tmp_path: Path) -> None:
    assert load_user_file(tmp_path / "registry.yaml").problems == []
    path = _write(tmp_path, "# nothing yet\n")
    assert load_user_file(path).problems == [] and load_user_file(path).documents == []
    path.write_bytes(b"\xff\xfe\x00bad")
    assert "cannot read" in str(load_user_file(path).problems[0])


def test_ingestion_never_writes_into_the_collection_folder(tmp_path: Path) -> None:
    folder = tmp_path / "kb" / "sample"
    folder.mkdir(parents=True)
    (folder / "AtG.pdf").write_bytes(b"%PDF-1.4")
    before = sorted(p.name for p in folder.iterdir())
    _build(user_file_path(folder))  # absent: nothing is created
    assert sorted(p.name for p in folder.iterdir()) == before
    text = "# my notes\ndocuments:\n  AtG.pdf:\n    synonyms: [AtomG]   # keep this comment\n"
    path = _write(folder, text)
    mtime = path.stat().st_mtime_ns
    _build(path)
    assert path.read_text(encoding="utf-8") == text and path.stat().st_mtime_ns == mtime


def test_render_user_file_is_a_valid_empty_starter(tmp_path: Path) -> None:
    text = render_user_file(["AtG.pdf", "EntsorgÜG.pdf", "a: b.pdf"])
    loaded = load_user_file(_write(tmp_path, text))
    assert loaded.problems == []
    assert [d.file_name for d in loaded.documents] == ["AtG.pdf", "EntsorgÜG.pdf", "a: b.pdf"]
    assert render_user_file([]).rstrip().endswith("documents: {}")
