"""The file formats a collection may hold, in one table: by a file's suffix, its reader (a DocumentParser),
how an upload's content is checked, the media type the original is served with, and whether the viewer
shows the original's pages (a PDF), the page images with their OCR text (an image file) or the stored text
(everything else).

    fmt = format_of("notes.MD")           # the Markdown format, None for a type no reader handles
    fmt.refusal(first_kib)                # why content is not of the format (an upload's check); None: it is
    supported_suffixes()                  # (".docx", ".htm", ".html", ...)

A new format is a row of FORMATS: its reader is imported only when a file of it is read.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import PurePath
from typing import TYPE_CHECKING, Literal

from rabbithole.ingestion.content_kind import describe_content

if TYPE_CHECKING:
    from rabbithole.core.config import IngestionSettings
    from rabbithole.ingestion.parser import DocumentParser

#: A format's name, as the API reports it per document (DocumentStatus.format).
FormatName = Literal["pdf", "docx", "html", "markdown", "text", "png", "jpeg", "tiff"]
#: What the viewer shows: the original's pages (pdf.js), an image file's pages (its page images with the
#: OCR word boxes), or the stored text with the heading path.
ViewerKind = Literal["pdf", "image", "text"]

#: A PDF starts with this, possibly after some junk bytes (readers accept it within the first KiB).
PDF_MAGIC = b"%PDF-"
MAGIC_WINDOW = 1024
ZIP_MAGIC = b"PK\x03\x04"
#: An OLE compound file: an old Word .doc, or an encrypted (password-protected) Office 2007+ file.
OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
JPEG_MAGIC = b"\xff\xd8\xff"
TIFF_MAGIC = (b"II*\x00", b"MM\x00*")


def is_pdf(head: bytes) -> bool:
    """Whether ``head`` (the first bytes of a file) is a PDF's."""
    return PDF_MAGIC in head[:MAGIC_WINDOW]


def looks_like_text(head: bytes) -> bool:
    """Whether ``head`` is text in any 8-bit or UTF-8 encoding: no NUL and no control character but tab,
    line breaks, form feed and escape (a Latin-1 file is text too; UTF-16 with its byte order mark too)."""
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return True
    return not any(b < 9 or (13 < b < 32 and b != 27) or b == 11 for b in head[:MAGIC_WINDOW])


def _what(head: bytes) -> str:
    return "a PDF" if is_pdf(head) else describe_content(head)


def _pdf_refusal(head: bytes) -> str | None:
    return None if is_pdf(head) else f"not a PDF: its content is {describe_content(head)}"


def _docx_refusal(head: bytes) -> str | None:
    # an OLE file may be a password-protected .docx: accepted, its reader says which it is
    if head.startswith((ZIP_MAGIC, OLE_MAGIC)):
        return None
    return f"not a Word .docx file: its content is {_what(head)}"


def _image_refusal(label: str, magic: tuple[bytes, ...]) -> Callable[[bytes], str | None]:
    def refusal(head: bytes) -> str | None:
        return None if head.startswith(magic) else f"not a {label}: its content is {_what(head)}"

    return refusal


def _text_refusal(what: str) -> Callable[[bytes], str | None]:
    def refusal(head: bytes) -> str | None:
        if is_pdf(head) or not looks_like_text(head):
            return f"not {what}: its content is {_what(head)}"
        return None

    return refusal


def _reader(module: str, name: str) -> Callable[[IngestionSettings], DocumentParser]:
    """A reader factory that imports its module when the first file of the format is read."""

    def factory(settings: IngestionSettings) -> DocumentParser:
        reader: DocumentParser = getattr(importlib.import_module(module), name)(settings)
        return reader

    return factory


@dataclass(frozen=True, slots=True)
class FileFormat:
    name: FormatName
    suffixes: tuple[str, ...]  # lower case, with the dot; the first one is given to an upload without one
    media_type: str  # the original file, served for download
    viewer: ViewerKind
    refusal: Callable[[bytes], str | None]  # why content (its first KiB) is not of this format; None: it is
    reader: Callable[[IngestionSettings], DocumentParser]
    label: str  # in words, for messages


FORMATS: tuple[FileFormat, ...] = (
    FileFormat(
        "pdf", (".pdf",), "application/pdf", "pdf", _pdf_refusal,
        _reader("rabbithole.ingestion.pdf", "PdfParser"), "PDF",
    ),
    FileFormat(
        "docx", (".docx",), "application/vnd.openxmlformats-officedocument.wordprocessingml.document", "text",
        _docx_refusal, _reader("rabbithole.ingestion.docx_reader", "DocxReader"), "Word (.docx)",
    ),
    FileFormat(
        "html", (".html", ".htm"), "text/html", "text", _text_refusal("an HTML page"),
        _reader("rabbithole.ingestion.html_reader", "HtmlReader"), "HTML",
    ),
    FileFormat(
        "markdown", (".md", ".markdown"), "text/markdown", "text", _text_refusal("a Markdown text"),
        _reader("rabbithole.ingestion.markdown_reader", "MarkdownReader"), "Markdown",
    ),
    FileFormat(
        "text", (".txt",), "text/plain", "text", _text_refusal("a text file"),
        _reader("rabbithole.ingestion.markdown_reader", "PlainTextReader"), "plain text",
    ),
    # images: read by OCR (ingestion/ocr), one page per image (a TIFF may hold many)
    FileFormat(
        "png", (".png",), "image/png", "image", _image_refusal("PNG image", (PNG_MAGIC,)),
        _reader("rabbithole.ingestion.ocr.images", "ImageParser"), "PNG image",
    ),
    FileFormat(
        "jpeg", (".jpg", ".jpeg"), "image/jpeg", "image", _image_refusal("JPEG image", (JPEG_MAGIC,)),
        _reader("rabbithole.ingestion.ocr.images", "ImageParser"), "JPEG image",
    ),
    FileFormat(
        "tiff", (".tif", ".tiff"), "image/tiff", "image", _image_refusal("TIFF image", TIFF_MAGIC),
        _reader("rabbithole.ingestion.ocr.images", "ImageParser"), "TIFF image",
    ),
)  # fmt: skip

_BY_SUFFIX = {suffix: fmt for fmt in FORMATS for suffix in fmt.suffixes}


def format_of(name: str | PurePath) -> FileFormat | None:
    """The format of a file by its name's suffix (any case); None when no reader handles it."""
    return _BY_SUFFIX.get(PurePath(name).suffix.lower())


def supported_suffixes() -> tuple[str, ...]:
    return tuple(sorted(_BY_SUFFIX))


def accepted_types() -> str:
    """The formats read, in words: "PDF, Word (.docx), HTML, Markdown and plain text files and PNG, JPEG
    and TIFF images"."""
    documents = [fmt.label for fmt in FORMATS if fmt.viewer != "image"]
    images = [fmt.label.removesuffix(" image") for fmt in FORMATS if fmt.viewer == "image"]
    return f"{_listed(documents)} files and {_listed(images)} images"


def _listed(words: list[str]) -> str:
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} and {words[-1]}"
