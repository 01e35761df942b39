"""How well a query matches a chunk's section heading (its title, e.g. "Grenzwerte für beruflich exponierte
Personen" of StrlSchG § 78), as a bonus in fusion: a question that restates a section's title should find
that section first, above sections that merely use the same words somewhere in their text.

The match is the share of the heading's words (BM25 tokens: stemmed, stopwords and § labels left out) that
the query contains: 1.0 when the query holds the whole title, 0.5 for half of it. Headings of one or two
words count only when complete, so a single common word ("Begriffsbestimmungen", "Anwendungsbereich") does
not lift every section it titles.
"""

from __future__ import annotations

import threading
from collections.abc import Collection

from rabbithole.retrieval.bm25_index import BM25Index
from rabbithole.retrieval.tokenizer import SECTION_MEMBER_PREFIX, tokenize_query

#: headings with fewer words than this count only when the query holds all of them
SHORT_HEADING = 3


def heading_words(heading: str, index: BM25Index) -> frozenset[str]:
    """The BM25 tokens of a heading, in the index's languages, without § citations."""
    return frozenset(
        t for t in tokenize_query(heading, index.languages) if t[0] != "§" and t[0] != SECTION_MEMBER_PREFIX
    )


def heading_match(words: frozenset[str], query_tokens: Collection[str]) -> float:
    """Share of the heading's words in the query, in [0, 1] (see the module docstring)."""
    if not words:
        return 0.0
    share = len(words.intersection(query_tokens)) / len(words)
    if len(words) < SHORT_HEADING and share < 1.0:
        return 0.0
    return share


class HeadingMatcher:
    """Heading words per heading of an index, computed on first use and cached (thread-safe)."""

    def __init__(self) -> None:
        self._cache: dict[tuple[str, tuple[str, ...]], frozenset[str]] = {}
        self._lock = threading.Lock()

    def match(self, index: BM25Index, row: int, query_tokens: Collection[str]) -> float:
        if row >= len(index.heading_codes):
            return 0.0
        heading = index.headings[int(index.heading_codes[row])]
        key = (heading, tuple(index.languages))
        with self._lock:
            words = self._cache.get(key)
        if words is None:
            words = heading_words(heading, index)
            with self._lock:
                if len(self._cache) > 200_000:
                    self._cache.clear()
                self._cache[key] = words
        return heading_match(words, query_tokens)
