"""Structure-aware chunking: passages that never straddle two sections (§), cut at paragraph, then sentence,
then line/word boundaries, with the configured size and overlap (characters).

Every chunk is a verbatim span of the document text: doc.text[chunk.start:chunk.end] == chunk.text.
A section longer than chunk_size is split; consecutive chunks of one section overlap by at most chunk_overlap
characters (starting at a word). A remainder shorter than a quarter of chunk_size is merged into the chunk
before it, so a chunk may reach 1.25 x chunk_size. Chunk ids are stable: sha1 of collection, document,
ordinal and a hash of the text.
"""

from __future__ import annotations

import bisect
import hashlib
import re
from collections.abc import Iterator
from dataclasses import dataclass

from rabbithole.core.config import IngestionSettings
from rabbithole.core.models import Chunk, ParsedDocument, SectionSpan
from rabbithole.core.text import trim_span

#: a remainder below chunk_size * TAIL_SHARE joins the previous chunk of the same section
TAIL_SHARE = 0.25
#: a break point is looked for in the last (1 - MIN_FILL) of the window; earlier breaks make chunks too small
MIN_FILL = 0.5

# A blank line; a page break ("\n\f") is only a line break: a PDF's pages often end mid-sentence. In a
# document whose pages end at paragraphs (ParsedDocument.page_breaks_end_paragraphs: DOCX, HTML, Markdown,
# text, cut into pages at blocks) the page break stands where a blank line stood, and is one.
_PARAGRAPH = re.compile(r"\n[ \t]*\n")
_PARAGRAPH_OR_PAGE = re.compile(r"\n[ \t]*\n|\n\f")
_LINE_BEFORE_ITEM = re.compile(r"\n(?=[ \t]*(?:\(\d+[a-z]?\)|\d{1,3}[a-z]?\.|[a-z]{1,3}\))\s)")
# Sentence end: . ! ? ; then whitespace, then an uppercase letter, a digit, "(" or an opening quote.
_SENTENCE = re.compile(r"(?<=[.!?;])([\"”“)]?)\s+(?=[A-ZÄÖÜ0-9(„\"])")
# Words that end with "." without ending a sentence ("Abs. 2", "Nr. 3", "z. B. die", "v. 15.7.1985").
_ABBREVIATIONS = frozenset(
    {
        *("abs", "art", "nr", "s", "satz", "bst", "buchst", "lit", "ziff", "vgl", "ggf", "bzw", "ca", "etc"),
        *("dr", "prof", "bgbl", "bek", "vo", "anl", "anh", "kap", "abschn", "tz", "rn", "rdnr", "ff", "f"),
        *("gem", "mwv", "zit", "insb", "evtl", "sog", "usw", "geb", "mio", "mrd", "inkl", "max", "min"),
        *("bzgl", "no", "nos", "fig", "eq", "vol", "pp", "al", "cf"),
    }
)
_WORD_BEFORE = re.compile(r"([\wÄÖÜäöüß.]+)[.!?;][\"”“)]?$")


@dataclass(frozen=True, slots=True)
class _Region:
    start: int
    end: int
    section: SectionSpan | None


