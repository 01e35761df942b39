"""Section labels: which units ("§ 80", "Anlage 4", "Artikel 3") a chunk's section label covers, and the
:class:`SectionIndex` that answers which label of a document covers the unit a reference names.

Labels come from the parser's headings: "§ 80", "§ 9a", "§§ 50 bis 52", "§§ 12c und 12d", "Anlage 4",
"Anlage 1 und 2", an unnumbered "Anlage" or "Anhang", "Art 2 und 3", or a numbered heading "4.2" of a
non-legal document. "Anlage" and "Anhang" are one kind.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Mapping
from typing import Final

from rabbithole.references.models import Reference, RefType

__all__ = ["SectionIndex", "Unit", "canonical_label", "parse_section_label", "unit_of"]

Unit = tuple[str, str]  # (kind, number): ("§", "80"), ("annex", "4"), ("art", "3"), ("other", "4.2")

_KIND_WORDS: Final = {
    "§": "§",
    "§§": "§",
    "anlage": "annex",
    "anlagen": "annex",
    "anhang": "annex",
    "anhänge": "annex",
    "annex": "annex",
    "art": "art",
    "art.": "art",
    "artikel": "art",
    "article": "art",
}
_LABEL_RE: Final = re.compile(
    r"^\s*(§§|§|Anlagen?|Anhang|Anhänge|Annex|Artikel|Article|Art\.?)(?=[\s\d]|$)\s*(.*)$", re.I
)
_NUMBER_RE: Final = re.compile(r"[0-9]+[a-z]?|[IVXLC]+(?![a-z])", re.I)
_RANGE_RE: Final = re.compile(r"^([0-9]+)([a-z]?)\s*(?:bis|-|–)\s*([0-9]+)([a-z]?)$", re.I)
_SEPARATOR_RE: Final = re.compile(r"\s*(?:,|\bund\b|\boder\b|\bsowie\b|&)\s*", re.I)


def _number_key(number: str) -> str:
    return re.sub(r"\s+", "", number).casefold()


def parse_section_label(label: str) -> list[Unit]:
    """The units a section label covers: "§ 80" -> [("§", "80")], "§§ 50 bis 52" -> 50, 51, 52,
    "Anlage 1 und 2" -> annexes 1 and 2, "Anlage" -> [("annex", "")], "4.2" -> [("other", "4.2")]."""
    m = _LABEL_RE.match(label)
    if m is None:
        text = label.strip()
        return [("other", _number_key(text))] if text else []
    kind = _KIND_WORDS[m.group(1).casefold()]
    rest = m.group(2).strip()
    if not rest:
        return [(kind, "")]
    units: list[Unit] = []
    for part in _SEPARATOR_RE.split(rest):
        part = part.strip()
        if not part:
            continue
        rng = _RANGE_RE.match(part)
        if rng:
            units.extend((kind, n) for n in _expand_range(*rng.groups()))
            continue
        number = _NUMBER_RE.match(part)
        if number:
            units.append((kind, _number_key(number.group())))
    return units or [(kind, "")]


def _expand_range(first: str, first_letter: str, last: str, last_letter: str) -> list[str]:
    a, b = int(first), int(last)
    if a == b and not first_letter and last_letter:  # "7 bis 7d"
        return [str(a)] + [f"{a}{chr(c)}" for c in range(ord("a"), ord(last_letter.lower()) + 1)]
    if a < b and b - a <= 200 and not first_letter and not last_letter:
        return [str(n) for n in range(a, b + 1)]
    return [f"{first}{first_letter}".casefold(), f"{last}{last_letter}".casefold()]


def unit_of(ref: Reference) -> Unit | None:
    """The unit a reference names in its target document; None for a whole document or a relative one."""
    if ref.annex is not None:
        return ("annex", _number_key(ref.annex))
    if ref.type is RefType.DOCUMENT_SECTION:
        return ("other", _number_key(ref.section)) if ref.section else None
    if ref.section is not None:
        return ("§", _number_key(ref.section))
    if ref.article is not None:
        return ("art", _number_key(ref.article))
    return None


class SectionIndex:
    """Which section label of a document covers a unit; labels come from ``labels_of(document)``
    (e.g. the distinct ``Chunk.section`` values of its chunks), read once per document."""

    def __init__(self, labels_of: Callable[[str], Iterable[str | None]]) -> None:
        self._labels_of = labels_of
        self._units: dict[str, dict[Unit, str]] = {}

    @classmethod
    def from_labels(cls, labels: Mapping[str, Collection[str | None]]) -> SectionIndex:
        """From {document: its section labels} (documents not listed have no sections)."""
        return cls(lambda document: labels.get(document, ()))

    def units(self, document: str) -> dict[Unit, str]:
        found = self._units.get(document)
        if found is None:
            found = {}
            for label in self._labels_of(document):
                if not label:
                    continue
                for unit in parse_section_label(label):
                    found.setdefault(unit, label)
            self._units[document] = found
        return found

    def find(self, document: str, unit: Unit) -> str | None:
        """The label of ``document`` that covers ``unit``, or None."""
        units = self.units(document)
        label = units.get(unit)
        if label is not None:
            return label
        if unit[0] == "annex":
            # an unnumbered "Anlage" when that is the document's only annex
            annexes = [u for u in units if u[0] == "annex"]
            if annexes == [("annex", "")] and unit[1] in ("", "1", "i"):
                return units[("annex", "")]
        return None


def canonical_label(unit: Unit) -> str:
    """The usual label of a unit: ("§", "80") -> "§ 80", ("annex", "xi") -> "Anlage XI"."""
    kind, number = unit
    if kind == "§":
        return f"§ {number}"
    if kind == "annex":
        return f"Anlage {number.upper() if re.fullmatch(r'[ivxlc]+', number) else number}".strip()
    if kind == "art":
        return f"Artikel {number}"
    return number
