"""Section and heading detection: statutes (§, Teil/Kapitel/Abschnitt, Anlagen) and numbered documents."""

from __future__ import annotations

import itertools
from pathlib import Path

from fixtures.pdfs import REPORT_TITLE, build_report_pdf
from rabbithole.core.models import SectionSpan
from rabbithole.ingestion.pdf import PdfParser
from rabbithole.ingestion.structure import TextLine, detect_structure, lines_from_text

STATUTE = """Gesetz über Testfälle (TestG)

Ausfertigungsdatum: 2024-01-01

Teil 1 - Allgemeine Vorschriften

§ 1 Zweck des Gesetzes

(1) Zweck dieses Gesetzes ist der Schutz vor Testfällen.

(2) Es gilt entsprechend
§ 5 Absatz 2 des Atomgesetzes, soweit nichts anderes bestimmt ist.

§ 2 Begriffsbestimmungen

Im Sinne dieses Gesetzes sind

1. Testfälle: geplante Prüfungen,

2. Übungsfälle: Prüfungen ohne Rechtsfolgen.

Teil 2 - Grenzwerte

Diese Vorschriften gelten für alle Tätigkeiten.

Kapitel 1 - Berufliche Exposition

Abschnitt 1 - Grenzwerte

§ 9a Grenzwerte für beruflich exponierte Personen

Der Grenzwert beträgt 20 Millisievert im Kalenderjahr.
\f
§§ 12c und 12d (weggefallen)

Abschnitt 2 - Ausnahmen

§ 13 Ausnahmen

Ausnahmen bedürfen der Genehmigung.

Anlage 1 Werte

Die Werte ergeben sich aus der Tabelle.

Teil A: Allgemeines

Allgemeine Werte.

Anlage 2 (weggefallen)
"""


def spans(text: str) -> list[SectionSpan]:
    structure = detect_structure(text)
    assert structure.is_legal
    return structure.sections


def by_label(sections: list[SectionSpan]) -> dict[str | None, SectionSpan]:
    return {s.label: s for s in sections}


def assert_well_formed(text: str, sections: list[SectionSpan]) -> None:
    for before, after in itertools.pairwise(sections):
        assert before.end <= after.start
    for span in sections:
        assert 0 <= span.start < span.end <= len(text)
        assert text[span.start : span.end] == text[span.start : span.end].strip()


def test_statute_sections_labels_headings_and_paths() -> None:
    sections = spans(STATUTE)
    assert_well_formed(STATUTE, sections)
    assert [s.label for s in sections] == [
        None,
        "§ 1",
        "§ 2",
        "Teil 2",
        "§ 9a",
        "§§ 12c und 12d",
        "§ 13",
        "Anlage 1",
        "Anlage 1",
        "Anlage 2",
    ]
    found = by_label(sections)
    assert found["§ 1"].heading == "Zweck des Gesetzes"
    assert found["§ 1"].path == ("Teil 1 - Allgemeine Vorschriften",)
    assert found["§ 9a"].heading == "Grenzwerte für beruflich exponierte Personen"
    assert found["§ 9a"].path == (
        "Teil 2 - Grenzwerte",
        "Kapitel 1 - Berufliche Exposition",
        "Abschnitt 1 - Grenzwerte",
    )
    assert found["§ 9a"].level == 3
    # a new Abschnitt replaces the previous one, the Kapitel stays
    assert found["§ 13"].path == (
        "Teil 2 - Grenzwerte",
        "Kapitel 1 - Berufliche Exposition",
        "Abschnitt 2 - Ausnahmen",
    )
    assert found["§§ 12c und 12d"].heading == "(weggefallen)"


def test_section_span_covers_heading_and_body_only() -> None:
    found = by_label(spans(STATUTE))
    section = found["§ 1"]
    body = STATUTE[section.start : section.end]
    assert body.startswith("§ 1 Zweck des Gesetzes")
    assert body.endswith("soweit nichts anderes bestimmt ist.")
    # "§ 5 Absatz 2 ..." starts a line inside § 1 but is no heading
    assert "§ 5" not in [s.label for s in spans(STATUTE)]
    assert STATUTE[found["§ 9a"].start : found["§ 9a"].end].endswith("im Kalenderjahr.")


