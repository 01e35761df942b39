"""English -> German term mapping for the BM25 side of cross-lingual search.

BM25 cannot match an English question against German text. :class:`Glossary` finds the English phrases of a
question that it knows (longest match first, on case-folded, Snowball-stemmed words, so "limits" matches
"limit") and returns their German terms; the searcher runs BM25 with those terms instead of the English words.
The default glossary (``glossary_en_de.txt`` beside this module) covers the vocabulary of radiation
protection, nuclear law and general legal/administrative language; ``retrieval.glossary_path`` adds
entries (or German terms to known phrases) from a file of the same format
(``english phrase | German term; German term``). The same translation also moves the question's vector:
:func:`cross_lingual_text` is embedded beside the question and the two unit vectors are summed
(``retrieval.glossary_vector_weight``), so vector search sees the German legal terms too.

Nothing is loaded at import time: the default glossary is read on first use and cached.
"""

from __future__ import annotations

import functools
import re
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rabbithole.retrieval.tokenizer import query_language

if TYPE_CHECKING:
    from rabbithole.core.config import RetrievalSettings

DEFAULT_GLOSSARY = Path(__file__).with_name("glossary_en_de.txt")

_WORD = re.compile(r"[^\W_]+(?:[-'][^\W_]+)*")
#: function words that never start a phrase match (they may sit inside one: "state of the art")
_SKIP = frozenset(
    {
        "a",
        "an",
        "the",
        "of",
        "to",
        "in",
        "on",
        "for",
        "and",
        "or",
        "with",
        "by",
        "at",
        "from",
        "is",
        "are",
        "be",
        "been",
        "was",
        "were",
        "do",
        "does",
        "did",
        "what",
        "which",
        "who",
        "whom",
        "how",
        "when",
        "where",
        "why",
        "this",
        "that",
        "these",
        "those",
        "it",
        "its",
        "their",
        "there",
        "any",
        "some",
        "into",
        "under",
        "over",
        "as",
    }
)


class GlossaryError(ValueError):
    """A glossary file that cannot be read or parsed."""


@dataclass(frozen=True, slots=True)
class TermMatch:
    english: str  # the phrase as written in the glossary
    german: tuple[str, ...]
    start: int  # word positions in the query, [start, end)
    end: int


class _EnglishStemmer:
    """Snowball English stems, cached (PyStemmer is created on first use)."""

    def __init__(self) -> None:
        self._stemmer: Any = None
        self._lock = threading.Lock()

    def stems(self, words: Sequence[str]) -> list[str]:
        with self._lock:
            if self._stemmer is None:
                import Stemmer

                self._stemmer = Stemmer.Stemmer("english")
            result: list[str] = self._stemmer.stemWords(list(words))
        return result


_STEMMER = _EnglishStemmer()


def english_words(text: str) -> list[str]:
    """Case-folded words of English text, hyphenated words split ("high-level" -> "high", "level")."""
    return [part for word in _WORD.findall(text.casefold()) for part in re.split(r"[-']", word) if part]


def _key(words: Sequence[str]) -> tuple[str, ...]:
    return tuple(_STEMMER.stems(words))


