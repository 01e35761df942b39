"""Markdown and plain text files as documents (ingestion/text_document.py builds the ParsedDocument).

Markdown: ATX headings ("## 2 Scope", closing #s dropped) and Setext headings (a line underlined with === or
---) become headings of their level; their text is stored without the markers. Everything else is stored
verbatim, paragraph by paragraph (blank lines between), inline markup included: a quote is cut from the
text as written (only a line's leading escaped "\\#", a "#" that is no heading, is stored as "#").
Nothing inside a fenced code block (``` or ~~~) is taken for a heading. A YAML front matter
block (--- ... --- at the very start) is left out; its `title:` names the document.

Plain text: paragraphs between blank lines; headings only where the text numbers them (§ 7, 4.2 Results,
Anlage 1), as in a PDF without fonts.

Both are decoded as UTF-8, or as Windows-1252/Latin-1 with a warning (text_files.decode_text), and read
within ingestion.max_text_file_mb.
"""

from __future__ import annotations

import re
from pathlib import Path

from rabbithole.core.config import IngestionSettings
from rabbithole.core.models import ParsedDocument
from rabbithole.ingestion.formats import format_of
from rabbithole.ingestion.text_document import Block, build_document, clean_block, split_paragraphs
from rabbithole.ingestion.text_files import check_content, decode_text, read_limited

_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_ESCAPED_HASH = re.compile(r"^( {0,3})\\#")
_FRONT_TITLE = re.compile(r"^title:\s*[\"']?(.*?)[\"']?\s*$", re.M)


class _TextFileReader:
    suffixes: tuple[str, ...] = ()

    def __init__(self, settings: IngestionSettings | None = None) -> None:
        self.settings = settings or IngestionSettings.model_validate({})

    def _text(self, path: Path, name: str) -> tuple[str, list[str]]:
        data = read_limited(path, name, self.settings.max_text_file_mb, "ingestion.max_text_file_mb")
        fmt = format_of(path) or format_of(name)
        if fmt is not None:
            check_content(data, name, fmt)
        text, note = decode_text(data)
        return text.replace("\r\n", "\n").replace("\r", "\n"), [note] if note else []

    def _document(self, name: str, blocks: list[Block], title: str, warnings: list[str]) -> ParsedDocument:
        return build_document(
            name, blocks, self.settings.text_page_chars, self.settings.max_pages, title, warnings=warnings
        )


class PlainTextReader(_TextFileReader):
    """DocumentParser for .txt files."""

    suffixes = (".txt",)

    def parse(self, path: Path, file_name: str | None = None) -> ParsedDocument:
        name = file_name or path.name
        text, warnings = self._text(Path(path), name)
        blocks = [Block(p, sized=False) for p in split_paragraphs(text)]
        return self._document(name, blocks, "", warnings)


class MarkdownReader(_TextFileReader):
    """DocumentParser for .md and .markdown files."""

    suffixes = (".md", ".markdown")

    def parse(self, path: Path, file_name: str | None = None) -> ParsedDocument:
        name = file_name or path.name
        text, warnings = self._text(Path(path), name)
        text, title = _front_matter(text)
        return self._document(name, markdown_blocks(text), title, warnings)


def _front_matter(text: str) -> tuple[str, str]:
    if not text.startswith("---\n"):
        return text, ""
    end = text.find("\n---\n", 4)
    if end < 0:
        return text, ""
    title = _FRONT_TITLE.search(text[4:end])
    return text[end + 5 :], title.group(1) if title else ""


def markdown_blocks(text: str) -> list[Block]:
    """Headings and paragraphs of Markdown text, in order."""
    blocks: list[Block] = []
    paragraph: list[str] = []
    fence: str | None = None

    def flush() -> None:
        body = clean_block("\n".join(paragraph))
        if body:
            blocks.append(Block(body))
        paragraph.clear()

    for line in text.split("\n"):
        if fence is not None:
            paragraph.append(line)
            if line.strip().startswith(fence):
                fence = None
                flush()
            continue
        if opened := _FENCE.match(line):
            flush()
            fence = opened.group(1)[:3]
            paragraph.append(line)
            continue
        if atx := _ATX.match(line):
            flush()
            heading = clean_block(atx.group(2) or "")
            if heading:
                blocks.append(Block(heading, heading=len(atx.group(1))))
            continue
        setext = _SETEXT.match(line)
        if setext and len(paragraph) == 1 and paragraph[0].strip():
            heading = clean_block(paragraph[0])
            paragraph.clear()
            blocks.append(Block(heading, heading=1 if setext.group(1)[0] == "=" else 2))
            continue
        if not line.strip():
            flush()
            continue
        paragraph.append(_ESCAPED_HASH.sub(r"\1#", line))
    flush()
    return blocks
