"""PDF parser (PyMuPDF): body text per page with exact offsets, fonts for structure detection, triage
of bad files.

Text: lines in PyMuPDF's reading order; a vertical gap, a font change or a jump to another column starts a
new paragraph (a blank line); lines of one paragraph are joined with a line break. Running headers and
footers (lines that repeat at the top or bottom of many pages, digits ignored: "Seite 3 von 57") are left
out. A word broken at a line end ("Strahlenschutz-" / "verordnung") is joined only where that is safe (a
lowercase letter before the hyphen and after the break, and the next word is not a conjunction as in
"Bau- und Betriebs..."); otherwise the characters are kept verbatim, so a quote can be checked letter by
letter against the page text.
PyMuPDF is imported when the first PDF is parsed.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rabbithole.core.config import IngestionSettings
from rabbithole.core.models import PageText, ParsedDocument
from rabbithole.ingestion.errors import (
    CorruptDocumentError,
    EmptyDocumentError,
    EncryptedDocumentError,
    FileTooLargeError,
    NotAPdfError,
    NoTextLayerError,
    TruncatedDocumentError,
    UnreadableFileError,
)
from rabbithole.ingestion.structure import TextLine, detect_structure

_MB = 1024 * 1024
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
_ABBREVIATION = re.compile(r"^[A-Za-zÄÖÜäöüß][\wÄÖÜäöüß\-]{0,24}(?: \d{4})?$")
_TITLE_ABBREVIATION = re.compile(r"\(([^()]{2,32})\)\s*$")
_LEGAL_TITLE = re.compile(r"\b(Gesetz|Verordnung|Ordnung|Satzung|Richtlinie)\b|gesetz\b|verordnung\b", re.I)


@dataclass(slots=True)
class _Line:
    text: str
    x0: float
    y0: float
    x1: float
    y1: float
    size: float
    bold: bool


@dataclass(slots=True)
class _Page:
    number: int
    height: float
    lines: list[_Line]
    has_images: bool = False


class PdfParser:
    """DocumentParser for PDF files."""

    suffixes: tuple[str, ...] = (".pdf",)

    def __init__(self, settings: IngestionSettings | None = None) -> None:
        self.settings = settings or IngestionSettings.model_validate({})

    def parse(self, path: Path, file_name: str | None = None) -> ParsedDocument:
        path = Path(path)
        name = file_name or path.name
        truncated = self._check_file(path, name)
        pymupdf = _load_pymupdf()
        with _quiet_mupdf(pymupdf):
            try:
                doc = pymupdf.open(str(path), filetype="pdf")
            except Exception as exc:  # PyMuPDF raises FileDataError/RuntimeError for broken files
                error = TruncatedDocumentError if truncated else CorruptDocumentError
                what = "truncated PDF (the file ends early)" if truncated else "damaged PDF"
                detail = _short(exc).replace(str(path), name)
                raise error(name, f"{what}; it cannot be opened ({detail})") from exc
            try:
                return self._parse_open(pymupdf, doc, name, truncated)
            finally:
                doc.close()

    # --- checks before PyMuPDF sees the file ---------------------------------------------------------------

    def _check_file(self, path: Path, name: str) -> bool:
        """Size and type checks on the raw bytes; returns whether the file lacks its end-of-file marker."""
        try:
            if path.is_dir():
                raise UnreadableFileError(name, "this is a folder, not a file")
            size = path.stat().st_size
            with path.open("rb") as fh:
                head = fh.read(1024)
                fh.seek(max(0, size - 2048))
                tail = fh.read()
        except OSError as exc:
            raise UnreadableFileError(name, f"cannot read the file ({exc.strerror or exc})") from exc
        if size == 0:
            raise EmptyDocumentError(name, "the file is empty (0 bytes)")
        limit = self.settings.max_file_mb * _MB
        if size > limit:
            raise FileTooLargeError(
                name,
                f"the file is {size / _MB:.1f} MB; the limit is {self.settings.max_file_mb:g} MB "
                "(ingestion.max_file_mb)",
            )
        if b"%PDF-" not in head:
            raise NotAPdfError(name, f"not a PDF despite the .pdf name: the content is {_sniff(head)}")
        return b"%%EOF" not in tail

    # --- extraction ----------------------------------------------------------------------------------------

    def _parse_open(self, pymupdf: Any, doc: Any, name: str, truncated: bool) -> ParsedDocument:
        if doc.needs_pass:
            raise EncryptedDocumentError(
                name,
                "password-protected (encrypted) PDF; save a copy without the password and ingest that",
            )
        repaired = bool(getattr(doc, "is_repaired", False))
        count = doc.page_count
        damaged_error = TruncatedDocumentError if truncated else CorruptDocumentError
        damaged_what = "truncated PDF (the file ends early)" if truncated else "damaged PDF"
        if count == 0:
            if repaired or truncated:
                raise damaged_error(name, f"{damaged_what}; no page could be recovered")
            raise EmptyDocumentError(name, "the PDF has no pages")
        if count > self.settings.max_pages:
            raise FileTooLargeError(
                name, f"{count} pages; the limit is {self.settings.max_pages} pages (ingestion.max_pages)"
            )

        pages: list[_Page] = []
        failed: list[int] = []
        garbled: list[int] = []
        for index in range(count):
            number = index + 1
            try:
                page = doc.load_page(index)
                extracted = _extract_page(pymupdf, page, number)
            except Exception:
                failed.append(number)
                pages.append(_Page(number, 842.0, []))
                continue
            if extracted.lines and _is_garbled(extracted.lines):
                garbled.append(number)
                extracted.lines = []
            if not extracted.lines:
                extracted.has_images = _has_images(page)
            pages.append(extracted)
        mupdf_log = str(pymupdf.TOOLS.mupdf_warnings()).strip()
        metadata: dict[str, str] = {k: str(v or "") for k, v in (doc.metadata or {}).items()}

        with_text = [p for p in pages if p.lines]
        if not with_text:
            if failed or garbled or repaired:
                raise damaged_error(name, f"{damaged_what}; no readable text could be recovered")
            raise NoTextLayerError(name, "no text layer (scanned PDF?); OCR is not supported")

        warnings: list[str] = []
        if repaired or truncated:
            detail = _first_line(mupdf_log)
            what = "truncated PDF (the file ends early)" if truncated else "damaged PDF"
            warnings.append(
                f"{what}, repaired on opening{f' ({detail})' if detail else ''}; text may be incomplete"
            )
        if failed:
            warnings.append(f"{_plural(failed)} {_ranges(failed)} could not be read (damaged); left out")
        if garbled:
            warnings.append(
                f"the text of {_plural(garbled)} {_ranges(garbled)} cannot be decoded (damaged or missing "
                "font data); left out"
            )
        scanned = [p.number for p in pages if not p.lines and p.has_images]
        if scanned:
            warnings.append(f"no text layer on {_plural(scanned)} {_ranges(scanned)}; OCR is not supported")

        _drop_running_lines(pages)
        page_texts, lines = _assemble(pages)
        text = ParsedDocument.PAGE_SEPARATOR.join(p.text for p in page_texts)
        structure = detect_structure(text, lines)
        title = _title(metadata.get("title", ""), pages)
        abbreviation = _abbreviation(metadata.get("subject", ""), title)
        is_legal = structure.is_legal or (
            bool(abbreviation)
            and bool(_LEGAL_TITLE.search(title))
            and any(s.label for s in structure.sections)
        )
        return ParsedDocument(
            file_name=name,
            pages=page_texts,
            title=title,
            abbreviation=abbreviation,
            sections=structure.sections,
            warnings=warnings,
            is_legal=is_legal,
        )


def _load_pymupdf() -> Any:
    import pymupdf

    return pymupdf


# --- page extraction ---------------------------------------------------------------------------------------


def _extract_page(pymupdf: Any, page: Any, number: int) -> _Page:
    data = page.get_text("dict", flags=pymupdf.TEXT_MEDIABOX_CLIP)
    lines: list[_Line] = []
    for block in data.get("blocks", ()):
        if block.get("type") != 0:
            continue
        for line in block.get("lines", ()):
            spans = line.get("spans", ())
            text = "".join(span.get("text", "") for span in spans)
            if not text.strip():
                continue
            weights: Counter[float] = Counter()
            bold = True
            for span in spans:
                span_text = span.get("text", "")
                if not span_text.strip():
                    continue
                weights[float(span.get("size", 0.0))] += len(span_text)
                font = str(span.get("font", ""))
                if not (int(span.get("flags", 0)) & 16 or _is_bold_font(font)):
                    bold = False
            x0, y0, x1, y1 = line["bbox"]
            size = weights.most_common(1)[0][0] if weights else 0.0
            lines.append(_Line(text.strip(), x0, y0, x1, y1, size, bold))
    return _Page(number, float(page.rect.height), lines)


def _is_bold_font(font: str) -> bool:
    lowered = font.lower()
    return any(mark in lowered for mark in ("bold", "black", "heavy", "semibold", "demi"))


def _is_garbled(lines: Sequence[_Line]) -> bool:
    text = "".join(line.text for line in lines)
    visible = sum(1 for ch in text if not ch.isspace())
    return visible > 0 and len(_GARBLED.findall(text)) > 0.1 * visible


def _has_images(page: Any) -> bool:
    try:
        return bool(page.get_images(full=False))
    except Exception:
        return False


def _normalize(text: str) -> str:
    return _SPACES.sub(" ", _DIGITS.sub("#", text)).strip().lower()


def _edge_lines(page: _Page, top: bool) -> list[int]:
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


def _drop_running_lines(pages: list[_Page]) -> None:
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


def _paragraph_break(previous: _Line, line: _Line) -> bool:
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


def _assemble(pages: list[_Page]) -> tuple[list[PageText], list[TextLine]]:
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
        previous: _Line | None = None
        for line in page.lines:
            if previous is None:
                sep = ""
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
        page_texts.append(PageText(page.number, text, offset))
        lines.extend(
            TextLine(offset + start, offset + end, size, bold, para) for start, end, size, bold, para in infos
        )
        offset += len(text) + separator
    return page_texts, lines


# --- title and abbreviation --------------------------------------------------------------------------------


def _useful_title(title: str) -> bool:
    lowered = title.strip().lower()
    return (
        len(lowered) >= 3
        and lowered not in ("untitled", "unbenannt", "none", "title")
        and not lowered.startswith("microsoft word")
        and not lowered.endswith((".pdf", ".doc", ".docx", ".odt", ".tex", ".indd"))
    )


def _title(meta_title: str, pages: list[_Page]) -> str:
    if _useful_title(meta_title):
        return _SPACES.sub(" ", meta_title).strip()
    first_page = next((p for p in pages if p.lines), None)
    if first_page is None:
        return ""
    sizes = [line.size for line in first_page.lines]
    largest = max(sizes)
    body = Counter(round(s * 2) / 2 for s in sizes).most_common(1)[0][0]
    if largest >= body * 1.15:
        picked: list[str] = []
        for line in first_page.lines:
            if line.size >= largest - 0.3:
                picked.append(line.text)
            elif picked:
                break
        return _SPACES.sub(" ", " ".join(picked)).strip()[:300]
    return first_page.lines[0].text[:300]


def _abbreviation(subject: str, title: str) -> str:
    subject = subject.strip()
    if subject and _ABBREVIATION.match(subject) and any(ch.isupper() for ch in subject):
        return subject
    match = _TITLE_ABBREVIATION.search(title)
    if match:
        candidate = match.group(1).strip()
        if _ABBREVIATION.match(candidate) and any(ch.isupper() for ch in candidate[1:]):
            return re.sub(r" \d{4}$", "", candidate)
    return ""


# --- helpers -----------------------------------------------------------------------------------------------


@contextmanager
def _quiet_mupdf(pymupdf: Any) -> Iterator[None]:
    """MuPDF reports repairs on stderr; collect them (TOOLS.mupdf_warnings) instead."""
    tools = pymupdf.TOOLS
    errors = tools.mupdf_display_errors()
    warnings = tools.mupdf_display_warnings() if hasattr(tools, "mupdf_display_warnings") else None
    tools.mupdf_display_errors(False)
    if warnings is not None:
        tools.mupdf_display_warnings(False)
    tools.reset_mupdf_warnings()
    try:
        yield
    finally:
        tools.mupdf_display_errors(errors)
        if warnings is not None:
            tools.mupdf_display_warnings(warnings)


def _sniff(head: bytes) -> str:
    stripped = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    lowered = stripped[:512].lower()
    if lowered.startswith((b"<!doctype html", b"<html")) or b"<html" in lowered or b"<body" in lowered:
        return "an HTML page (a saved web page, or an error/login page instead of the document)"
    if lowered.startswith(b"<?xml") or lowered.startswith(b"<"):
        return "XML/markup text"
    signatures: list[tuple[bytes, str]] = [
        (b"PK\x03\x04", "a ZIP archive (for example a Word .docx or OpenDocument file)"),
        (b"\xd0\xcf\x11\xe0", "an old Microsoft Office file (for example a Word .doc)"),
        (b"{\\rtf", "an RTF document"),
        (b"%!PS", "a PostScript file"),
        (b"\x89PNG", "a PNG image"),
        (b"\xff\xd8\xff", "a JPEG image"),
        (b"GIF8", "a GIF image"),
        (b"II*\x00", "a TIFF image"),
        (b"MM\x00*", "a TIFF image"),
    ]
    for signature, what in signatures:
        if head.startswith(signature):
            return what
    sample = head[:1024]
    try:
        sample.decode("utf-8")
        decodable = True
    except UnicodeDecodeError as exc:
        decodable = exc.start >= len(sample) - 3  # cut in the middle of a character
    if decodable and not any(b < 9 or 13 < b < 32 for b in sample):
        return "plain text"
    return "unknown binary data"


def _short(exc: BaseException) -> str:
    text = _first_line(str(exc)) or type(exc).__name__
    return text[:160]


def _first_line(text: str) -> str:
    for line in text.splitlines():
        if line.strip():
            return line.strip()
    return ""


def _plural(numbers: Sequence[int]) -> str:
    return "page" if len(numbers) == 1 else "pages"


def _ranges(numbers: Sequence[int]) -> str:
    """[1, 2, 3, 5] -> "1–3, 5"."""
    out: list[str] = []
    ordered = sorted(numbers)
    start = prev = ordered[0]
    for n in [*ordered[1:], None]:
        if n is not None and n == prev + 1:
            prev = n
            continue
        out.append(str(start) if start == prev else f"{start}–{prev}")
        if n is not None:
            start = prev = n
    return ", ".join(out)
