"""Section labels: which units ("§ 80", "Anlage 4", "Artikel 3") a chunk's section label covers, and the
:class:`SectionIndex` that answers which label of a document covers the unit a reference names.

Labels come from the parser's headings: "§ 80", "§ 9a", "§§ 50 bis 52", "§§ 12c und 12d", "Anlage 4",
"Anlage 1 und 2", an unnumbered "Anlage" or "Anhang", "Art 2 und 3", or a numbered heading "4.2" of a
non-legal document. "Anlage" and "Anhang" are one kind.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from typing import Final

from rabbithole.references.chains import expand_range
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

    def __init__(
        self,
        labels_of: Callable[[str], Iterable[str | None]],
        paths_of: Callable[[str], Sequence[tuple[str, tuple[str, ...]]]] | None = None,
    ) -> None:
        self._labels_of = labels_of
        self._paths_of = paths_of
        self._units: dict[str, dict[Unit, str]] = {}

    def paths(self, document: str) -> Sequence[tuple[str, tuple[str, ...]]]:
        """(label, enclosing headings) of the document's sections in document order ([] if unknown)."""
        return self._paths_of(document) if self._paths_of is not None else []

    def inserted(self, document: str, value: str, first: str, last: str) -> list[str]:
        """Labels of the inserted sections ("7a".."7d") after ``value`` in the range ``first`` to ``last``
        that the document has and the range's written items do not name ("§§ 7 bis 9": 7a-7d, 8a, 9a-9g)."""
        items = {v for v, _mid in expand_range(first, last) or [(first, False), (last, False)]}
        low, high = _order_key(first), _order_key(last, open_end=True)
        number = re.match(r"\d+", value)
        if number is None:
            return []
        out: list[str] = []
        for (kind, unit_number), label in self.units(document).items():
            if kind != "§" or unit_number in items or unit_number == value:
                continue
            m = re.fullmatch(r"(\d+)([a-z]+)", unit_number)
            if m is None or m.group(1) != number.group() or _order_key(unit_number) <= _order_key(value):
                continue
            if low <= _order_key(unit_number) <= high and label not in out:
                out.append(label)
        return sorted(out, key=lambda lab: _order_key(parse_section_label(lab)[0][1]))

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


def _order_key(number: str, *, open_end: bool = False) -> tuple[int, str]:
    """ "7" < "7a" < "7d" < "8"; with ``open_end`` a whole number also covers its lettered sections."""
    m = re.match(r"(\d+)([a-z]*)", number.casefold())
    if m is None:
        return (0, "")
    letters = m.group(2) or ("~" if open_end else "")
    return (int(m.group(1)), letters)


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
