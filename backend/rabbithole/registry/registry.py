"""The document registry of a collection: every document with the names other documents use for it.

Built at ingestion by :func:`build_registry` from what the documents say about themselves (file name,
title, stated abbreviation), short names mined from the whole collection (:mod:`.mining`: "Atomgesetz" for
AtG, which only the *other* laws use) and the user's ``registry.yaml`` (:mod:`.user_file`). Each synonym
carries its kind (title, abbreviation, short_name, case_form, file, user) and source (auto, user).

:meth:`DocumentRegistry.resolve` maps a name as a reference writes it to a document, in three stages:

1. **exact**: the normalized key (case, whitespace, hyphens, leading articles/prepositions and umlaut
   spelling ignored) equals a synonym's key; "nach dem Atomgesetz", "des Atomgesetzes", "AtG", "StrlSchV
   2018", "AtZueV". Abbreviations and file names match *only* here.
2. **fuzzy**: a typo in a long name ("Strahlenschutzverordnug"): Levenshtein distance of the keys at most 1
   below 30 characters, 2 below 60, else 3; only for queries of at least 12 characters that are not
   abbreviation-like, against titles, short names and their case forms; numbers must agree.
3. **substring** (word-bounded prefix): a truncated title ("Gesetz über die friedliche Verwendung der
   Kernenergie") with at least two content words, or a name followed by a qualifier ("Atomgesetz in der
   Fassung der Bekanntmachung vom ...").

A stage that finds several documents equally good answers None (ambiguous) rather than guess;
:meth:`DocumentRegistry.candidates` shows them. Short reference tokens ("Abs", "Nr", "EU", "G", "V",
"Satz") are never indexed and never reach the fuzzy or substring stages.

Serialization: :meth:`DocumentRegistry.to_dict` / :meth:`DocumentRegistry.from_dict` (JSON-able; the
lookup index is rebuilt on load).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from rapidfuzz import process
from rapidfuzz.distance import Levenshtein

from rabbithole.core.errors import RabbitholeError
from rabbithole.core.models import ParsedDocument
from rabbithole.registry.synonyms import (
    clean_name,
    normalize_key,
    normalize_words,
)

log = logging.getLogger(__name__)

FORMAT_VERSION = 1
#: Fuzzy matching only for query keys at least this long.
FUZZY_MIN_LENGTH = 12
#: Substring matching only for queries of at least this many characters and content words.
SUBSTRING_MIN_LENGTH = 16
SUBSTRING_MIN_CONTENT_WORDS = 2

#: Keys that are never indexed from automatic synonyms: reference vocabulary, not document names.
STOP_KEYS = frozenset(
    {
        "abs", "absatz", "nr", "nummer", "satz", "s", "art", "artikel", "buchst", "buchstabe", "lit", "ziff",
        "anl", "anlage", "anh", "anhang", "eu", "eg", "ewg", "euratom", "bgbl", "g", "v", "vo", "gesetz",
        "gesetzes", "verordnung", "abschnitt", "teil", "kapitel", "pdf", "nf", "af", "idf", "vgl", "ff", "f",
    }
)  # fmt: skip

_FUNCTION_WORDS = frozenset(
    {"der", "die", "das", "des", "dem", "den", "und", "oder", "uber", "fur", "zum", "zur", "vom", "von",
     "mit",
     "nach", "bei", "im", "in", "an", "auf", "aus", "zu", "vor", "gegen", "ihre", "ihrer", "eines", "einer",
     "ein", "eine", "sowie", "the", "of", "and", "for", "on", "to"}
)  # fmt: skip
_HEAD_WORDS = frozenset(
    {
        "gesetz",
        "gesetzes",
        "verordnung",
        "ordnung",
        "richtlinie",
        "bekanntmachung",
        "abkommen",
        "ubereinkommen",
    }
)
#: Words that may follow a full name in a reference without being part of it.
_QUALIFIERS = frozenset(
    {
        "in",
        "vom",
        "v",
        "idf",
        "zuletzt",
        "geandert",
        "bgbl",
        "i",
        "nf",
        "neugefasst",
        "ausfertigungsdatum",
        "gultig",
    }
)
ABBREVIATION_LIKE = re.compile(r"^[A-ZÄÖÜ][A-Za-zÄÖÜäöüß\-]{1,20}$")
_CAMEL_RE = re.compile(r"[a-zäöüß][A-ZÄÖÜ]|[A-ZÄÖÜ]{2}|\d")
_DIGITS_RE = re.compile(r"\d+")


class RegistryDataError(RabbitholeError):
    """A stored registry cannot be read back (corrupt or of an unknown format)."""

    exit_code = 65


class SynonymKind(StrEnum):
    TITLE = "title"
    ABBREVIATION = "abbreviation"
    SHORT_NAME = "short_name"
    CASE_FORM = "case_form"
    FILE = "file"
    USER = "user"


class SynonymSource(StrEnum):
    AUTO = "auto"
    USER = "user"


class MatchKind(StrEnum):
    EXACT = "exact"
    FUZZY = "fuzzy"
    SUBSTRING = "substring"


#: Which synonym wins when one key belongs to several synonyms (lower first).
KIND_RANK: dict[SynonymKind, int] = {
    SynonymKind.USER: 0,
    SynonymKind.ABBREVIATION: 1,
    SynonymKind.TITLE: 2,
    SynonymKind.SHORT_NAME: 3,
    SynonymKind.CASE_FORM: 4,
    SynonymKind.FILE: 5,
}
_FUZZY_KINDS = frozenset({SynonymKind.TITLE, SynonymKind.SHORT_NAME, SynonymKind.CASE_FORM, SynonymKind.USER})


@dataclass(frozen=True, slots=True)
class Synonym:
    text: str
    kind: SynonymKind
    source: SynonymSource = SynonymSource.AUTO
    base: str | None = None  # the name a case form was derived from ("Atomgesetz" for "des Atomgesetzes")
    confidence: float = 1.0  # how sure the registry is that this name means the document

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"text": self.text, "kind": self.kind.value}
        if self.source is not SynonymSource.AUTO:
            data["source"] = self.source.value
        if self.base is not None:
            data["base"] = self.base
        if self.confidence != 1.0:
            data["confidence"] = self.confidence
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Synonym:
        try:
            return cls(
                text=str(data["text"]),
                kind=SynonymKind(data["kind"]),
                source=SynonymSource(data.get("source", "auto")),
                base=None if data.get("base") is None else str(data["base"]),
                confidence=float(data.get("confidence", 1.0)),
            )
        except (KeyError, ValueError, TypeError) as exc:
            raise RegistryDataError(f"invalid synonym {dict(data)!r}: {exc}") from exc


@dataclass(frozen=True, slots=True)
class DocumentInfo:
    """What ingestion knows about a document: its file name and what it says about itself."""

    file_name: str
    title: str = ""
    abbreviation: str = ""  # as stated in the document, e.g. "AtG", "StrlSchV 2018"

    @classmethod
    def from_parsed(cls, document: ParsedDocument) -> DocumentInfo:
        return cls(document.file_name, document.title, document.abbreviation)


@dataclass(slots=True)
class DocumentEntry:
    file_name: str
    title: str = ""
    abbreviation: str = ""
    synonyms: list[Synonym] = field(default_factory=list)
    title_source: SynonymSource = SynonymSource.AUTO
    abbreviation_source: SynonymSource = SynonymSource.AUTO

    @property
    def short_names(self) -> list[str]:
        """Mined and user-given names (base forms), e.g. ["Atomgesetz"]."""
        kinds = (SynonymKind.SHORT_NAME, SynonymKind.USER)
        return [s.text for s in self.synonyms if s.kind in kinds]

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "file_name": self.file_name,
            "title": self.title,
            "abbreviation": self.abbreviation,
        }
        if self.title_source is not SynonymSource.AUTO:
            data["title_source"] = self.title_source.value
        if self.abbreviation_source is not SynonymSource.AUTO:
            data["abbreviation_source"] = self.abbreviation_source.value
        data["synonyms"] = [s.to_dict() for s in self.synonyms]
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> DocumentEntry:
        try:
            synonyms = data.get("synonyms", [])
            if not isinstance(synonyms, list):
                raise TypeError("'synonyms' must be a list")
            return cls(
                file_name=str(data["file_name"]),
                title=str(data.get("title", "")),
                abbreviation=str(data.get("abbreviation", "")),
                synonyms=[Synonym.from_dict(s) for s in synonyms],
                title_source=SynonymSource(data.get("title_source", "auto")),
                abbreviation_source=SynonymSource(data.get("abbreviation_source", "auto")),
            )
        except (KeyError, ValueError, TypeError, AttributeError) as exc:
            raise RegistryDataError(f"invalid registry document entry: {exc}") from exc


@dataclass(frozen=True, slots=True)
class Resolution:
    """The document a name refers to, how it was found and how sure that is."""

    document: str  # file name, e.g. "AtG.pdf"
    synonym: str  # the synonym that matched, e.g. "des Atomgesetzes"
    kind: SynonymKind
    match: MatchKind
    confidence: float  # 0..1
    source: SynonymSource = SynonymSource.AUTO


@dataclass(frozen=True, slots=True)
class _Entry:
    document: str
    synonym: Synonym


class DocumentRegistry:
    """Documents of one collection with their synonyms, and the lookup from a name to a document."""

    def __init__(
        self,
        collection: str,
        documents: Iterable[DocumentEntry],
        *,
        warnings: Iterable[str] = (),
        ambiguous: Mapping[str, Sequence[str]] | None = None,
    ) -> None:
        self.collection = collection
        self.documents: dict[str, DocumentEntry] = {d.file_name: d for d in documents}
        self.warnings: list[str] = list(warnings)
        #: mined names that fit several documents equally well and were left out
        self.ambiguous: dict[str, list[str]] = {k: list(v) for k, v in (ambiguous or {}).items()}
        self._build_index()

    # -- queries ---------------------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self.documents)

    def __contains__(self, file_name: object) -> bool:
        return file_name in self.documents

    def __iter__(self) -> Iterator[DocumentEntry]:
        return iter(self.documents.values())

    @property
    def entries(self) -> list[DocumentEntry]:
        """The documents' entries in collection order."""
        return list(self.documents.values())

    @property
    def problems(self) -> list[str]:
        """Problems met while building ("<file>:<line>: warning: ..."); the same list as ``warnings``."""
        return self.warnings

    def document(self, file_name: str) -> DocumentEntry | None:
        return self.documents.get(file_name)

    def resolve(self, name: str) -> Resolution | None:
        """The document a name refers to, or None (unknown, too vague or ambiguous)."""
        found = self.candidates(name)
        return found[0] if len(found) == 1 else None

    def candidates(self, name: str) -> list[Resolution]:
        """Best match per document of the first stage (exact, fuzzy, substring) that finds any.

        More than one entry means the name is ambiguous in this collection; :meth:`resolve` then says None.
        """
        key = normalize_key(name)
        if not key:
            return []
        exact = self._exact(key, name)
        if exact:
            return exact
        if key in STOP_KEYS:
            return []
        if len(key) >= FUZZY_MIN_LENGTH and not _looks_like_abbreviation(name):
            fuzzy = self._fuzzy(key)
            if fuzzy:
                return fuzzy
        return self._substring(normalize_words(name))

    # -- serialization ---------------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "version": FORMAT_VERSION,
            "collection": self.collection,
            "documents": [d.to_dict() for d in self.documents.values()],
        }
        if self.warnings:
            data["warnings"] = list(self.warnings)
        if self.ambiguous:
            data["ambiguous"] = {k: list(v) for k, v in self.ambiguous.items()}
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> DocumentRegistry:
        """Inverse of :meth:`to_dict`; unknown keys are ignored; ``{}`` (never built): an empty registry."""
        if not isinstance(data, Mapping):
            raise RegistryDataError("a stored registry must be a mapping")
        if not data.get("documents") and "version" not in data:
            return cls(str(data.get("collection", "")), [])
        version = data.get("version")
        if version != FORMAT_VERSION:
            raise RegistryDataError(
                f"unsupported registry format version {version!r} (expected {FORMAT_VERSION})"
            )
        documents = data.get("documents", [])
        warnings = data.get("warnings", [])
        ambiguous = data.get("ambiguous", {})
        if (
            not isinstance(documents, list)
            or not isinstance(warnings, list)
            or not isinstance(ambiguous, dict)
        ):
            raise RegistryDataError("registry 'documents'/'warnings' must be lists and 'ambiguous' a mapping")
        return cls(
            str(data.get("collection", "")),
            [DocumentEntry.from_dict(d) for d in documents],
            warnings=[str(w) for w in warnings],
            ambiguous={str(k): [str(x) for x in v] for k, v in ambiguous.items()},
        )

    # -- index -----------------------------------------------------------------------------------------

    def _build_index(self) -> None:
        self._keys: dict[str, list[_Entry]] = {}
        self._fuzzy_keys: list[str] = []
        self._fuzzy_entries: list[list[_Entry]] = []
        self._phrases: list[tuple[str, _Entry]] = []
        for document in self.documents.values():
            for synonym in document.synonyms:
                key = normalize_key(synonym.text)
                if not key or (synonym.source is SynonymSource.AUTO and (key in STOP_KEYS or len(key) < 2)):
                    continue
                entry = _Entry(document.file_name, synonym)
                self._keys.setdefault(key, []).append(entry)
                self._phrases.append((normalize_words(synonym.text), entry))
        for key, entries in self._keys.items():
            fuzzy = [e for e in entries if e.synonym.kind in _FUZZY_KINDS]
            if fuzzy and len(key) >= FUZZY_MIN_LENGTH:
                self._fuzzy_keys.append(key)
                self._fuzzy_entries.append(fuzzy)

    def _exact(self, key: str, name: str) -> list[Resolution]:
        entries = self._keys.get(key)
        if not entries:
            return []
        best_rank = min(KIND_RANK[e.synonym.kind] for e in entries)
        documents = {e.document for e in entries if KIND_RANK[e.synonym.kind] == best_rank}
        # per document, report the synonym as written ("dem Atomgesetz" rather than "Atomgesetz")
        written = clean_name(name).casefold()
        results: dict[str, Resolution] = {}
        for entry in sorted(entries, key=lambda e: (clean_name(e.synonym.text).casefold() != written,
                                                     KIND_RANK[e.synonym.kind])):  # fmt: skip
            if entry.document in documents and entry.document not in results:
                confidence = _exact_confidence(entry.synonym)
                results[entry.document] = _resolution(entry, MatchKind.EXACT, confidence)
        return sorted(results.values(), key=lambda r: (-r.confidence, r.document))

    def _fuzzy(self, key: str) -> list[Resolution]:
        limit = 1 if len(key) < 30 else 2 if len(key) < 60 else 3
        digits = _DIGITS_RE.findall(key)
        found = process.extract(
            key, self._fuzzy_keys, scorer=Levenshtein.distance, score_cutoff=limit, limit=None
        )
        if not found:
            return []
        found = [f for f in found if _DIGITS_RE.findall(f[0]) == digits]
        if not found:
            return []
        best = min(int(f[1]) for f in found)
        results: list[Resolution] = []
        for matched_key, distance, index in found:
            if distance != best:
                continue
            similarity = 1.0 - distance / max(len(key), len(matched_key))
            for entry in self._fuzzy_entries[index]:
                results.append(
                    _resolution(entry, MatchKind.FUZZY, 0.9 * similarity * entry.synonym.confidence)
                )
        return _one_per_document(results)

    def _substring(self, phrase: str) -> list[Resolution]:
        """A truncated title or long name, or a whole synonym plus a qualifier ("... in der Fassung")."""
        words = phrase.split()
        content = [w for w in words if len(w) >= 4 and w not in _FUNCTION_WORDS and w not in _HEAD_WORDS]
        truncated_ok = len(phrase) >= SUBSTRING_MIN_LENGTH and len(content) >= SUBSTRING_MIN_CONTENT_WORDS
        results: list[Resolution] = []
        for synonym_phrase, entry in self._phrases:
            if (
                truncated_ok
                and entry.synonym.kind in _FUZZY_KINDS
                and synonym_phrase.startswith(phrase + " ")
            ):
                share = len(phrase) / len(synonym_phrase)  # the longer the part given, the surer
                results.append(
                    _resolution(entry, MatchKind.SUBSTRING, (0.5 + 0.3 * share) * entry.synonym.confidence)
                )
            elif phrase.startswith(synonym_phrase + " "):
                rest = phrase[len(synonym_phrase) + 1 :].split()
                if rest and rest[0] in _QUALIFIERS:
                    results.append(_resolution(entry, MatchKind.SUBSTRING, 0.75 * entry.synonym.confidence))
        return _one_per_document(results)


