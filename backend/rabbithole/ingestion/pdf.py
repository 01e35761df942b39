"""PDF parser (PyMuPDF): body text per page with exact offsets, fonts for structure detection, triage
of bad files.

Text: lines in PyMuPDF's reading order; a vertical gap, a font change or a jump to another column starts a
new paragraph (a blank line); lines of one paragraph are joined with a line break. Running headers and
footers (lines that repeat at the top or bottom of many pages, digits ignored: "Seite 3 von 57") are left
out. A word broken at a line end ("Strahlenschutz-" / "verordnung") is joined only where that is safe (a
lowercase letter before the hyphen and after the break, and the next word is not a conjunction as in
"Bau- und Betriebs..."); otherwise the characters are kept verbatim, so a quote can be checked letter by
letter against the page text.
Pages without a usable text layer (scans) are read with Tesseract where it can run (ingestion/ocr); where it
cannot, the reason and the command that fixes it are reported.
The layout work (lines, headers/footers, page assembly) is in `pdf_layout.py`. PyMuPDF is imported when the
first PDF is parsed, without its optional add-ons (see :func:`load_pymupdf`).
"""

from __future__ import annotations

import re
import sys
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from rabbithole.core.config import IngestionSettings
from rabbithole.core.models import ParsedDocument
from rabbithole.ingestion.content_kind import describe_content
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
from rabbithole.ingestion.ocr.scanned import ScanReading, read_scanned_pages
from rabbithole.ingestion.page_ranges import page_ranges, plural
from rabbithole.ingestion.pdf_layout import (
    PdfLine,
    PdfPage,
    assemble,
    drop_running_lines,
    extract_page,
    has_images,
    is_garbled,
)
from rabbithole.ingestion.structure import detect_structure

_MB = 1024 * 1024
_SPACES = re.compile(r"\s+")
_ABBREVIATION = re.compile(r"^[A-Za-zÄÖÜäöüß][\wÄÖÜäöüß\-]{0,24}(?: \d{4})?$")
_TITLE_ABBREVIATION = re.compile(r"\(([^()]{2,32})\)\s*$")
#: fewer visible characters than this on a page with an image: the text layer is not usable (a scan with at
#: most a stamped page number or file mark over it), and the page is read by OCR
_USABLE_TEXT_LAYER = 16
_LEGAL_TITLE = re.compile(r"\b(Gesetz|Verordnung|Ordnung|Satzung|Richtlinie)\b|gesetz\b|verordnung\b", re.I)


