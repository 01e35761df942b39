"""The sections of scanned statutes read by Tesseract are the sections of their born-digital originals: a
heading set flush with its first paragraph, and a section sign Tesseract ran into the number ("848
Aktualisierung der Fachkunde"), are headings of their own."""

from __future__ import annotations

from pathlib import Path

import pytest

from fixtures.pdfs import SAMPLE_DIR
from rabbithole.devtools.scans import scan_pdf
from rabbithole.ingestion.pdf import PdfParser


def labels_on(path: Path, pages: range) -> list[str]:
    """The labels of the sections that start on `pages` (1-based) of the parsed document."""
    doc = PdfParser().parse(path)
    starts = {p.number: (p.offset, p.offset + len(p.text)) for p in doc.pages}
    return [
        s.label
        for s in doc.sections
        if s.label and any(starts[n][0] <= s.start < starts[n][1] for n in pages if n in starts)
    ]


@pytest.mark.parametrize(
    ("name", "pages"),
    [
        ("AtSMV.pdf", range(1, 2)),  # "§ 1 Anwendungsbereich" flush with "(1) Diese Verordnung gilt ..."
        ("StrlSchV.pdf", range(21, 23)),  # § 47, then § 48 whose sign Tesseract runs into "848"
    ],
)
def test_a_scanned_statute_has_its_originals_sections(tmp_path: Path, name: str, pages: range) -> None:
    scan = scan_pdf(SAMPLE_DIR / name, tmp_path / name, 300, pages=[n - 1 for n in pages])

    original = labels_on(SAMPLE_DIR / name, pages)
    scanned = labels_on(scan, range(1, len(pages) + 1))

    assert len(original) >= 2
    assert scanned == original