def chunk_document(doc: ParsedDocument, collection: str, settings: IngestionSettings) -> list[Chunk]:
    """Chunks of `doc` in document order (ordinal 0, 1, ...); token_count is left 0."""
    text = doc.text
    size = settings.chunk_size
    overlap = min(settings.chunk_overlap, size // 2 - 1)
    page_starts = [p.offset for p in doc.pages]
    page_numbers = [p.number for p in doc.pages]

    def page_of(offset: int) -> int:
        if not page_numbers:
            return 1
        return page_numbers[max(0, bisect.bisect_right(page_starts, offset) - 1)]

    paragraphs = _PARAGRAPH_OR_PAGE if doc.page_breaks_end_paragraphs else _PARAGRAPH
    chunks: list[Chunk] = []
    for region in _regions(text, doc.sections):
        for start, end in split_span(text, region.start, region.end, size, overlap, paragraphs):
            piece = text[start:end]
            ordinal = len(chunks)
            span = region.section
            chunks.append(
                Chunk(
                    id=chunk_id(collection, doc.file_name, ordinal, piece),
                    collection=collection,
                    document=doc.file_name,
                    ordinal=ordinal,
                    text=piece,
                    start=start,
                    end=end,
                    page=page_of(start),
                    page_end=page_of(end - 1),
                    section=span.label if span else None,
                    heading=span.heading if span else "",
                    section_path=span.path if span else (),
                )
            )
    return chunks


def chunk_id(collection: str, document: str, ordinal: int, text: str) -> str:
    content = hashlib.sha1(text.encode("utf-8")).hexdigest()[:16]
    key = f"{collection}\x1f{document}\x1f{ordinal}\x1f{content}"
    return hashlib.sha1(key.encode("utf-8")).hexdigest()


def _regions(text: str, sections: list[SectionSpan]) -> Iterator[_Region]:
    """The sections in order; without sections, the whole text (split at paragraphs)."""
    if not sections:
        yield _Region(0, len(text), None)
        return
    last = 0
    for span in sorted(sections, key=lambda s: s.start):
        start = max(span.start, last)  # defensive: overlapping spans would duplicate text
        end = min(span.end, len(text))
        if end > start:
            yield _Region(start, end, span)
            last = end


def split_span(
    text: str, start: int, end: int, size: int, overlap: int, paragraphs: re.Pattern[str] = _PARAGRAPH
) -> list[tuple[int, int]]:
    """[start, end) cut into pieces of at most `size` characters (1 + TAIL_SHARE times for a merged tail),
    each trimmed of surrounding whitespace, consecutive pieces overlapping by at most `overlap`;
    ``paragraphs``: what a paragraph break is (a blank line; or a page break too)."""
    start, end = trim_span(text, start, end)
    if end <= start:
        return []
    pieces: list[tuple[int, int]] = []
    min_tail = int(size * TAIL_SHARE)
    pos = start
    while True:
        if end - pos <= size:
            pieces.append((pos, end))
            break
        cut = _best_break(text, pos, pos + size, paragraphs)
        if end - cut < min_tail and end - pos <= size + min_tail:
            pieces.append((pos, end))  # a tiny tail: keep it with this piece
            break
        piece = trim_span(text, pos, cut)
        pieces.append(piece)
        nxt = _overlap_start(text, piece[1], overlap) if overlap else cut
        nxt = trim_span(text, nxt, end)[0]
        if nxt <= pos:  # no progress possible with this overlap: continue without it
            nxt = trim_span(text, cut, end)[0]
        pos = nxt
        if pos >= end:
            break
    return pieces


def _best_break(text: str, pos: int, limit: int, paragraphs: re.Pattern[str] = _PARAGRAPH) -> int:
    """Where to end a piece that starts at `pos` and may not extend past `limit`: the last paragraph break
    in the second half of the window, else the last sentence end, else the last line break, else the last
    space. Never inside a word (a word longer than the window is kept whole)."""
    low = pos + int((limit - pos) * MIN_FILL)
    window = text[low:limit]
    # +1: the boundary lies after the first whitespace character, so `limit` itself may be a boundary
    extended = text[low : limit + 1]

    best = -1
    for match in paragraphs.finditer(extended):
        if match.start() <= len(window):
            best = match.start()
    if best < 0:
        for match in _LINE_BEFORE_ITEM.finditer(extended):
            if match.start() <= len(window):
                best = match.start()
    if best < 0:
        for match in _SENTENCE.finditer(extended):
            boundary = match.start() + len(match.group(1))
            if boundary <= len(window) and _is_sentence_end(text, low + match.start()):
                best = boundary
    if best < 0:
        best = window.rfind("\n")
    if best < 0 and limit < len(text) and text[limit].isspace():
        best = len(window)
    if best < 0:
        best = max(window.rfind(" "), window.rfind("\t"), window.rfind("\xa0"))
    if best >= 0:
        return low + best
    # No whitespace in the second half of the window: the last one before it, else the end of the word.
    for index in range(low - 1, pos, -1):
        if text[index].isspace():
            return index
    index = limit
    while index < len(text) and not text[index].isspace():
        index += 1
    return index


def _is_sentence_end(text: str, at: int) -> bool:
    """`at` is just after a sentence-ending mark; reject abbreviations, initials and ordinal numbers."""
    head = text[max(0, at - 40) : at]
    match = _WORD_BEFORE.search(head)
    if match is None:
        return True
    word = match.group(1)
    mark = head[match.end(1)]
    if mark != ".":
        return True
    lowered = word.rstrip(".").lower()
    if lowered in _ABBREVIATIONS or "." in lowered:
        return False
    if lowered.isdigit():  # "1. Januar", "Nr. 3. Die" is rare; an ordinal is the likelier reading
        return False
    return not (len(lowered) == 1 and lowered.isalpha())


def _overlap_start(text: str, piece_end: int, overlap: int) -> int:
    """The first word start at or after piece_end - overlap."""
    index = max(0, piece_end - overlap)
    if index > 0 and not text[index - 1].isspace():
        while index < piece_end and not text[index].isspace():
            index += 1
    return index
