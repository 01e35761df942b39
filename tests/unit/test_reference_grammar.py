"""Grammar reference detector: table-driven tests (tests/data/reference_sentences.yaml) plus span, model
and robustness checks. Throughput is measured by benchmarks/bench_grammar.py, not asserted here."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from rabbithole.core.models import ParsedDocument
from rabbithole.references.grammar import detect_references
from rabbithole.references.models import Reference, RefType

TABLE_PATH = Path(__file__).resolve().parents[1] / "data" / "reference_sentences.yaml"
TABLE: dict[str, list[dict[str, Any]]] = yaml.safe_load(TABLE_PATH.read_text(encoding="utf-8"))
_LAYOUT = re.compile(r"[\s\-\u00ad#]+")


def _letters(text: str) -> str:
    """Text without layout: whitespace, hyphens (line-end hyphenation differs), Markdown heading marks."""
    return _LAYOUT.sub("", text)


ALWAYS = ("type", "section", "absatz", "satz", "nummer", "law_normalized", "external", "same_document")
OPTIONAL = (
    "article",
    "buchstabe",
    "annex",
    "annex_part",
    "detail",
    "division",
    "relative_to",
    "standard",
    "url",
    "key",
    "authors",
    "year",
    "from_range",
)


def _params(section: str) -> list[Any]:
    rows = []
    for row in TABLE[section]:
        marks = [pytest.mark.xfail(reason=row["known_miss"], strict=True)] if row.get("known_miss") else []
        rows.append(pytest.param(row, id=row["id"], marks=marks))
    return rows


def _actual(ref: Reference, keys: tuple[str, ...]) -> dict[str, Any]:
    out = {k: getattr(ref, k) for k in keys}
    out["type"] = ref.type.value
    return out


def _check_row(row: dict[str, Any]) -> None:
    refs = detect_references(row["text"])
    expected = [{**row.get("common", {}), **e} for e in row["expect"]]
    got = [
        f"{r.mention!r} {r.type.value} §{r.section} Abs.{r.absatz} S.{r.satz} Nr.{r.nummer} "
        f"{r.law_normalized}"
        for r in refs
    ]
    assert len(refs) == len(expected), f"expected {len(expected)} references, got {len(refs)}: {got}"
    for i, (ref, exp) in enumerate(zip(refs, expected, strict=True)):
        unknown = set(exp) - set(ALWAYS) - set(OPTIONAL)
        assert not unknown, f"table row {row['id']} uses unknown fields {unknown}"
        want = {k: exp.get(k, False if k in ("external", "same_document") else None) for k in ALWAYS}
        want.update({k: exp[k] for k in OPTIONAL if k in exp})
        assert _actual(ref, tuple(want)) == want, f"reference #{i} ({ref.mention!r})"


def test_table_size() -> None:
    corpus = TABLE["corpus"]
    assert len(corpus) >= 80
    assert sum(1 for row in corpus if not row["expect"]) >= 15
    assert len({row["id"] for row in corpus + TABLE["synthetic"]}) == len(corpus) + len(TABLE["synthetic"])


@pytest.mark.parametrize("row", _params("corpus"))
def test_corpus_sentence(row: dict[str, Any]) -> None:
    _check_row(row)


@pytest.mark.parametrize("row", _params("synthetic"))
def test_synthetic_sentence(row: dict[str, Any]) -> None:
    _check_row(row)


@pytest.mark.parametrize("row", [pytest.param(r, id=r["id"]) for r in TABLE["corpus"]])
def test_corpus_sentence_is_verbatim(
    row: dict[str, Any], sample_documents: dict[str, ParsedDocument]
) -> None:
    """Every corpus row is real text of its kb/sample document (compared letter by letter, layout aside)."""
    assert _letters(row["text"]) in _letters(sample_documents[row["document"]].text)


# --- spans ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("row", [pytest.param(r, id=r["id"]) for r in TABLE["corpus"] + TABLE["synthetic"]])
def test_spans_are_exact(row: dict[str, Any]) -> None:
    text = row["text"]
    refs = detect_references(text)
    for ref in refs:
        assert text[ref.start : ref.end] == ref.mention
        assert ref.start <= ref.item_start <= ref.item_end <= ref.end
    assert [r.start for r in refs] == sorted(r.start for r in refs)


def test_span_offsets() -> None:
    text = "Die Genehmigung nach den §§ 6, 7 oder 9b des Atomgesetzes und nach § 5\nAbsatz 2 gilt."
    refs = detect_references(text)
    mention = "§§ 6, 7 oder 9b des Atomgesetzes"
    start = text.index(mention)
    assert [(r.start, r.end, r.mention) for r in refs[:3]] == [(start, start + len(mention), mention)] * 3
    assert [text[r.item_start : r.item_end] for r in refs[:3]] == ["6", "7", "9b"]
    last = refs[3]
    assert (last.mention, last.section, last.absatz) == ("§ 5\nAbsatz 2", "5", "2")
    assert text[last.item_start : last.item_end] == "2"


def test_range_item_span_covers_the_range() -> None:
    text = "nach den §§ 8 bis 10"
    refs = detect_references(text)
    assert [r.section for r in refs] == ["8", "9", "10"]
    assert [r.from_range for r in refs] == [False, True, False]
    assert {text[r.item_start : r.item_end] for r in refs} == {"8 bis 10"}


def test_ivm_parts_are_separate_mentions() -> None:
    text = "nach § 26 Abs. 1 in Verbindung mit Abs. 1a"
    first, second = detect_references(text)
    assert first.mention == "§ 26 Abs. 1"
    assert second.mention == "Abs. 1a"
    assert (second.type, second.section, second.absatz, second.relative_to) == (
        RefType.SECTION,
        "26",
        "1a",
        None,
    )


# --- model and options ------------------------------------------------------------------------------------
def test_reference_model() -> None:
    (ref,) = detect_references("gemäß § 10a Absatz 2 des Atomgesetzes")
    assert dataclasses.is_dataclass(ref)
    with pytest.raises(dataclasses.FrozenInstanceError):
        ref.section = "11"  # type: ignore[misc]
    data = ref.as_dict()
    assert data["type"] == "section" and data["law"] == "des Atomgesetzes"
    assert ref.target_name == "Atomgesetz"


def test_range_expansion_with_letters() -> None:
    def sections(text: str) -> list[str | None]:
        return [r.section for r in detect_references(text)]

    assert sections("§§ 7 bis 7d") == ["7", "7a", "7b", "7c", "7d"]
    assert sections("§§ 9a bis 9c") == ["9a", "9b", "9c"]
    assert sections("§§ 21a bis 23") == ["21a", "22", "23"]  # unknown lettered sections are not invented
    assert sections("§§ 10 bis 8") == ["10", "8"]  # reversed: endpoints only


def test_type_filter_and_headings() -> None:
    text = "### § 7 Genehmigung von Anlagen\n\nnach dem Atomgesetz"
    assert [r.type for r in detect_references(text)] == [RefType.LAW]
    assert detect_references(text, types={RefType.SECTION}) == []
    with_headings = detect_references(text, skip_headings=False)
    assert [r.section for r in with_headings if r.type is RefType.SECTION] == ["7"]


def test_plain_text_heading_vs_wrapped_reference() -> None:
    heading = "erteilt worden ist.\n\n§ 7 Genehmigung von Anlagen\n\n(1) Wer eine Anlage errichtet"
    assert [r for r in detect_references(heading) if r.type is RefType.SECTION] == []
    wrapped = "Anlagen im Sinne des\n§ 7 Verwendung finden"
    assert [r.section for r in detect_references(wrapped)] == ["7"]


def test_law_name_normalization() -> None:
    def norm(text: str) -> list[str | None]:
        return [r.law_normalized for r in detect_references(text)]

    assert norm("§ 4 des Bundes-\nImmissionsschutzgesetzes") == ["Bundes-Immissionsschutzgesetz"]
    assert norm("nach den Vorschriften des Atom-\ngesetzes") == ["Atomgesetz"]
    assert norm("der Strahlenschutzverordnung") == ["Strahlenschutzverordnung"]
    assert norm("des Wiener Übereinkommens") == ["Wiener Übereinkommen"]
    assert norm("nach dem Tierschutzgesetz und der Gefahrstoffverordnung") == [
        "Tierschutzgesetz",
        "Gefahrstoffverordnung",
    ]  # not in the corpus: recognised by form
    assert norm("der Rechtsverordnung, der Anordnung und der Raumordnung") == []


def test_this_document() -> None:
    (ref,) = detect_references("Zweck dieses Gesetzes ist")
    assert (ref.type, ref.same_document, ref.law_normalized) == (RefType.LAW, True, None)
    assert detect_references("auf Grund dieser Gesetze erlassene Rechtsverordnungen") == []


# --- robustness -------------------------------------------------------------------------------------------
PATHOLOGICAL = [
    "§ 1, " * 20_000,
    "Absatz 1 und " * 20_000,
    "§§ 1 bis 99999",
    "(" * 50_000 + "Smith 2019",
    "[" * 50_000 + "1",
    "[1, " * 20_000,
    "Bundes-" * 20_000 + "gesetz",
    "des " * 20_000 + "Atomgesetzes",
    "Gesetz über die " + "Änderung und " * 10_000,
    "BGBl. I S. " + "1, " * 20_000,
    "https://" + "a" * 100_000,
    "Smith, " * 20_000 + "and Jones 2019",
    "§\n" * 50_000,
    "Artikel 1 Absatz " * 10_000,
]


@pytest.mark.timeout(120)
@pytest.mark.parametrize("text", PATHOLOGICAL, ids=[f"pathological-{i}" for i in range(len(PATHOLOGICAL))])
def test_pathological_input_completes(text: str) -> None:
    for ref in detect_references(text):
        assert text[ref.start : ref.end] == ref.mention


@pytest.mark.timeout(300)
def test_whole_corpus_spans_exact(sample_documents: dict[str, ParsedDocument]) -> None:
    text = "\n\n".join(doc.text for doc in sample_documents.values())
    refs = detect_references(text)
    assert len(refs) > 5000
    assert all(text[r.start : r.end] == r.mention for r in refs)
    sections = [r for r in refs if r.type is RefType.SECTION]
    assert sum(1 for r in sections if r.law_normalized == "Strahlenschutzgesetz") > 250


def _fields(refs: list[Reference]) -> list[tuple[object, ...]]:
    return [(r.type, r.section, r.absatz, r.satz, r.nummer, r.annex, r.law_normalized) for r in refs]


@pytest.mark.parametrize("row", [pytest.param(r, id=r["id"]) for r in TABLE["corpus"]])
def test_rewrapped_sentence_same_parse(row: dict[str, Any]) -> None:
    """PDF text wraps lines elsewhere and turns a wrap after a hyphen into "- ": same references."""
    one_line = " ".join(row["text"].split())
    assert _fields(detect_references(one_line)) == _fields(detect_references(row["text"]))