class PdfParser:
    """DocumentParser for PDF files."""

    suffixes: tuple[str, ...] = (".pdf",)

    def __init__(self, settings: IngestionSettings | None = None) -> None:
        self.settings = settings or IngestionSettings.model_validate({})

    def parse(self, path: Path, file_name: str | None = None) -> ParsedDocument:
        path = Path(path)
        name = file_name or path.name
        truncated = self._check_file(path, name)
        pymupdf = load_pymupdf()
        error = TruncatedDocumentError if truncated else CorruptDocumentError
        what = "truncated PDF (the file ends early)" if truncated else "damaged PDF"
        with quiet_mupdf(pymupdf):
            try:
                doc = _open(pymupdf, path)
            except Exception as exc:  # PyMuPDF raises FileDataError/RuntimeError for broken files
                detail = _short(exc).replace(str(path), name)
                raise error(name, f"{what}; it cannot be opened ({detail})") from exc
            try:
                return self._parse_open(pymupdf, doc, name, truncated)
            except RuntimeError as exc:
                # MuPDF opened a repaired shell but cannot walk it ("Invalid number of pages": a file cut
                # before its page tree): damaged, like a file that cannot be opened at all.
                raise error(name, f"{what}; its pages cannot be read ({_short(exc)})") from exc
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
            what = describe_content(head)
            raise NotAPdfError(name, f"not a PDF despite the .pdf name: the content is {what}")
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

        pages: list[PdfPage] = []
        failed: list[int] = []
        garbled: list[int] = []
        for index in range(count):
            number = index + 1
            try:
                page = doc.load_page(index)
                extracted = extract_page(pymupdf, page, number)
            except Exception:
                failed.append(number)
                pages.append(PdfPage(number, 842.0, []))
                continue
            if extracted.lines and is_garbled(extracted.lines):
                garbled.append(number)
                extracted.lines = []
            if _visible_characters(extracted.lines) < _USABLE_TEXT_LAYER:
                extracted.has_images = has_images(page)
            pages.append(extracted)
        # pages that are an image with no (or next to no) text over it: scans, read by OCR where it can run
        scans = [
            p.number
            for p in pages
            if p.has_images and p.number not in garbled and _visible_characters(p.lines) < _USABLE_TEXT_LAYER
        ]
        reading = read_scanned_pages(pymupdf, doc, scans, self.settings.ocr) if scans else ScanReading()
        for number, read in reading.pages.items():
            if read.lines:
                pages[number - 1] = read
        mupdf_log = str(pymupdf.TOOLS.mupdf_warnings()).strip()
        metadata: dict[str, str] = {k: str(v or "") for k, v in (doc.metadata or {}).items()}

        with_text = [p for p in pages if p.lines]
        if not with_text:
            if failed or garbled or repaired:
                raise damaged_error(name, f"{damaged_what}; no readable text could be recovered")
            if reading.refused is not None:
                raise NoTextLayerError(name, f"no text layer (scanned PDF?); not read: {reading.refused}")
            if reading.pages:
                raise NoTextLayerError(name, "no text layer, and OCR found no text on its pages")
            raise NoTextLayerError(name, "no text layer (scanned PDF?) and no page image to read")

        warnings: list[str] = []
        if repaired or truncated:
            detail = _first_line(mupdf_log)
            what = "truncated PDF (the file ends early)" if truncated else "damaged PDF"
            warnings.append(
                f"{what}, repaired on opening{f' ({detail})' if detail else ''}; text may be incomplete"
            )
        if failed:
            warnings.append(f"{plural(failed)} {page_ranges(failed)} could not be read (damaged); left out")
        if garbled:
            warnings.append(
                f"the text of {plural(garbled)} {page_ranges(garbled)} cannot be decoded (damaged or missing "
                "font data); left out"
            )
        warnings.extend(reading.warnings)
        unread = [p.number for p in pages if not p.lines and p.has_images]
        if unread:
            why = reading.refused or "OCR found no text there"
            warnings.append(f"no text layer on {plural(unread)} {page_ranges(unread)}; not read: {why}")

        drop_running_lines(pages)
        page_texts, lines = assemble(pages)
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


#: optional modules pymupdf (2.x) imports when they are installed, and which it installs itself:
#: pymupdf.layout activates an ONNX layout analyzer at import (for ``Page.get_layout``), pymupdf4llm
#: loads onnxruntime (for its Markdown/OCR helpers). The parser uses neither; importing them cost 0.6 s and
#: 90 MB in every process that parses a PDF (0.70 s / 138 MB against 0.11 s / 47 MB for the import).
SKIPPED_PYMUPDF_ADDONS = ("pymupdf.layout", "pymupdf4llm")


def load_pymupdf() -> Any:
    """pymupdf without the add-ons above: before its first import they are marked absent (``None`` in
    ``sys.modules`` makes an import raise ImportError, which pymupdf handles as "not installed"). Where
    pymupdf was already imported (by other code of the process), it is used as it is."""
    if "pymupdf" not in sys.modules:
        for name in SKIPPED_PYMUPDF_ADDONS:
            if name not in sys.modules:
                sys.modules[name] = None  # type: ignore[assignment]  # the import system's "absent" mark
    import pymupdf

    return pymupdf


def _open(pymupdf: Any, path: Path) -> Any:
    """Open by path; a path MuPDF cannot take (a file name that is not valid UTF-8) from its bytes."""
    name = str(path)
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return pymupdf.open(stream=path.read_bytes(), filetype="pdf")
    return pymupdf.open(name, filetype="pdf")


# --- page extraction ---------------------------------------------------------------------------------------


def _useful_title(title: str) -> bool:
    lowered = title.strip().lower()
    return (
        len(lowered) >= 3
        and lowered not in ("untitled", "unbenannt", "none", "title")
        and not lowered.startswith("microsoft word")
        and not lowered.endswith((".pdf", ".doc", ".docx", ".odt", ".tex", ".indd"))
    )


def _title(meta_title: str, pages: list[PdfPage]) -> str:
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
def quiet_mupdf(pymupdf: Any) -> Iterator[None]:
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


def _short(exc: BaseException) -> str:
    text = _first_line(str(exc)) or type(exc).__name__
    return text[:160]


def _visible_characters(lines: Sequence[PdfLine]) -> int:
    return sum(len("".join(line.text.split())) for line in lines)


def _first_line(text: str) -> str:
    for line in text.splitlines():
        if line.strip():
            return line.strip()
    return ""