class Glossary:
    """English phrase (stemmed words) -> German terms; see the module docstring."""

    def __init__(self, entries: Iterable[tuple[str, Sequence[str]]]) -> None:
        self._entries: dict[tuple[str, ...], tuple[str, tuple[str, ...]]] = {}
        for english, german in entries:
            key = _key(english_words(english))
            terms = tuple(t.strip() for t in german if t.strip())
            if key and terms:
                # phrases that stem alike ("annual", "annually") share their German terms
                known = self._entries.get(key)
                if known is not None:
                    terms = tuple(dict.fromkeys(known[1] + terms))
                self._entries[key] = (english.strip() if known is None else known[0], terms)
        self.max_words = max((len(k) for k in self._entries), default=0)

    def __len__(self) -> int:
        return len(self._entries)

    @classmethod
    def parse(cls, text: str, source: str = "<text>") -> Glossary:
        return cls(parse_entries(text, source))

    @classmethod
    def load(cls, *paths: Path) -> Glossary:
        """Entries of every file in turn (a phrase in several files gets the German terms of all)."""
        entries: list[tuple[str, Sequence[str]]] = []
        for path in paths:
            try:
                text = path.read_text(encoding="utf-8")
            except OSError as exc:
                raise GlossaryError(f"cannot read the glossary {path}: {exc}") from exc
            entries.extend(parse_entries(text, str(path)))
        return cls(entries)

    def matches(self, text: str) -> list[TermMatch]:
        """The known phrases of ``text``, longest first at each position, not overlapping, in text order."""
        words = english_words(text)
        if not words or not self._entries:
            return []
        stems = _key(words)
        found: list[TermMatch] = []
        position = 0
        while position < len(words):
            hit = None
            if words[position] not in _SKIP:
                for length in range(min(self.max_words, len(words) - position), 0, -1):
                    entry = self._entries.get(stems[position : position + length])
                    if entry is not None:
                        hit = TermMatch(entry[0], entry[1], position, position + length)
                        break
            if hit is None:
                position += 1
            else:
                found.append(hit)
                position = hit.end
        return found

    def translate(self, text: str) -> str:
        """The German terms of the known phrases of ``text``, joined by spaces ("" when none is known)."""
        return " ".join(term for match in self.matches(text) for term in match.german)


_NAME = re.compile(r"§+\s*\d+\s*[a-z]?\b|\d+(?:[.,]\d+)*|[^\W\d_]*[A-ZÄÖÜ][^\W_]*")


def untranslated_terms(text: str) -> list[str]:
    """What a translated BM25 query keeps of the English text: § citations, numbers, and capitalised words
    other than the first (names: "Gorleben", abbreviations: "AtG", "StrlSchG")."""
    text = text.strip()
    return [
        match.group(0)
        for match in _NAME.finditer(text)
        if not (match.group(0)[0].isalpha() and (match.start() == 0 or match.group(0).casefold() in _SKIP))
    ]


def parse_entries(text: str, source: str = "<text>") -> list[tuple[str, tuple[str, ...]]]:
    entries: list[tuple[str, tuple[str, ...]]] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        english, bar, german = line.partition("|")
        terms = tuple(t.strip() for t in german.split(";") if t.strip())
        if not bar or not english.strip() or not terms:
            expected = "expected 'english phrase | German term; ...'"
            raise GlossaryError(f"{source}:{number}: {expected}, got {line!r}")
        entries.append((english.strip(), terms))
    return entries


@functools.lru_cache(maxsize=8)
def load_glossary(extra: Path | None = None) -> Glossary:
    """The default glossary, plus the entries of ``extra`` (cached per path)."""
    return Glossary.load(DEFAULT_GLOSSARY, *([extra] if extra is not None else []))


def cross_lingual_text(query: str, index_languages: Sequence[str], settings: RetrievalSettings) -> str | None:
    """The German terms of an English question's known phrases, to embed beside the question for a
    collection with German and no English documents (None when the glossary or its vector weight is off,
    the question is not clearly English, or the glossary knows none of its phrases)."""
    if not settings.glossary or settings.glossary_vector_weight <= 0:
        return None
    if "en" in index_languages or "de" not in index_languages or query_language(query) != "en":
        return None
    return load_glossary(settings.glossary_path).translate(query) or None


def cross_lingual_query(
    query: str, language: str, index_languages: Sequence[str], settings: RetrievalSettings
) -> list[tuple[str, ...]] | None:
    """The BM25 query for a collection whose documents are not in the query's language, as groups of
    alternatives: per English phrase the glossary knows, its German terms; then the query's citations,
    numbers and names, one group each (None when the glossary is off, does not apply, or knows no phrase of
    the query)."""
    if not settings.glossary or language != "en" or "de" not in index_languages:
        return None
    matches = load_glossary(settings.glossary_path).matches(query)
    if not matches:
        return None
    return [match.german for match in matches] + [(term,) for term in untranslated_terms(query)]
