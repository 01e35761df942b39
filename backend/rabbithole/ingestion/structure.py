"""Section and heading detection over a document's text.

Legal texts (German statutes and ordinances): § sections ("§ 80", "§ 9a", "§§ 12c und 12d"), articles
("Art 1"), annexes ("Anlage 4", "Anhang"), and the enclosing Teil/Kapitel/Abschnitt/Unterabschnitt path.
Other documents: headings found by font (larger or bold lines, when the parser knows fonts) and numbering
("4.2 Results"), nested by numbering depth or font size. Without any headings there are no sections and
chunking falls back to paragraphs.

The result is a list of SectionSpans in document order, non-overlapping, each starting at its heading line and
ending at the last character before the next heading. Every heading with text of its own gets a span (a
Kapitel heading directly followed by a § heading gets none: it appears only in the path of the § sections
below it); § sections and annexes always get one. Text before the first heading is a span without label.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from rabbithole.core.models import SectionSpan


@dataclass(frozen=True, slots=True)
class TextLine:
    """One extracted line: document text offsets [start, end) and its font, when known."""

    start: int
    end: int
    size: float = 0.0  # font size in pt; 0 = unknown (plain text)
    bold: bool = False
    paragraph_start: bool = False  # a vertical gap, a style change or a page break precedes it


@dataclass(frozen=True, slots=True)
class Structure:
    sections: list[SectionSpan]
    is_legal: bool  # at least two § (or Art) section headings


@dataclass(frozen=True, slots=True)
class _Heading:
    start: int
    end: int  # end of the heading's own text
    kind: str  # "section", "annex", "container", "numbered", "other"
    label: str | None
    title: str  # heading text without the label
    full: str  # label and heading text as printed, whitespace collapsed
    size: float
    rank: int = 0  # containers: Buch 0 ... Untertitel 6; numbered: depth


_WS = re.compile(r"\s+")
_NUM = r"\d+[a-z]?"
_SECTION = re.compile(rf"^(§§?)\s*({_NUM}(?:\s*(?:,|und|bis|-|–)\s*{_NUM})*)(?=[\s.]|$)[.]?\s*[-–]?\s*(.*)$")
#: what follows the number of a section cited, not of a section's heading: "§ 12 Absatz 1 Nummer 3 StrlSchG"
_REFERENCE_TITLE = re.compile(r"(?:Abs\.|Absatz|Absätze|Satz|Sätze|Nr\.|Nummer|Buchstabe)(?=\s|$)")
_ARTICLE = re.compile(rf"^(Art\.?|Artikel)\s+({_NUM}(?:\s*(?:,|und|bis)\s*{_NUM})*)(?=\s|$)\s*[-–]?\s*(.*)$")
_ANNEX = re.compile(
    r"^(?:(Anlagen?|Anhang)\s+((?:\d+[a-z]?|[IVXLC]+)(?:\s*(?:,|und|bis)\s*(?:\d+[a-z]?|[IVXLC]+))*)(?=[\s:.]|$)"
    r"|(Anlage|Anhang)(?=[\s:]|$))[.:]?\s*[-–]?\s*(.*)$"
)
_CONTAINER_RANK = {
    "Buch": 0,
    "Teil": 1,
    "Kapitel": 2,
    "Abschnitt": 3,
    "Unterabschnitt": 4,
    "Titel": 5,
    "Untertitel": 6,
}
_CONTAINER = re.compile(
    r"^(Buch|Teil|Kapitel|Abschnitt|Unterabschnitt|Titel|Untertitel)\s+(\d+[a-z]?|[IVXLC]+|[A-Z])(?=[\s:.–-]|$)"
    r"[.:]?\s*[-–]?\s*(.*)$"
)
_ORDINAL_CONTAINER = re.compile(
    r"^([A-ZÄÖÜ][a-zäöüß]+(?:ter|tes|te))\s+(Buch|Teil|Kapitel|Abschnitt|Unterabschnitt|Titel)(?=[\s:.–-]|$)"
    r"[.:]?\s*[-–]?\s*(.*)$"
)
_NUMBERED = re.compile(r"^(\d{1,2}(?:\.\d{1,3}){0,4})\.?\s+([A-ZÄÖÜ(\"„].*)$")

_MAX_HEADING_CHARS = 400
_MAX_HEADING_LINES = 6
#: lines of a heading judged by its text alone (no font): a § or annex heading with a long title ("Anlage 4
#: Aktivitätsabhängige Erhöhungsbeträge zur Ermittlung der Regeldeckungssumme für ...") runs to five lines
#: on a page; other headings to three
_MAX_TEXT_HEADING_LINES = 5


def lines_from_text(text: str) -> list[TextLine]:
    """Lines of plain text (no font information); a blank line or a page break starts a paragraph."""
    lines: list[TextLine] = []
    pos = 0
    gap = True
    for raw in text.split("\n"):
        start, end = pos, pos + len(raw)
        pos = end + 1
        if "\f" in raw:
            gap = True
        stripped = raw.strip(" \t\f\r")
        if not stripped:
            gap = True
            continue
        lead = len(raw) - len(raw.lstrip(" \t\f\r"))
        lines.append(TextLine(start + lead, start + lead + len(stripped), paragraph_start=gap))
        gap = False
    return lines


def _body_size(lines: Sequence[TextLine]) -> float:
    sizes: Counter[float] = Counter()
    for line in lines:
        if line.size > 0:
            sizes[round(line.size * 2) / 2] += line.end - line.start
    return sizes.most_common(1)[0][0] if sizes else 0.0


def _paragraphs(text: str, lines: Sequence[TextLine], fonts: bool) -> list[list[TextLine]]:
    paragraphs: list[list[TextLine]] = []
    previous: TextLine | None = None
    for line in lines:
        if line.end <= line.start:
            continue
        new = (
            previous is None
            or line.paragraph_start
            or "\f" in text[previous.end : line.start]
            or (fonts and (line.bold != previous.bold or abs(line.size - previous.size) > 0.3))
        )
        if new:
            paragraphs.append([line])
        else:
            paragraphs[-1].append(line)
        previous = line
    return paragraphs


def _classify(text: str, start: int, end: int, size: float) -> _Heading:
    full = _WS.sub(" ", text).strip()
    if (m := _SECTION.match(full)) and not _REFERENCE_TITLE.match(m.group(3)):
        label = f"{m.group(1)} {_WS.sub(' ', m.group(2))}"
        return _Heading(start, end, "section", label, m.group(3).strip(), full, size)
    if m := _ARTICLE.match(full):
        label = f"{m.group(1).rstrip('.')} {_WS.sub(' ', m.group(2))}"
        return _Heading(start, end, "section", label, m.group(3).strip(), full, size)
    if m := _ANNEX.match(full):
        label = f"{m.group(1)} {m.group(2)}" if m.group(1) else str(m.group(3))
        return _Heading(start, end, "annex", label, m.group(4).strip(), full, size)
    if m := _CONTAINER.match(full):
        label = f"{m.group(1)} {m.group(2)}"
        return _Heading(
            start, end, "container", label, m.group(3).strip(), full, size, _CONTAINER_RANK[m.group(1)]
        )
    if m := _ORDINAL_CONTAINER.match(full):
        label = f"{m.group(1)} {m.group(2)}"
        return _Heading(
            start, end, "container", label, m.group(3).strip(), full, size, _CONTAINER_RANK[m.group(2)]
        )
    if m := _NUMBERED.match(full):
        depth = m.group(1).count(".") + 1
        return _Heading(start, end, "numbered", m.group(1), m.group(2).strip(), full, size, depth)
    return _Heading(start, end, "other", None, full, full, size)


def _find_headings(text: str, lines: Sequence[TextLine]) -> tuple[list[_Heading], float]:
    fonts = any(line.size > 0 for line in lines)
    body = _body_size(lines) if fonts else 0.0
    headings: list[_Heading] = []
    for para in _paragraphs(text, lines, fonts):
        start, end = para[0].start, para[-1].end
        if end - start > _MAX_HEADING_CHARS or len(para) > _MAX_HEADING_LINES:
            continue
        raw = text[start:end]
        if fonts and para[0].size > 0:  # size 0: a line without font data (read by OCR), judged by its text
            larger = all(line.size >= body * 1.12 for line in para)
            bold = all(line.bold for line in para)
            if not (larger or bold):
                continue
            heading = _classify(raw, start, end, max(line.size for line in para))
            if heading.kind == "other" and not larger and (len(para) > 2 or raw.rstrip()[-1:] in ".,;"):
                continue  # a bold sentence in the body, not a heading
            headings.append(heading)
        else:
            if len(para) > _MAX_TEXT_HEADING_LINES:
                continue
            heading = _classify(raw, start, end, 0.0)
            if heading.kind == "other":
                continue
            if heading.kind not in ("section", "annex") and len(para) > 3:
                continue
            limit = 300 if heading.kind == "annex" else 150
            if heading.kind in ("numbered", "container", "annex") and (
                len(heading.full) > limit or heading.full[-1] in ".,;:"
            ):
                continue
            if heading.kind == "section" and heading.full[-1] in ".,;:":
                continue
            headings.append(heading)
    return headings, body


def _content_end(text: str, start: int, limit: int) -> int:
    end = limit
    while end > start and text[end - 1].isspace():
        end -= 1
    return end


def _legal_spans(text: str, headings: list[_Heading], body: float) -> list[SectionSpan]:
    spans: list[SectionSpan] = []
    stack: list[tuple[int, str]] = []  # (rank, heading as printed)
    annex: _Heading | None = None
    for i, h in enumerate(headings):
        limit = headings[i + 1].start if i + 1 < len(headings) else len(text)
        end = _content_end(text, h.start, limit)
        has_content = bool(text[h.end : limit].strip())
        path = tuple(full for _, full in stack)
        if h.kind == "annex":
            annex = h
            stack.clear()
            spans.append(SectionSpan(h.label, h.title, (), h.start, end, 0))
        elif h.kind == "section":
            annex = None
            spans.append(SectionSpan(h.label, h.title, path, h.start, end, len(path)))
        elif annex is not None:
            # Sub-headings of an annex ("Teil A: ...", "Tabelle 1"): same label, own heading.
            if has_content:
                spans.append(SectionSpan(annex.label, h.full, (annex.full,), h.start, end, 1))
        elif h.kind == "container":
            while stack and stack[-1][0] >= h.rank:
                stack.pop()
            path = tuple(full for _, full in stack)
            stack.append((h.rank, h.full))
            if has_content:
                spans.append(SectionSpan(h.label, h.title, path, h.start, end, len(path)))
        elif has_content:
            spans.append(SectionSpan(None, h.full, path, h.start, end, len(path)))
    return spans


def _generic_spans(text: str, headings: list[_Heading], body: float) -> list[SectionSpan]:
    unnumbered_sizes = sorted({round(h.size * 2) / 2 for h in headings if h.kind != "numbered"}, reverse=True)
    spans: list[SectionSpan] = []
    stack: list[tuple[int, _Heading]] = []
    for i, h in enumerate(headings):
        limit = headings[i + 1].start if i + 1 < len(headings) else len(text)
        end = _content_end(text, h.start, limit)
        if h.kind == "numbered":
            level = h.rank
        elif h.size > 0:
            level = unnumbered_sizes.index(round(h.size * 2) / 2) + 1
        else:
            level = 1
        while stack and not _nests_under(h, level, *stack[-1]):
            stack.pop()
        path = tuple(outer.full for _, outer in stack)
        stack.append((level, h))
        if text[h.end : limit].strip():
            label = h.label if h.kind in ("numbered", "section", "annex", "container") else None
            spans.append(SectionSpan(label, h.title, path, h.start, end, len(path)))
    return spans


def _nests_under(heading: _Heading, level: int, outer_level: int, outer: _Heading) -> bool:
    """Whether ``heading`` (at ``level``) belongs under ``outer``: a numbered heading under a numbered one by
    their numbers' depth ("2.1" under "2"); otherwise by font size where both have one (a numbered heading
    under a larger unnumbered title, an unnumbered one under a larger numbered heading), else by level."""
    if heading.kind == "numbered" and outer.kind == "numbered":
        return outer_level < level
    if heading.size > 0 and outer.size > 0:
        return round(outer.size * 2) / 2 > round(heading.size * 2) / 2
    return outer_level < level


def detect_structure(text: str, lines: Sequence[TextLine] | None = None) -> Structure:
    """Sections of `text`. `lines` (with font sizes and bold flags) come from the parser; without them the
    text's own lines are used and only numbered/§ headings are recognised."""
    if lines is None:
        lines = lines_from_text(text)
    headings, body = _find_headings(text, lines)
    legal = sum(1 for h in headings if h.kind == "section") >= 2
    if legal:
        # In a statute only §/Art, annexes, Teil/Kapitel/Abschnitt and larger-than-body headings structure the
        # text; bold body-size lines (table cells, emphasis) do not, nor do numbered lines judged by their
        # text alone (OCR, plain text): there "1. Aufbewahrungen nach § 6 ..." is a list item of its section.
        headings = [
            h
            for h in headings
            if h.kind in ("section", "annex", "container") or (h.size > 0 and h.size >= body * 1.12)
        ]
        spans = _legal_spans(text, headings, body)
    else:
        spans = _generic_spans(text, headings, body)
    first = headings[0].start if headings else len(text)
    if spans and text[:first].strip():
        lead = len(text) - len(text.lstrip())
        spans.insert(0, SectionSpan(None, "", (), lead, _content_end(text, 0, first), 0))
    return Structure(spans, legal)