def test_container_with_own_text_gets_a_span_and_one_without_does_not() -> None:
    sections = spans(STATUTE)
    intro = by_label(sections)["Teil 2"]
    assert intro.heading == "Grenzwerte"
    assert (
        STATUTE[intro.start : intro.end]
        == "Teil 2 - Grenzwerte\n\nDiese Vorschriften gelten für alle Tätigkeiten."
    )
    assert not any(s.label in ("Teil 1", "Kapitel 1", "Abschnitt 1") for s in sections)


def test_annexes_reset_the_path_and_keep_their_label_for_sub_headings() -> None:
    annexes = [s for s in spans(STATUTE) if s.label and s.label.startswith("Anlage")]
    assert [(s.label, s.heading, s.path) for s in annexes] == [
        ("Anlage 1", "Werte", ()),
        ("Anlage 1", "Teil A: Allgemeines", ("Anlage 1 Werte",)),
        ("Anlage 2", "(weggefallen)", ()),
    ]


def test_preamble_before_the_first_heading() -> None:
    first = spans(STATUTE)[0]
    assert first.label is None
    assert STATUTE[first.start : first.end].startswith("Gesetz über Testfälle (TestG)")
    assert STATUTE[first.start : first.end].endswith("Ausfertigungsdatum: 2024-01-01")


def test_numbered_document_from_plain_text() -> None:
    text = (
        "1 Introduction\n\nWe measured radiation.\n\n2 Methods\n\nTwo methods.\n\n"
        "2.1 Sampling\n\nWeekly samples.\n\n2.2 Measurement\n\nSpectrometry.\n\n3 Results\n\nAll low.\n"
    )
    structure = detect_structure(text)
    assert not structure.is_legal
    assert [(s.label, s.heading, s.path) for s in structure.sections] == [
        ("1", "Introduction", ()),
        ("2", "Methods", ()),
        ("2.1", "Sampling", ("2 Methods",)),
        ("2.2", "Measurement", ("2 Methods",)),
        ("3", "Results", ()),
    ]


def test_plain_prose_has_no_sections() -> None:
    text = "Ein Absatz ohne Überschrift.\n\nNoch ein Absatz, der weitergeht.\n\n1. ein Punkt einer Liste,\n"
    structure = detect_structure(text)
    assert structure.sections == []
    assert not structure.is_legal


def test_font_information_decides_what_is_a_heading() -> None:
    """With fonts, only bold or larger lines are headings: a regular line starting with "§ 4" is body text."""
    text = (
        "§ 3 Pflichten\n\n§ 4 gilt entsprechend für alle Betreiber\n\n§ 5 Anzeige\n\nDer Betreiber zeigt an."
    )
    plain = lines_from_text(text)
    styled = [
        TextLine(
            line.start,
            line.end,
            10.0,
            bold=text[line.start :].startswith(("§ 3", "§ 5")),
            paragraph_start=True,
        )
        for line in plain
    ]
    sections = detect_structure(text, styled).sections
    assert [s.label for s in sections] == ["§ 3", "§ 5"]
    assert (
        text[sections[0].start : sections[0].end]
        == "§ 3 Pflichten\n\n§ 4 gilt entsprechend für alle Betreiber"
    )


def test_numbered_headings_in_a_generated_report_pdf(tmp_path: Path) -> None:
    doc = PdfParser().parse(build_report_pdf(tmp_path / "report.pdf"))
    assert not doc.is_legal
    assert [(s.label, s.heading, s.path) for s in doc.sections] == [
        (None, REPORT_TITLE, ()),
        ("1", "Introduction", (REPORT_TITLE,)),  # under the larger title, by font size
        ("2", "Methods", (REPORT_TITLE,)),
        ("2.1", "Sampling", (REPORT_TITLE, "2 Methods")),
        ("2.2", "Measurement", (REPORT_TITLE, "2 Methods")),
        ("3", "Results", (REPORT_TITLE,)),
    ]
    measurement = next(s for s in doc.sections if s.label == "2.2")
    # the bold sentence inside 2.2 is emphasis, not a heading
    assert "Important: values below the detection limit" in doc.text[measurement.start : measurement.end]
    assert_well_formed(doc.text, doc.sections)
