"""Tesseract's words turned into the lines the PDF layout works with (ingestion/pdf_layout.py): one line
per OCR line, in points of the page, with its words' places in the line's text and Tesseract's paragraph
breaks (which ocr/paragraphs.py completes once the document's pages are read)."""

from __future__ import annotations

import statistics
from itertools import groupby

from rabbithole.ingestion.ocr.tesseract import OcrWord
from rabbithole.ingestion.pdf_layout import LineWord, PdfLine


def ocr_lines(words: list[OcrWord], points_per_pixel: float) -> list[PdfLine]:
    """Lines in reading order. A line's size is its paragraph's median word height (so that a paragraph's
    lines share one size, as a font's do, and a heading's larger letters stand out); a new block or paragraph
    starts a paragraph of the page text."""
    lines: list[PdfLine] = []
    for _, paragraph_words in groupby(words, key=lambda w: (w.block, w.paragraph)):
        paragraph = list(paragraph_words)
        size = round(statistics.median(w.height for w in paragraph) * points_per_pixel * 2) / 2
        first = True
        for _, line_words in groupby(paragraph, key=lambda w: w.line):
            lines.append(_line(list(line_words), points_per_pixel, size, first))
            first = False
    return lines


def _line(words: list[OcrWord], scale: float, size: float, paragraph_start: bool) -> PdfLine:
    parts: list[str] = []
    placed: list[LineWord] = []
    length = 0
    for word in words:
        if parts:
            parts.append(" ")
            length += 1
        placed.append(
            LineWord(
                length,
                length + len(word.text),
                word.left * scale,
                word.top * scale,
                (word.left + word.width) * scale,
                (word.top + word.height) * scale,
            )
        )
        parts.append(word.text)
        length += len(word.text)
    return PdfLine(
        text="".join(parts),
        x0=min(w.x0 for w in placed),
        y0=min(w.y0 for w in placed),
        x1=max(w.x1 for w in placed),
        y1=max(w.y1 for w in placed),
        size=size,
        bold=False,
        words=tuple(placed),
        paragraph_start=paragraph_start,
    )


def mean_confidence(words: list[OcrWord]) -> float:
    """Mean word confidence in percent, weighted by the words' lengths (a misread long word weighs more
    than a stray mark); 0 for no words."""
    total = sum(len(w.text) for w in words)
    if total == 0:
        return 0.0
    return round(sum(w.confidence * len(w.text) for w in words) / total, 1)
