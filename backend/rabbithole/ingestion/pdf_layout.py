"""Page layout of a PDF: lines with their fonts and positions, running headers and footers, and the page
texts assembled from the body lines (paragraph breaks, safe de-hyphenation), with the lines' offsets.

Lines read by OCR (ingestion/ocr) carry their words' boxes and Tesseract's paragraph breaks: the page text
records where it came from, and each word's characters in it with its box (core.models.WordBox)."""

from __future__ import annotations

import functools
import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from rabbithole.core.models import PageText, ParsedDocument, WordBox
from rabbithole.ingestion.structure import TextLine

_HEADER_ZONE = 0.12  # top/bottom share of the page height where running headers/footers live
_EDGE_LINES = 3  # lines considered at the top and at the bottom of each page
_GARBLED = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ufffd\ue000-\uf8ff]")
_DIGITS = re.compile(r"\d+")
_SPACES = re.compile(r"\s+")
_HYPHEN_END = re.compile(r"[a-zäöüß]{2}-$")
_LOWER_START = re.compile(r"[a-zäöüß]")
_FIRST_WORD = re.compile(r"[^\s,.;:)]+")
_CONJUNCTIONS = frozenset(
    {"und", "oder", "bis", "sowie", "bzw", "beziehungsweise", "als", "wie", "noch", "and", "or", "to", "nor"}
)


@dataclass(frozen=True, slots=True)
class LineWord:
    """A word of a line read by OCR: its characters [start, end) in the line's text and its box in points."""

    start: int
    end: int
    x0: float
    y0: float
    x1: float
    y1: float


@dataclass(slots=True)
class PdfLine:
    text: str
    x0: float
    y0: float
    x1: float
    y1: float
    size: float
    bold: bool
    words: tuple[LineWord, ...] = ()  # OCR only
    paragraph_start: bool | None = None  # OCR only: Tesseract's paragraph breaks instead of the geometry's


@dataclass(slots=True)
class PdfPage:
    number: int
    height: float
    lines: list[PdfLine]
    has_images: bool = False
    width: float = 0.0
    ocr_confidence: float | None = None  # set when the lines were read by OCR: mean word confidence (%)


def extract_page(pymupdf: Any, page: Any, number: int) -> PdfPage:
    data = page.get_text("dict", flags=pymupdf.TEXT_MEDIABOX_CLIP)
    lines: list[PdfLine] = []
    for block in data.get("blocks", ()):
        if block.get("type") != 0:
            continue
        for line in block.get("lines", ()):
            spans = line.get("spans", ())
            text = "".join(span.get("text", "") for span in spans)
            if not text.strip():
                continue
            weights: dict[float, int] = {}  # characters per font size
            bold = True
            for span in spans:
                span_text = span.get("text", "")
                if not span_text.strip():
                    continue
                size = float(span.get("size", 0.0))
                weights[size] = weights.get(size, 0) + len(span_text)
                font = str(span.get("font", ""))
                if not (int(span.get("flags", 0)) & 16 or _is_bold_font(font)):
                    bold = False
            x0, y0, x1, y1 = line["bbox"]
            # the size most characters have (the first of equals, as Counter.most_common gives it)
            main_size = max(weights, key=weights.__getitem__) if weights else 0.0
            lines.append(PdfLine(text.strip(), x0, y0, x1, y1, main_size, bold))
    return PdfPage(number, float(page.rect.height), lines)


@functools.lru_cache(maxsize=1024)  # a document uses a handful of fonts, on 40 lines a page
def _is_bold_font(font: str) -> bool:
    lowered = font.lower()
    return any(mark in lowered for mark in ("bold", "black", "heavy", "semibold", "demi"))


def is_garbled(lines: Sequence[PdfLine]) -> bool:
    text = "".join(line.text for line in lines)
    visible = len("".join(text.split()))  # the characters str.isspace() rejects, counted at C speed
    return visible > 0 and len(_GARBLED.findall(text)) > 0.1 * visible


def has_images(page: Any) -> bool:
    try:
        return bool(page.get_images(full=False))
    except Exception:
        return False


def _normalize(text: str) -> str:
    return _SPACES.sub(" ", _DIGITS.sub("#", text)).strip().lower()


def _edge_lines(page: PdfPage, top: bool) -> list[int]:
    """Indexes of the lines at the top (bottom) edge that are set apart from the body by a clear gap:
    the header (footer) band. Nothing when no such gap exists within the edge zone."""
    zone = page.height * _HEADER_ZONE
    order = sorted(range(len(page.lines)), key=lambda i: page.lines[i].y0)
    if not top:
        order.reverse()
    band: list[int] = []
    for position, index in enumerate(order[:_EDGE_LINES]):
        line = page.lines[index]
        if (line.y1 > zone) if top else (line.y0 < page.height - zone):
            return []
        band.append(index)
        if position + 1 >= len(order):
            return []  # nothing but edge lines: no body to be set apart from
        neighbour = page.lines[order[position + 1]]
        gap = neighbour.y0 - line.y1 if top else line.y0 - neighbour.y1
        if gap >= max(4.0, 0.8 * (line.y1 - line.y0)):
            return band
    return []


