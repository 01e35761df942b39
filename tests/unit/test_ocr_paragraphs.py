"""The paragraphs of OCR pages settled once the document is read: Tesseract's paragraphs cut where the page
leaves a paragraph's gap (a heading flush with its text, list items, table rows), kept where a heading's
lines or a sentence run on, and section signs restored over each paragraph's lines."""

from __future__ import annotations

from rabbithole.ingestion.ocr.paragraphs import settle_paragraphs
from rabbithole.ingestion.pdf_layout import PdfLine, PdfPage

BODY = 9.8  # a body line's height in points
LEADING = 3.8  # the space between the lines of a paragraph


def line(text: str, top: float, height: float = BODY, first: bool = False, x0: float = 75.0) -> PdfLine:
    return PdfLine(text, x0, top, 520.0, top + height, 10.0, False, (), first)


def page(*lines: PdfLine, number: int = 1) -> PdfPage:
    return PdfPage(number, 842.0, list(lines), has_images=True, width=595.0, ocr_confidence=94.0)


def body(top: float, count: int, first: bool = True) -> list[PdfLine]:
    """`count` lines of one paragraph from `top`, at the body's leading."""
    return [
        line(f"Satz {i} eines Absatzes und so weiter", top + i * (BODY + LEADING), first=first and i == 0)
        for i in range(count)
    ]


def starts(pages: list[PdfPage]) -> list[str]:
    return [ln.text for p in pages for ln in p.lines if ln.paragraph_start]


def test_a_heading_flush_with_its_text_becomes_a_paragraph_of_its_own() -> None:
    heading = line("§ 1 Anwendungsbereich", 300.0, first=True)
    text = line("(1) Diese Verordnung gilt für Anlagen nach § 7 Absatz 1 des Atomgesetzes.", 317.5)
    pages = [page(*body(100.0, 6), heading, text)]

    settle_paragraphs(pages)

    assert starts(pages)[-2:] == [
        "§ 1 Anwendungsbereich",
        "(1) Diese Verordnung gilt für Anlagen nach § 7 Absatz 1 des Atomgesetzes.",
    ]


def test_a_two_line_heading_in_larger_letters_stays_one_paragraph() -> None:
    # the pitch between its lines is wider than the body's (15.8 against 13.6) but not the space
    first = line("§ 62 Entlassung von Rückständen aus der Überwachung;", 300.0, height=12.0, first=True)
    second = line("Verordnungsermächtigung", 315.8, height=10.3)
    text = line("(1) Der nach § 61 Absatz 1 Satz 1 Verpflichtete hat", 333.3)
    pages = [page(*body(100.0, 6), first, second, text)]

    settle_paragraphs(pages)

    assert not second.paragraph_start
    assert text.paragraph_start


def test_list_items_are_paragraphs_but_a_sentence_running_on_is_not() -> None:
    items = [
        line("1. Aufbewahrungen nach § 6 des Atomgesetzes,", 300.0, first=True),
        line("2. Anlagen in Stilllegung nach § 7 Absatz 3 des Atomgesetzes,", 316.6),
        line("Anlagen nach § 9b des Atomgesetzes und", 333.2),
        line("weiter im selben Satz", 349.8),
    ]
    pages = [page(*body(100.0, 6), *items)]

    settle_paragraphs(pages)

    assert [ln.paragraph_start for ln in items] == [True, True, False, False]


def test_the_gap_is_the_documents_so_a_page_of_headings_and_table_rows_is_cut_too() -> None:
    text_page = page(*body(100.0, 8), *body(220.0, 8))
    annex = line("Anlage 3 Elektrizitätsmengen nach § 7 Absatz 1a", 290.0, height=12.0, first=True)
    note = line("(zu § 7 Absatz 1a)", 310.3, height=9.1)
    row = line("Obrigheim 8,70", 327.3)
    annex_page = page(annex, note, row, number=2)

    settle_paragraphs([text_page, annex_page])

    assert [ln.paragraph_start for ln in annex_page.lines] == [True, True, True]


def test_lines_in_other_columns_or_without_enough_measure_are_left_as_tesseract_put_them() -> None:
    left = line("Spalte eins", 300.0, first=True, x0=75.0)
    right = line("Spalte zwei", 330.0, x0=330.0)
    right.x1 = 520.0
    left.x1 = 300.0
    short = [page(left, right)]

    settle_paragraphs(short)  # two lines: no measure of the leading

    assert not right.paragraph_start


def test_section_signs_are_restored_over_a_paragraphs_lines() -> None:
    first = line("(2) Für folgende Anlagen gelten die 88 6 bis 8, 8 9", 300.0, first=True)
    second = line("Absatz 2 und § 12:", 313.6)
    pages = [page(*body(100.0, 6), first, second)]

    settle_paragraphs(pages)

    assert (first.text, second.text) == (
        "(2) Für folgende Anlagen gelten die §§ 6 bis 8, § 9",
        "Absatz 2 und § 12:",
    )


def test_a_heading_sign_run_into_its_number_is_restored_where_the_numbering_continues() -> None:
    before = line("§ 47 Fachkunde", 100.0, first=True)
    reference = line("§ 85 Absatz 1 Satz 1 des Strahlenschutzgesetzes gilt", 140.0, first=True)
    merged = line("848 Aktualisierung der Fachkunde", 180.0, first=True)
    amount = line("850 Becquerel je Gramm", 220.0, first=True)
    plural = line("85 50 und 51 (weggefallen)", 260.0, first=True)
    pages = [page(before, reference, merged, amount, plural)]

    settle_paragraphs(pages)

    assert [ln.text for ln in pages[0].lines] == [
        "§ 47 Fachkunde",
        "§ 85 Absatz 1 Satz 1 des Strahlenschutzgesetzes gilt",
        "§48 Aktualisierung der Fachkunde",
        "850 Becquerel je Gramm",
        "§§ 50 und 51 (weggefallen)",
    ]
