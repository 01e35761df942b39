"""The paragraphs of a document's pages read by OCR, settled once all its pages are read: Tesseract's
paragraphs cut again where the page leaves a paragraph's gap, and the section signs it misread restored
paragraph by paragraph.

Tesseract groups lines by their indentation, so a heading set flush with its first paragraph ("§ 1
Anwendungsbereich" over "(1) Diese Verordnung gilt ...") or the rows of a table come as one paragraph. A
line with more white space above it than the document's lines leave inside a paragraph starts one, as the
text layer's geometry does (pdf_layout._paragraph_break). The white space is compared, not the line pitch:
a heading's larger letters widen the pitch between its own lines but not the space between them. In the
scans of kb/sample at 300 dpi: 3.6-4.8 pt between the lines of a paragraph or a heading, 6.7 pt and more
between paragraphs, list items, and a heading and its text. The space is the document's, not the page's:
a page that is all table rows or headings has no paragraph lines of its own to measure."""

from __future__ import annotations

import re
import statistics
from collections.abc import Iterator, Sequence
from itertools import pairwise

from rabbithole.ingestion.ocr.section_signs import restore_heading_signs, restore_section_signs
from rabbithole.ingestion.pdf_layout import PdfLine, PdfPage

#: a line with more white space above it than this many times the document's median space between the
#: lines of a paragraph starts a paragraph
PARAGRAPH_GAP = 1.5
#: spaces between lines needed before the gaps are judged (fewer: Tesseract's paragraphs alone)
_MIN_SPACES = 3
#: what opens a list item or a numbered paragraph: "2.", "(1)", "(1a)", "a)", "aa)", a dash or bullet
_MARKER = re.compile(r"^(?:\(\d{1,3}[a-z]?\)|\d{1,3}[a-z]?\.|[a-z]{1,2}\)|[-–•])(?:\s|$)")


def settle_paragraphs(pages: Sequence[PdfPage]) -> None:
    """Cut the pages' OCR paragraphs where their lines stand apart and restore misread section signs
    (in place; each line keeps its length, so its word boxes stay valid). `pages`: in document order."""
    space = _paragraph_space(pages)
    if space is not None:
        for page in pages:
            for previous, line in pairwise(page.lines):
                if not line.paragraph_start and _stands_apart(previous, line, space):
                    line.paragraph_start = True
    for paragraph in _paragraphs(pages):
        restored = restore_section_signs("\n".join(line.text for line in paragraph)).split("\n")
        for line, text in zip(paragraph, restored, strict=True):
            line.text = text
    restore_heading_signs(pages)


def _paragraph_space(pages: Sequence[PdfPage]) -> float | None:
    """The median white space between consecutive lines of one Tesseract paragraph, in points."""
    spaces = [
        line.y0 - previous.y1
        for page in pages
        for previous, line in pairwise(page.lines)
        if not line.paragraph_start and line.y0 > previous.y1
    ]
    return max(statistics.median(spaces), 0.5) if len(spaces) >= _MIN_SPACES else None


def _stands_apart(previous: PdfLine, line: PdfLine, space: float) -> bool:
    """Below the previous line (in the same column) with more white space than inside a paragraph, and
    not a sentence running on (the next line starts in lowercase, or the previous one ends in a comma,
    semicolon or hyphen before anything but a list or paragraph marker such as "2." or "(1)")."""
    overlaps = line.x0 < previous.x1 and previous.x0 < line.x1
    if not overlaps or line.y0 - previous.y1 <= PARAGRAPH_GAP * space:
        return False
    if line.text[:1].islower():
        return False
    return _MARKER.match(line.text) is not None or previous.text[-1:] not in ",;-"


def _paragraphs(pages: Sequence[PdfPage]) -> Iterator[list[PdfLine]]:
    for page in pages:
        paragraph: list[PdfLine] = []
        for line in page.lines:
            if line.paragraph_start and paragraph:
                yield paragraph
                paragraph = []
            paragraph.append(line)
        if paragraph:
            yield paragraph
