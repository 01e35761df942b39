"""HTML files (saved web pages, exported guidance) as documents (text_document.py builds the ParsedDocument).

The main text is taken with trafilatura (navigation, footers, cookie banners and the like are left out),
tables included, with its structure kept: <h1>-<h6> become headings of their level, each paragraph,
list item and table row keeps its line breaks (<br>); a table is kept as text, one line per row, its
cells separated by " | ". The title is the page's (<title>, or trafilatura's metadata). The encoding is
the page's own (its meta charset, else detected). Files over ingestion.max_text_file_mb are reported
before they are read.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rabbithole.core.config import IngestionSettings
from rabbithole.core.models import ParsedDocument
from rabbithole.ingestion.errors import EmptyDocumentError
from rabbithole.ingestion.formats import FORMATS
from rabbithole.ingestion.text_document import Block, build_document, clean_block
from rabbithole.ingestion.text_files import check_content, read_limited

_HTML = next(f for f in FORMATS if f.name == "html")


class HtmlReader:
    """DocumentParser for .html and .htm files."""

    suffixes: tuple[str, ...] = (".html", ".htm")

    def __init__(self, settings: IngestionSettings | None = None) -> None:
        self.settings = settings or IngestionSettings.model_validate({})

    def parse(self, path: Path, file_name: str | None = None) -> ParsedDocument:
        path = Path(path)
        name = file_name or path.name
        data = read_limited(path, name, self.settings.max_text_file_mb, "ingestion.max_text_file_mb")
        check_content(data, name, _HTML)
        main = _main_text(data)
        if main is None:
            raise EmptyDocumentError(name, "no main text found in the HTML page")
        blocks = html_blocks(main)
        title = str(main.getroottree().getroot().get("title") or "")
        return build_document(
            name, blocks, self.settings.text_page_chars, self.settings.max_pages, title=title
        )


def _main_text(data: bytes) -> Any:
    """trafilatura's XML of the page's main text (a <doc title=...> element), or None when it finds none."""
    import trafilatura
    from lxml import etree

    extracted = trafilatura.extract(
        data,
        output_format="xml",
        include_tables=True,
        include_comments=False,
        include_formatting=True,
        include_links=False,
        include_images=False,
        with_metadata=True,
        deduplicate=False,
        favor_recall=True,
    )
    if not extracted:
        return None
    root = etree.fromstring(extracted.encode("utf-8"))
    return root.find("main")


def html_blocks(main: Any) -> list[Block]:
    """Headings, paragraphs, list items and table rows of trafilatura's <main>, in order."""
    blocks: list[Block] = []
    for element in main:
        tag = element.tag
        if tag == "head":
            rend = str(element.get("rend") or "h2")
            level = int(rend[1]) if len(rend) == 2 and rend[0] == "h" and rend[1].isdigit() else 2
            text = clean_block(_text(element))
            if text:
                blocks.append(Block(text, heading=min(max(level, 1), 6)))
        elif tag == "table":
            rows = [
                " | ".join(" ".join(clean_block(_text(cell)).split("\n")) for cell in row).strip(" |")
                for row in element.iter("row")
            ]
            text = "\n".join(r for r in rows if r)
            if text:
                blocks.append(Block(text))
        elif tag == "list":
            text = "\n".join(clean_block(_text(item)).replace("\n", " ") for item in element.iter("item"))
            if text.strip():
                blocks.append(Block(clean_block(text)))
        else:
            text = clean_block(_text(element))
            if text:
                blocks.append(Block(text))
    return blocks


def _text(element: Any) -> str:
    """An element's text, <lb/> as a line break."""
    parts: list[str] = [element.text or ""]
    for child in element:
        parts.append("\n" if child.tag == "lb" else _text(child))
        parts.append(child.tail or "")
    return "".join(parts)
