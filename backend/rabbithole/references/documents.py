"""Document mentions the citation grammar does not see: references to a whole document written loosely.

* a named document: ``siehe Dokument "Sicherheitsbericht"``, ``im Dokument „Betriebshandbuch“``, ``see
  document "Safety Report"`` (type ``document``; the name is looked up in the registry);
* a bare law abbreviation with no article or preposition before it: "StrlSchG", "AtG", "AtVfV" (mixed
  case, shaped like a law abbreviation: :func:`~rabbithole.references.lawnames.match_abbreviation`);
* a law name written in lower case ("strahlenschutzgesetz", "des atomgesetzes") or with a misspelt
  "-verordnung" ("Strahlenschutzverordung", "Strahlenschutzverodnung": one letter off). The reference
  carries the name as written in ``law`` and the corrected base form in ``law_normalized``.

:func:`document_mentions` runs after the grammar and skips text the grammar already took.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from typing import Final

from rabbithole.references.lawnames import match_abbreviation
from rabbithole.references.models import Reference, RefType

__all__ = ["document_mentions"]

_NAMED_RE: Final = re.compile(
    r"(?<![\w])(?:(?:siehe|vgl\.|see|cf\.)[ \t]+)?(?:(?:im|dem|das|des|the)[ \t]+)?"
    r"(?:Dokuments?|document)[ \t]+(?:[\"„“”»«']|&quot;)(?P<name>[^\"„“”»«'\n]{2,80}?)[\"“”«»']"
)
#: candidate words: a lower-case compound ending like a law, or any word with "ver..." near its end
#: Literal triggers of candidate words: "gesetz" (lower-case law names) and the 4-grams of "verordnung"
#: (one edit touches at most two adjacent letters, so every misspelling keeps one of them).
_TRIGGER_RE: Final = re.compile("gesetz|vero|Vero|eror|rord|ordn|rdnu|dnun|nung")
_WORD_AT_RE: Final = re.compile(r"[A-Za-zÄÖÜäöüß]+")
_LETTER: Final = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyzÄÖÜäöüß")


def _candidate_words(text: str) -> list[tuple[int, int]]:
    """Spans of the words holding a trigger, at least 10 letters, not joined to another by a hyphen."""
    out: list[tuple[int, int]] = []
    last_end = -1
    for m in _TRIGGER_RE.finditer(text):
        if m.start() < last_end:
            continue
        start = m.start()
        while start > 0 and text[start - 1] in _LETTER:
            start -= 1
        word = _WORD_AT_RE.match(text, start)
        assert word is not None
        end = word.end()
        last_end = end
        if (
            end - start < 10
            or (start > 0 and text[start - 1] in "-_")
            or (end < len(text) and text[end] in "-_")
        ):
            continue
        if (start > 0 and text[start - 1].isalnum()) or (end < len(text) and text[end].isalnum()):
            continue  # digits glued to it
        out.append((start, end))
    return out


#: the last letter of a law abbreviation ("AtG", "StrlSchV", "BImSchG"), after another letter
_ABBR_END_RE: Final = re.compile(r"(?<=[A-Za-zÄÖÜäöü])[GVO](?![\w-])")
_ABBR_LETTERS: Final = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyzÄÖÜäöü-")
_LOWER_HEADS: Final = (("gesetzbuch", "gesetzbuch"), ("gesetz", "gesetz"), ("verordnung", "verordnung"))
_LOWER_INFLECTIONS: Final = ("es", "s", "e", "")
_GENERIC_STEMS: Final = frozenset(
    [
        "bundes",
        "landes",
        "änderungs",
        "ausführungs",
        "einführungs",
        "durchführungs",
        "rechts",
        "haushalts",
        "mantel",
        "artikel",
        "zustimmungs",
        "vertrags",
        "fach",
        "spezial",
        "natur",
        "eil",
        "minister",
    ]
)


def _edits1(word: str) -> set[str]:
    letters = "abcdefghijklmnopqrstuvwxyzäöüß"
    splits = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    out = {a + b[1:] for a, b in splits if b}
    out |= {a + b[1] + b[0] + b[2:] for a, b in splits if len(b) > 1}
    out |= {a + c + b[1:] for a, b in splits if b for c in letters}
    out |= {a + c + b for a, b in splits for c in letters}
    out.discard(word)
    return out


#: "verordnung" one letter off ("verordung", "verodnung", "verordnnug"), never a word of its own
_MISSPELT: Final = frozenset(w for w in _edits1("verordnung") if not w.endswith(("ordnung", "verordnungs")))
_MISSPELT_LENGTHS: Final = sorted({len(w) for w in _MISSPELT}, reverse=True)


class _Taken:
    """Spans already taken, for overlap checks in O(log n): the grammar's (sorted once, with running
    maximum ends) and the ones added here (disjoint, kept sorted)."""

    def __init__(self, spans: Sequence[tuple[int, int]]) -> None:
        self.spans = sorted(spans)
        self.max_end: list[int] = []
        running = -1
        for _s, e in self.spans:
            running = max(running, e)
            self.max_end.append(running)
        self.added: list[tuple[int, int]] = []

    def overlaps(self, start: int, end: int) -> bool:
        i = bisect.bisect_left(self.spans, (end, -1))  # spans starting before ``end``
        if i > 0 and self.max_end[i - 1] > start:
            return True
        j = bisect.bisect_left(self.added, (end, -1))
        return j > 0 and self.added[j - 1][1] > start

    def add(self, start: int, end: int) -> None:
        bisect.insort(self.added, (start, end))


def _law_word(word: str) -> str | None:
    """The corrected base form of a lower-case or misspelt law name, or None."""
    lower = word.lower()
    if word[0].islower():
        for head, base in _LOWER_HEADS:
            for infl in _LOWER_INFLECTIONS:
                suffix = head + infl
                if lower.endswith(suffix) and (infl == "" or head == "gesetz" or head == "gesetzbuch"):
                    stem = lower[: -len(suffix)]
                    if len(stem) >= 4 and stem not in _GENERIC_STEMS:
                        return (stem + base).capitalize()
    for n in _MISSPELT_LENGTHS:
        if len(lower) > n + 3 and lower[-n:] in _MISSPELT:
            stem = lower[:-n]
            if stem not in _GENERIC_STEMS:
                return (stem + "verordnung").capitalize()
    return None


def document_mentions(text: str, taken: Sequence[tuple[int, int]]) -> list[Reference]:
    """Whole-document mentions in ``text`` outside the ``taken`` spans (the grammar's references)."""
    out: list[Reference] = []
    spans = _Taken(taken)
    named = _NAMED_RE.finditer(text) if "okument" in text or "document" in text else iter(())
    for m in named:
        if spans.overlaps(m.start(), m.end()):
            continue
        name = " ".join(m.group("name").split())
        out.append(
            Reference(
                RefType.DOCUMENT,
                m.group(),
                m.start(),
                m.end(),
                m.start("name"),
                m.end("name"),
                law=name,
                law_normalized=name,
            )
        )
        spans.add(m.start(), m.end())
    for end_match in _ABBR_END_RE.finditer(text):
        start, end = end_match.start(), end_match.end()
        while start > 0 and text[start - 1] in _ABBR_LETTERS:
            start -= 1
        while start < end and text[start] == "-":
            start += 1
        token = text[start:end]
        if (start > 0 and (text[start - 1].isalnum() or text[start - 1] == "_")) or not token[0].isupper():
            continue
        if not any(c.islower() for c in token) or spans.overlaps(start, end):
            continue
        abbreviation = match_abbreviation(text, start)
        if abbreviation is None or abbreviation.end() != end:
            continue
        out.append(Reference(RefType.LAW, token, start, end, start, end, law=token, law_normalized=token))
        spans.add(start, end)
    for start, end in _candidate_words(text):
        word = text[start:end]
        base = _law_word(word)
        if base is None or spans.overlaps(start, end):
            continue
        out.append(Reference(RefType.LAW, word, start, end, start, end, law=word, law_normalized=base))
        spans.add(start, end)
    out.sort(key=lambda r: r.start)
    return out
