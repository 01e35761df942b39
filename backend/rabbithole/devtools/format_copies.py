"""Copies of a parsed PDF in the other formats read (DOCX, HTML, Markdown), for tests and benchmarks.

    copy = write_copy(parsed, folder / "AtG.docx")   # the format by the suffix: .docx, .html, .md

Built from the PDF's own text and structure: the text before the first heading as paragraphs (the title
first, as the document's title), each container heading of the section paths (Teil, Kapitel, Abschnitt) as
a heading of level 2, each section's heading ("§ 7 Genehmigung ...") as a heading of level 3, the
section's body as paragraphs (the PDF's blank lines), page breaks dropped. The title and the
abbreviation go into the formats' metadata (DOCX properties, HTML <title>), as an author's tool would.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from pathlib import Path

from rabbithole.core.models import ParsedDocument

_SPACES = re.compile(r"\s+")


@dataclass(frozen=True, slots=True)
class CopyBlock:
    text: str
    heading: int = 0  # 0: a paragraph


def copy_blocks(parsed: ParsedDocument) -> list[CopyBlock]:
    """The document as headings and paragraphs, in order."""
    text = parsed.text
    blocks: list[CopyBlock] = []
    position = 0
    for section in parsed.sections:
        # between sections: container headings (a page break there separates two of them)
        blocks.extend(CopyBlock(p, 2) for p in _paragraphs(text[position : section.start], pages_split=True))
        body = text[section.start : section.end]
        if section.label is None and not section.heading:
            blocks.extend(CopyBlock(p) for p in _paragraphs(body))
        else:
            heading, rest = _split_heading(body, section.label, section.heading)
            blocks.append(CopyBlock(heading, 3 if section.label else 2))
            blocks.extend(CopyBlock(p) for p in _paragraphs(rest))
        position = section.end
    blocks.extend(CopyBlock(p) for p in _paragraphs(text[position:]))
    return blocks


def _paragraphs(text: str, pages_split: bool = False) -> list[str]:
    """Paragraphs between blank lines; a page break ends a paragraph only with ``pages_split``."""
    text = text.replace(ParsedDocument.PAGE_SEPARATOR, "\n\n" if pages_split else "\n")
    parts = (re.sub(r"[ \t]*\n[ \t]*", "\n", p).strip() for p in re.split(r"\n\s*\n", text))
    return [p for p in parts if p]


def _split_heading(body: str, label: str | None, heading: str) -> tuple[str, str]:
    """The heading as printed (its lines joined by a space) and the text after it. An annex's sub-heading
    ("Teil A: ...") carries the annex's label without printing it."""
    squeezed = _SPACES.sub("", body.replace(ParsedDocument.PAGE_SEPARATOR, "\n"))
    printed_label = label is not None and squeezed.startswith(_SPACES.sub("", label))
    wanted = len(_SPACES.sub("", f"{label if printed_label else ''}{heading}"))
    seen = 0
    position = 0
    for line in body.split("\n"):
        position += len(line) + 1
        seen += len(_SPACES.sub("", line))
        if seen >= wanted:
            break
    head = _SPACES.sub(" ", body[:position]).strip()
    return head, body[position:]


def write_copy(parsed: ParsedDocument, target: Path) -> Path:
    """``parsed`` written to ``target`` in the format of its suffix."""
    blocks = copy_blocks(parsed)
    suffix = target.suffix.lower()
    target.parent.mkdir(parents=True, exist_ok=True)
    if suffix == ".docx":
        _write_docx(parsed, blocks, target)
    elif suffix in (".html", ".htm"):
        target.write_text(_html(parsed, blocks), encoding="utf-8")
    elif suffix in (".md", ".markdown"):
        target.write_text(_markdown(blocks), encoding="utf-8")
    else:
        raise ValueError(f"no copy for {suffix} files")
    return target


def _write_docx(parsed: ParsedDocument, blocks: list[CopyBlock], target: Path) -> None:
    import docx

    document = docx.Document()
    document.core_properties.title = parsed.title
    document.core_properties.subject = parsed.abbreviation
    for block in blocks:
        if block.heading:
            document.add_heading(block.text, level=block.heading)
        else:
            document.add_paragraph(block.text)  # its line breaks become <w:br/>
    document.save(str(target))


def _html(parsed: ParsedDocument, blocks: list[CopyBlock]) -> str:
    body: list[str] = []
    for block in blocks:
        escaped = "<br>\n".join(html.escape(line) for line in block.text.split("\n"))
        tag = f"h{block.heading}" if block.heading else "p"
        body.append(f"<{tag}>{escaped}</{tag}>")
    title = html.escape(parsed.title + (f" ({parsed.abbreviation})" if parsed.abbreviation else ""))
    return (
        '<!DOCTYPE html>\n<html lang="de">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{title}</title>\n</head>\n"
        '<body>\n<nav><a href="/">Start</a> | <a href="/impressum">Impressum</a></nav>\n<main>\n'
        + "\n".join(body)
        + "\n</main>\n<footer>Stand: Sammlung</footer>\n</body>\n</html>\n"
    )


def _markdown(blocks: list[CopyBlock]) -> str:
    out: list[str] = []
    for block in blocks:
        if block.heading:  # a Markdown heading is one line: a heading printed over two is joined
            out.append(f"{'#' * block.heading} {_SPACES.sub(' ', block.text)}")
        else:
            # a body line Markdown would read as a heading ("## Tabelle" in a law's text) is escaped
            out.append(re.sub(r"(?m)^#", r"\\#", block.text))
    return "\n\n".join(out) + "\n"
