"""Quotes cut from the stored page text, and checks of the free-text quotes a model may still type.

``quote_from_run`` maps a run of chosen sentences (document-text offsets) onto the page that holds its start
and slices the page text: the quote is verbatim by construction and carries its range for highlighting.
``verify_quote`` finds a model's free-text quote in a page after normalising both sides the same way
(``normalize_with_map``: NFKC incl. ligatures, soft hyphens and zero-width characters removed, hyphenation
at line ends undone, typographic quotes and dashes folded, whitespace runs collapsed; case kept) and maps
the match back to offsets in the original page text, so an accepted quote is again a verbatim slice.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from rabbithole.core.models import PageText
from rabbithole.research.evidence.numbering import NumberedSentence

__all__ = ["PageQuote", "normalize_with_map", "quote_from_run", "quotes_from_run", "verify_quote"]


@dataclass(frozen=True, slots=True)
class PageQuote:
    """A verbatim quote: ``text == page_text[start:end]`` on page ``page`` (1-based)."""

    page: int
    start: int
    end: int
    text: str


def quote_from_run(run: Sequence[NumberedSentence], pages: Sequence[PageText]) -> PageQuote:
    """The quote spanning ``run`` (first start to last end), on the page holding its start.

    A span that runs past the end of that page is cut there (trailing whitespace trimmed). Raises
    ``ValueError`` for an empty run or a start that lies on no page.
    """
    if not run:
        raise ValueError("an empty run has no quote")
    start = min(s.start for s in run)
    end = max(s.end for s in run)
    page = _page_holding(start, pages)
    local_start = start - page.offset
    local_end = min(end - page.offset, len(page.text))
    while local_end > local_start and page.text[local_end - 1].isspace():
        local_end -= 1
    if local_end <= local_start:
        raise ValueError(f"the run at offset {start} holds no text on page {page.number}")
    return PageQuote(page.number, local_start, local_end, page.text[local_start:local_end])


def quotes_from_run(run: Sequence[NumberedSentence], pages: Sequence[PageText]) -> list[PageQuote]:
    """Like ``quote_from_run``, but a run whose sentences lie on several pages gives one quote per page
    (in page order) instead of being cut at the end of its first page."""
    by_page: dict[int, list[NumberedSentence]] = {}
    for sentence in sorted(run, key=lambda s: s.start):
        by_page.setdefault(_page_holding(sentence.start, pages).number, []).append(sentence)
    return [quote_from_run(part, pages) for part in by_page.values()]


def _page_holding(offset: int, pages: Sequence[PageText]) -> PageText:
    for page in pages:
        if page.offset <= offset < page.offset + len(page.text):
            return page
    raise ValueError(f"document offset {offset} lies on no page")


_QUOTES = {
    **dict.fromkeys("„“”‟«»″〝〞＂", '"'),
    **dict.fromkeys("‚‘’‛‹›′´`", "'"),
}
_DASHES = frozenset("‐‑‒–—―−﹘﹣－")
_HYPHENS = frozenset("-‐‑")
_SOFT_HYPHEN = "\u00ad"
_INVISIBLE = frozenset("\u200b\u200c\u200d\u2060\ufeff")
# A line-end hyphen before these words is a real one ("Ein-\nund Ausfuhr"), kept as "- ".
_KEEP_HYPHEN_BEFORE = frozenset({"und", "oder", "bzw", "sowie", "and", "or"})


def normalize_with_map(text: str) -> tuple[str, list[tuple[int, int]]]:
    """``text`` normalised for matching, and for each of its characters the ``[start, end)`` in ``text``
    it came from. Leading and trailing whitespace is dropped."""
    chars: list[str] = []
    spans: list[tuple[int, int]] = []
    i, n = 0, len(text)
    while i < n:
        char = text[i]
        if char == _SOFT_HYPHEN or char in _INVISIBLE:
            if char == _SOFT_HYPHEN and _line_break_after(text, i + 1):
                i = _skip_space(text, i + 1)  # "Strahlen\u00ad\nschutz": a word broken at a soft hyphen
            else:
                i += 1
            continue
        if char in _HYPHENS and i > 0 and text[i - 1].isalpha() and _line_break_after(text, i + 1):
            resume = _skip_space(text, i + 1)
            following = _word_at(text, resume)
            if following and following.lower() not in _KEEP_HYPHEN_BEFORE:
                if following[0].isupper():
                    chars.append("-")  # "Röntgen-\nEinrichtung": a real hyphen, the break removed
                    spans.append((i, i + 1))
                i = resume  # "Strahlen-\nschutz" = "Strahlenschutz"
                continue
        if char.isspace():
            end = _skip_space(text, i)
            if chars and chars[-1] != " ":
                chars.append(" ")
                spans.append((i, end))
            i = end
            continue
        end = i + 1
        while end < n and unicodedata.combining(text[end]):
            end += 1
        for out in _fold(unicodedata.normalize("NFKC", text[i:end])):
            if out.isspace():
                if chars and chars[-1] != " ":
                    chars.append(" ")
                    spans.append((i, end))
                continue
            chars.append(out)
            spans.append((i, end))
        i = end
    if chars and chars[-1] == " ":
        chars.pop()
        spans.pop()
    return "".join(chars), spans


def _fold(text: str) -> str:
    return "".join("-" if c in _DASHES else _QUOTES.get(c, c) for c in text)


def _skip_space(text: str, i: int) -> int:
    while i < len(text) and (text[i].isspace() or text[i] in _INVISIBLE):
        i += 1
    return i


def _line_break_after(text: str, i: int) -> bool:
    """Whether only spaces lie between ``i`` and a line break (or page break) at or after it."""
    while i < len(text) and text[i] in " \t":
        i += 1
    return i < len(text) and text[i] in "\n\r\f\v\u2028\u2029"


def _word_at(text: str, i: int) -> str:
    end = i
    while end < len(text) and text[end].isalpha():
        end += 1
    return text[i:end]


def verify_quote(quote: str, page_text: str) -> tuple[int, int] | None:
    """Offsets ``(start, end)`` in ``page_text`` of the first match of ``quote`` after normalising both, or
    None when it does not occur (or normalises to nothing). A quote ending in a word's hyphen (cut at a
    line-end hyphenation) matches without that hyphen."""
    needle, _ = normalize_with_map(quote)
    if not needle:
        return None
    haystack, spans = normalize_with_map(page_text)
    at = haystack.find(needle)
    if at < 0 and len(needle) > 1 and needle[-1] == "-" and needle[-2].isalpha():
        needle = needle[:-1]  # a quote cut at a line-end hyphen: "... im Strahlen-"
        at = haystack.find(needle)
    if at < 0:
        return None
    return spans[at][0], spans[at + len(needle) - 1][1]


def shown_quote(fact: str, quote: str) -> str | None:
    """The quote a prompt shows beside ``fact``, or None where the fact already holds it word for word (a
    model that states a fact by copying its sentence: showing it twice costs tokens only)."""
    flat_quote = " ".join(quote.split()).casefold()
    if flat_quote and flat_quote in " ".join(fact.split()).casefold():
        return None
    return quote
