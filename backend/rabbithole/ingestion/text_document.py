"""A document without pages of its own (DOCX, HTML, Markdown, text) as a ParsedDocument, from its blocks.

A reader turns its file into Blocks in reading order: headings (level 1-6, from the format's markup),
paragraphs, tables (rows as lines, cells separated by " | "). Here they become the document text the
chunks, quotes and citations cut from, verbatim: blocks joined by a blank line, each block's lines as the
reader gave them.

Pages: these formats have none, so the text is cut into pages of about ``ingestion.text_page_chars``
characters (3000 by default), each page ending at a block's end: a new page starts before a block once
the page holds that many characters, or before a heading once it holds half of them (so a page tends to
begin at a heading). A block is never split, so a page can be longer than the setting. Pages are joined by
ParsedDocument.PAGE_SEPARATOR, as a PDF's, and each records its offset: a citation "p. 3" and the viewer's
page turning work as for a PDF. The separator stands where a blank line between two blocks stood, so the
chunker takes it as a paragraph break (``page_breaks_end_paragraphs``): the chunks are those of the text
on one page, as a PDF's pages do not move its chunks either.

Structure: the headings are given to structure.detect_structure as lines with a font size by level (and
bold where the reader saw a bold paragraph), so the same rules as for a PDF's fonts apply: § headings make a
legal text, headings nest by level, each heading's scope is a section with its heading path. Blocks without
a size (plain text) leave the structure to the text's own numbering (§ 7, 4.2, Anlage 1).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from rabbithole.core.models import PageText, ParsedDocument
from rabbithole.ingestion.errors import EmptyDocumentError, FileTooLargeError

# the title rules of a PDF's (pdf.py imports PyMuPDF only when it parses): the abbreviation from the
# metadata's subject or the title's end "(AtG)", and what makes a titled document with labels a legal one
from rabbithole.ingestion.pdf import _LEGAL_TITLE, _abbreviation
from rabbithole.ingestion.structure import TextLine, detect_structure

#: font sizes given to heading levels 1-6 and to body text (structure.py compares sizes only)
HEADING_SIZES = (24.0, 20.0, 17.0, 15.0, 13.5, 12.5)
BODY_SIZE = 11.0
BLOCK_SEPARATOR = "\n\n"
_SPACES = re.compile(r"[ \t\r\f\v\u00a0]+")
_BLANK_LINES = re.compile(r"\n\s*\n")


@dataclass(frozen=True, slots=True)
class Block:
    """One heading, paragraph or table of a document, its text as it is stored (lines joined by "\\n")."""

    text: str
    heading: int = 0  # 1-6 for a heading, 0 for body text
    bold: bool = False  # a body paragraph printed bold throughout (a heading made by hand)
    sized: bool = True  # False: the format knows no headings (plain text); structure comes from numbering


def clean_block(text: str) -> str:
    """A block's text with its lines' runs of spaces collapsed, trailing spaces and blank lines dropped."""
    lines = (_SPACES.sub(" ", line).strip() for line in text.split("\n"))
    return "\n".join(line for line in lines if line)


def split_paragraphs(text: str) -> list[str]:
    """Paragraphs of plain text: parts between blank lines, cleaned, empty ones dropped."""
    return [p for p in (clean_block(part) for part in _BLANK_LINES.split(text)) if p]


def build_document(
    file_name: str,
    blocks: Sequence[Block],
    page_chars: int,
    max_pages: int,
    title: str = "",
    subject: str = "",
    warnings: Sequence[str] = (),
) -> ParsedDocument:
    """The ParsedDocument of ``blocks``; EmptyDocumentError when no block holds text."""
    kept = [b for b in blocks if b.text.strip()]
    if not kept:
        raise EmptyDocumentError(file_name, "the document holds no text")
    pages_blocks = _paginate(kept, page_chars)
    if len(pages_blocks) > max_pages:
        raise FileTooLargeError(
            file_name,
            f"{len(pages_blocks)} pages of {page_chars} characters; the limit is {max_pages} pages "
            "(ingestion.max_pages)",
        )
    pages: list[PageText] = []
    lines: list[TextLine] = []
    offset = 0
    for number, page_blocks in enumerate(pages_blocks, start=1):
        if pages:
            offset += len(ParsedDocument.PAGE_SEPARATOR)
        pages.append(PageText(number, BLOCK_SEPARATOR.join(b.text for b in page_blocks), offset))
        for block in page_blocks:
            lines.extend(_block_lines(block, offset))
            offset += len(block.text) + len(BLOCK_SEPARATOR)
        offset -= len(BLOCK_SEPARATOR)
    text = ParsedDocument.PAGE_SEPARATOR.join(p.text for p in pages)
    sized = any(b.sized for b in kept)
    structure = detect_structure(text, lines if sized else None)
    title = _title(title, kept)
    abbreviation = _abbreviation(subject, title)
    is_legal = structure.is_legal or (
        bool(abbreviation) and bool(_LEGAL_TITLE.search(title)) and any(s.label for s in structure.sections)
    )
    return ParsedDocument(
        file_name=file_name,
        pages=pages,
        title=title,
        abbreviation=abbreviation,
        sections=structure.sections,
        warnings=list(warnings),
        is_legal=is_legal,
        page_breaks_end_paragraphs=True,  # each page ends at a block's end
    )


def _paginate(blocks: Sequence[Block], page_chars: int) -> list[list[Block]]:
    pages: list[list[Block]] = [[]]
    size = 0
    for block in blocks:
        full = size >= page_chars or (block.heading and size >= page_chars // 2)
        if pages[-1] and full:
            pages.append([])
            size = 0
        pages[-1].append(block)
        size += len(block.text) + len(BLOCK_SEPARATOR)
    return pages


def _block_lines(block: Block, offset: int) -> list[TextLine]:
    size = 0.0
    if block.sized:
        size = HEADING_SIZES[min(block.heading, 6) - 1] if block.heading else BODY_SIZE
    bold = block.bold or block.heading > 0
    out: list[TextLine] = []
    position = offset
    for index, line in enumerate(block.text.split("\n")):
        if line.strip():
            out.append(TextLine(position, position + len(line), size, bold, paragraph_start=index == 0))
        position += len(line) + 1
    return out


def _useful_title(title: str) -> bool:
    lowered = title.strip().lower()
    return len(lowered) >= 3 and lowered not in ("untitled", "unbenannt", "none", "title", "dokument1")


def _title(given: str, blocks: Sequence[Block]) -> str:
    if _useful_title(given):
        return _SPACES.sub(" ", given.replace("\n", " ")).strip()[:300]
    first = next((b for b in blocks if b.heading), blocks[0])
    return _SPACES.sub(" ", first.text.replace("\n", " ")).strip()[:300]
