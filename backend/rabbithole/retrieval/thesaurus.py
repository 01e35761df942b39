"""Everyday German -> legal terms for the BM25 side of search (``retrieval.thesaurus``).

BM25 cannot match "Atommüll" against "radioaktive Abfälle" or "Bedenken" against "Einwendungen". A German (or
language-neutral) question is searched in BM25 by its own words plus the legal terms of the everyday phrases
:class:`Thesaurus` finds in it (longest match first, on German Snowball stems, stopwords left out). The
built-in list is ``thesaurus_de.txt`` beside this module (format ``everyday phrase | legal term; ...``; see
its header for how it was written). Nothing is loaded at import time: the list is read on first use.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from rabbithole.retrieval.glossary import parse_entries
from rabbithole.retrieval.tokenizer import raw_tokens, stem_tokens

if TYPE_CHECKING:
    from rabbithole.core.config import RetrievalSettings

DEFAULT_THESAURUS = Path(__file__).with_name("thesaurus_de.txt")


def _stems(text: str) -> tuple[str, ...]:
    return tuple(t for t in stem_tokens(raw_tokens(text), "de") if t[0] != "§" and not t[0].isdigit())


class Thesaurus:
    """Everyday phrase (German stems) -> legal terms."""

    def __init__(self, entries: Iterable[tuple[str, Sequence[str]]]) -> None:
        self._entries: dict[tuple[str, ...], tuple[str, ...]] = {}
        for phrase, terms in entries:
            key = _stems(phrase)
            if key:
                known = self._entries.get(key, ())
                self._entries[key] = tuple(dict.fromkeys((*known, *terms)))
        self.max_words = max((len(k) for k in self._entries), default=0)

    def __len__(self) -> int:
        return len(self._entries)

    @classmethod
    def parse(cls, text: str, source: str = "<text>") -> Thesaurus:
        return cls(parse_entries(text, source))

    def terms(self, text: str) -> list[str]:
        """The legal terms of the everyday phrases of ``text``, in text order, without repeats."""
        stems = _stems(text)
        found: list[str] = []
        position = 0
        while position < len(stems):
            for length in range(min(self.max_words, len(stems) - position), 0, -1):
                terms = self._entries.get(stems[position : position + length])
                if terms is not None:
                    found.extend(terms)
                    position += length
                    break
            else:
                position += 1
        return list(dict.fromkeys(found))


@functools.lru_cache(maxsize=1)
def load_thesaurus() -> Thesaurus:
    return Thesaurus.parse(DEFAULT_THESAURUS.read_text(encoding="utf-8"), str(DEFAULT_THESAURUS))


def expanded_query(
    query: str, language: str | None, index_languages: Sequence[str], settings: RetrievalSettings
) -> str | None:
    """The BM25 query with the legal terms of the query's everyday phrases added, for a German or
    language-neutral query over a collection with German documents (None when nothing is added)."""
    if not settings.thesaurus or language == "en" or "de" not in index_languages:
        return None
    terms = load_thesaurus().terms(query)
    return f"{query} {' '.join(terms)}" if terms else None
