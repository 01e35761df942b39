"""A small Markdown reader for exports: the report Markdown Rabbithole writes (headings, paragraphs, bullet
and numbered lists, block quotes, **bold** and *italic*) as blocks a document writer lays out. Anything
else stays text, so no word of the report is lost."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

BlockKind = Literal["heading", "paragraph", "bullet", "number", "quote"]

_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_BULLET = re.compile(r"^\s*[-*+]\s+(.*)$")
_NUMBER = re.compile(r"^\s*\d{1,3}[.)]\s+(.*)$")
_QUOTE = re.compile(r"^\s*>\s?(.*)$")
_INLINE = re.compile(r"\*\*(.+?)\*\*|__(.+?)__|(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])|`([^`]+)`")


@dataclass(frozen=True, slots=True)
class Span:
    """A piece of inline text and its emphasis."""

    text: str
    bold: bool = False
    italic: bool = False


@dataclass(slots=True)
class Block:
    kind: BlockKind
    text: str
    level: int = 0  # headings: 1-6
    spans: list[Span] = field(default_factory=list)


def parse_blocks(markdown: str) -> list[Block]:
    """The blocks of ``markdown`` in order; consecutive plain lines join into one paragraph."""
    blocks: list[Block] = []
    paragraph: list[str] = []

    def flush() -> None:
        if paragraph:
            blocks.append(_block("paragraph", " ".join(paragraph)))
            paragraph.clear()

    for raw in markdown.splitlines():
        line = raw.strip()
        if not line:
            flush()
            continue
        heading = _HEADING.match(line)
        if heading:
            flush()
            blocks.append(_block("heading", heading.group(2), level=len(heading.group(1))))
            continue
        for kind, pattern in (("bullet", _BULLET), ("number", _NUMBER), ("quote", _QUOTE)):
            match = pattern.match(raw)
            if match:
                flush()
                blocks.append(_block(kind, match.group(1).strip()))  # type: ignore[arg-type]
                break
        else:
            paragraph.append(line)
    flush()
    return [b for b in blocks if b.text]


def _block(kind: BlockKind, text: str, *, level: int = 0) -> Block:
    return Block(kind, text, level, inline_spans(text))


def inline_spans(text: str) -> list[Span]:
    """``text`` split into plain, bold and italic spans (the markers removed; code kept as text)."""
    spans: list[Span] = []
    at = 0
    for match in _INLINE.finditer(text):
        if match.start() > at:
            spans.append(Span(text[at : match.start()]))
        bold, bold_alt, italic, code = match.groups()
        if bold is not None or bold_alt is not None:
            spans.append(Span(bold if bold is not None else bold_alt, bold=True))
        elif italic is not None:
            spans.append(Span(italic, italic=True))
        else:
            spans.append(Span(code))
        at = match.end()
    if at < len(text):
        spans.append(Span(text[at:]))
    return spans