def _resolution(entry: _Entry, match: MatchKind, confidence: float) -> Resolution:
    s = entry.synonym
    return Resolution(
        entry.document, s.text, s.kind, match, round(min(max(confidence, 0.0), 1.0), 3), s.source
    )


def _exact_confidence(synonym: Synonym) -> float:
    return synonym.confidence * (0.9 if synonym.kind is SynonymKind.FILE else 1.0)


def _one_per_document(
    results: Iterable[Resolution], keep: Callable[[Resolution], bool] | None = None
) -> list[Resolution]:
    best: dict[str, Resolution] = {}
    for r in results:
        if keep is not None and not keep(r):
            continue
        current = best.get(r.document)
        if current is None or (r.confidence, -KIND_RANK[r.kind]) > (
            current.confidence,
            -KIND_RANK[current.kind],
        ):
            best[r.document] = r
    return sorted(best.values(), key=lambda r: (-r.confidence, KIND_RANK[r.kind], r.document))


def _looks_like_abbreviation(name: str) -> bool:
    """One token with inner capitals or digits: "StrlSchV", "AtG", "IMIS-ZustV" (not "Bundes-Immiss...")."""
    text = clean_name(name)
    return " " not in text and len(text) <= 20 and _CAMEL_RE.search(text) is not None