def drop_running_lines(pages: list[PdfPage]) -> None:
    """Remove lines repeating at the top or bottom of many pages (digits ignored): headers, footers."""
    with_text = [p for p in pages if p.lines]
    if len(with_text) < 2:
        return
    counts: Counter[tuple[str, str]] = Counter()
    candidates: dict[int, list[tuple[int, tuple[str, str]]]] = {}
    for page in with_text:
        marked = [(i, ("top", _normalize(page.lines[i].text))) for i in _edge_lines(page, top=True)]
        marked += [(i, ("bottom", _normalize(page.lines[i].text))) for i in _edge_lines(page, top=False)]
        candidates[page.number] = marked
        counts.update({key for _, key in marked})
    threshold = max(2, math.ceil(0.3 * len(with_text)))
    for page in with_text:
        drop = {i for i, key in candidates[page.number] if counts[key] >= threshold}
        if drop:
            page.lines = [line for i, line in enumerate(page.lines) if i not in drop]


def _paragraph_break(previous: PdfLine, line: PdfLine) -> bool:
    size = max(previous.size, line.size, 1.0)
    if previous.bold != line.bold or abs(previous.size - line.size) > 0.3:
        return True
    if line.y0 < previous.y0 - 0.5 * size:  # moved up: another column or text box
        return True
    return line.y0 - previous.y1 > 0.3 * size


def _dehyphenate(previous: str, following: str) -> bool:
    if not _HYPHEN_END.search(previous) or not _LOWER_START.match(following):
        return False
    word = _FIRST_WORD.match(following)
    return word is not None and word.group(0) not in _CONJUNCTIONS


def assemble(pages: list[PdfPage]) -> tuple[list[PageText], list[TextLine]]:
    """Page texts with document offsets, and the lines (offsets, fonts) for structure detection."""
    separator = len(ParsedDocument.PAGE_SEPARATOR)
    page_texts: list[PageText] = []
    lines: list[TextLine] = []
    offset = 0
    for page in pages:
        parts: list[str] = []
        length = 0
        # [start, end, size, bold, paragraph_start] relative to the page
        infos: list[list[Any]] = []
        previous: PdfLine | None = None
        for line in page.lines:
            if previous is None:
                sep = ""
            elif line.paragraph_start is not None:
                sep = "\n\n" if line.paragraph_start else "\n"
            elif abs(line.y0 - previous.y0) < 0.3 * max(line.size, 1.0) and line.x0 >= previous.x1 - 1.0:
                sep = " "  # same baseline, further right: one visual line split by the extractor
            elif _paragraph_break(previous, line):
                sep = "\n\n"
            else:
                sep = "\n"
            if sep == "\n" and _dehyphenate(parts[-1], line.text):
                parts[-1] = parts[-1][:-1]
                length -= 1
                infos[-1][1] -= 1
                sep = ""
            parts.append(sep)
            length += len(sep)
            infos.append([length, length + len(line.text), line.size, line.bold, sep in ("", "\n\n")])
            parts.append(line.text)
            length += len(line.text)
            previous = line
        text = "".join(parts)
        if page.ocr_confidence is None:
            page_texts.append(PageText(page.number, text, offset))
        else:
            words = _word_boxes(page, [(start, end) for start, end, *_ in infos])
            page_texts.append(PageText(page.number, text, offset, "ocr", page.ocr_confidence, words))
        # a line read by OCR has no font: size 0 tells structure detection to judge its headings by their
        # text alone (its height, kept for the title, is not a font size, and boldness is unknown)
        ocr = page.ocr_confidence is not None
        lines.extend(
            TextLine(offset + start, offset + end, 0.0 if ocr else size, bold, para)
            for start, end, size, bold, para in infos
        )
        offset += len(text) + separator
    return page_texts, lines


def _word_boxes(page: PdfPage, spans: list[tuple[int, int]]) -> tuple[WordBox, ...]:
    """The OCR words of a page with their characters in the page text (the line's place plus the word's
    place in the line, cut where de-hyphenation shortened the line) and their boxes as page fractions."""
    width = page.width or 1.0
    height = page.height or 1.0
    boxes: list[WordBox] = []
    for line, (line_start, line_end) in zip(page.lines, spans, strict=True):
        for word in line.words:
            start, end = line_start + word.start, min(line_start + word.end, line_end)
            if end <= start:
                continue
            boxes.append(
                WordBox(
                    start,
                    end,
                    round(word.x0 / width, 5),
                    round(word.y0 / height, 5),
                    round(word.x1 / width, 5),
                    round(word.y1 / height, 5),
                )
            )
    return tuple(boxes)


# --- title and abbreviation --------------------------------------------------------------------------------
