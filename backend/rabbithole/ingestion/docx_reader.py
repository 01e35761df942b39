"""Word documents (.docx, python-docx) as documents (ingestion/text_document.py builds the ParsedDocument).

The body is read in order: paragraphs and tables. A paragraph whose style is a heading ("Heading 2",
"Überschrift 2", "Title", or a style based on one; or one with an outline level) is a heading of that
level; a paragraph bold throughout is marked bold (structure.py may take it for a heading, as a bold line
of a PDF). A table is kept as text, one line per row, its cells separated by " | " (a merged cell once).
Line breaks inside a paragraph stay line breaks. Headers, footers, footnotes and comments are left out.
The title and abbreviation come from the document's properties (title; subject, e.g. "AtG") where set.

Bad files: a password-protected (encrypted) .docx is an OLE container holding an "EncryptedPackage" and is
reported as such; another OLE file is an old binary Word .doc; a file that is no ZIP, or a ZIP without a
readable Word document inside, is damaged. A document text over ingestion.max_text_file_mb unpacked is
reported before it is unpacked.
"""

from __future__ import annotations

import re
import zipfile
from pathlib import Path
from typing import Any

from rabbithole.core.config import IngestionSettings
from rabbithole.core.models import ParsedDocument
from rabbithole.ingestion.errors import CorruptDocumentError, EncryptedDocumentError, FileTooLargeError
from rabbithole.ingestion.formats import FORMATS, OLE_MAGIC
from rabbithole.ingestion.text_document import Block, build_document, clean_block
from rabbithole.ingestion.text_files import MB, check_content, read_limited

_HEADING_STYLE = re.compile(r"^(?:heading|überschrift|titre|kop)\s*(\d)$", re.I)
_TITLE_STYLES = frozenset({"title", "titel"})
_ENCRYPTED_STREAM = "EncryptedPackage".encode("utf-16-le")
_DOCUMENT_PART = "word/document.xml"
_DOCX = next(f for f in FORMATS if f.name == "docx")


class DocxReader:
    """DocumentParser for .docx files."""

    suffixes: tuple[str, ...] = (".docx",)

    def __init__(self, settings: IngestionSettings | None = None) -> None:
        self.settings = settings or IngestionSettings.model_validate({})

    def parse(self, path: Path, file_name: str | None = None) -> ParsedDocument:
        path = Path(path)
        name = file_name or path.name
        data = read_limited(path, name, self.settings.max_file_mb, "ingestion.max_file_mb")
        check_content(data, name, _DOCX)
        if data.startswith(OLE_MAGIC):
            if _ENCRYPTED_STREAM in data:
                raise EncryptedDocumentError(
                    name,
                    "password-protected (encrypted) Word document; save a copy without the password and "
                    "ingest that",
                )
            raise CorruptDocumentError(
                name,
                "an old binary Word .doc file, not a .docx; save it as .docx (Word: Save as) and ingest that",
            )
        self._check_unpacked_size(path, name)
        document = _open(path, name)
        properties = document.core_properties
        blocks = [block for item in document.iter_inner_content() for block in _blocks(item)]
        return build_document(
            name,
            blocks,
            self.settings.text_page_chars,
            self.settings.max_pages,
            title=properties.title or "",
            subject=properties.subject or "",
        )

    def _check_unpacked_size(self, path: Path, name: str) -> None:
        try:
            with zipfile.ZipFile(path) as archive:
                size = archive.getinfo(_DOCUMENT_PART).file_size
        except (zipfile.BadZipFile, OSError) as exc:
            raise CorruptDocumentError(name, f"damaged DOCX: not a readable ZIP archive ({exc})") from exc
        except KeyError as exc:
            raise CorruptDocumentError(
                name, f"damaged DOCX: the ZIP archive holds no Word document ({_DOCUMENT_PART})"
            ) from exc
        limit = self.settings.max_text_file_mb
        if size > limit * MB:
            raise FileTooLargeError(
                name,
                f"its document text is {size / MB:.1f} MB unpacked; the limit is {limit:g} MB "
                "(ingestion.max_text_file_mb)",
            )


def _open(path: Path, name: str) -> Any:
    import docx

    try:
        return docx.Document(str(path))
    except Exception as exc:  # python-docx raises KeyError, BadZipFile, lxml's XMLSyntaxError, ValueError...
        detail = (str(exc).splitlines() or [type(exc).__name__])[0][:160]
        raise CorruptDocumentError(name, f"damaged DOCX; it cannot be opened ({detail})") from exc


def _blocks(item: Any) -> list[Block]:
    from docx.table import Table

    if isinstance(item, Table):
        text = _table_text(item)
        return [Block(text)] if text else []
    text = clean_block(item.text)
    if not text:
        return []
    level = _heading_level(item)
    if level:
        return [Block(text, heading=level)]
    return [Block(text, bold=_all_bold(item))]


def _heading_level(paragraph: Any) -> int:
    """1-6 for a heading paragraph (by its style, a style it is based on, or its outline level), else 0."""
    outline = _outline_level(paragraph._p.pPr)
    if outline is not None:
        return outline
    style = paragraph.style
    while style is not None:
        style_name = (style.name or "").strip()
        if style_name.lower() in _TITLE_STYLES:
            return 1
        if match := _HEADING_STYLE.match(style_name):
            return min(max(int(match.group(1)), 1), 6)
        outline = _outline_level(style.element.pPr)
        if outline is not None:
            return outline
        style = style.base_style
    return 0


def _outline_level(properties: Any) -> int | None:
    """The heading level a paragraph's or style's properties set (w:outlineLvl 0-5; 9 is body text)."""
    if properties is None:
        return None
    found = properties.find("{http://schemas.openxmlformats.org/wordprocessingml/2006/main}outlineLvl")
    if found is None:
        return None
    value = found.get("{http://schemas.openxmlformats.org/wordprocessingml/2006/main}val", "9")
    return int(value) + 1 if value.isdigit() and int(value) < 6 else None


def _all_bold(paragraph: Any) -> bool:
    runs = [run for run in paragraph.runs if run.text.strip()]
    return bool(runs) and all(run.bold or (run.bold is None and _style_bold(paragraph)) for run in runs)


def _style_bold(paragraph: Any) -> bool:
    style = paragraph.style
    return bool(style is not None and style.font is not None and style.font.bold)


def _table_text(table: Any) -> str:
    rows: list[str] = []
    for row in table.rows:
        cells: list[str] = []
        previous = None
        for cell in row.cells:
            if previous is not None and cell._tc is previous:  # a merged cell is listed once per column
                continue
            previous = cell._tc
            cells.append(" ".join(clean_block(cell.text).split("\n")))
        line = " | ".join(cells).strip(" |")
        if line:
            rows.append(line)
    return "\n".join(rows)
