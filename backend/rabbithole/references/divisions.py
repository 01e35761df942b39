"""Structural units of a law ("Teil 4 Kapitel 2", "Abschnitt 3", "Erster Abschnitt") and the sections inside.

Ingestion gives every chunk the path of headings that enclose it (``Chunk.section_path``: "Teil 4 -
Strahlenschutz bei bestehenden Expositionssituationen", "Kapitel 2 - Schutz vor Radon"); a reference to a
division resolves to the section labels whose path holds all the units it names, in order. A division
named without its enclosing units ("Abschnitt 3" inside a Kapitel that has one) that several parts of the
law have is taken in the citing section's part (the same enclosing units), else it is not resolved.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

__all__ = ["DivisionUnit", "division_units", "sections_in_division"]

DivisionUnit = tuple[str, str]  # ("kapitel", "2")

_KINDS: Final = ("unterabschnitt", "abschnitt", "kapitel", "teil", "buch", "titel")
_UNIT_RE: Final = re.compile(
    r"(?P<kind>Unterabschnitt|Abschnitt|Kapitel|Teil|Buch|Titel)(?:e?s|en?)?\s+(?P<num>\d{1,3}[a-z]?|[IVXLC]{1,6})(?![\w])",
    re.I,
)
_ORDINALS: Final = {
    "erst": 1,
    "zweit": 2,
    "dritt": 3,
    "viert": 4,
    "fünft": 5,
    "sechst": 6,
    "siebt": 7,
    "siebent": 7,
    "acht": 8,
    "neunt": 9,
    "zehnt": 10,
    "elft": 11,
    "zwölft": 12,
}
_ORDINAL_HEADING_RE: Final = re.compile(
    r"(?P<ord>[A-Za-zäöüÄÖÜ]+?)(?:er|es|en|e)\s+(?P<kind>Unterabschnitt|Abschnitt|Kapitel|Teil|Buch|Titel)(?![\w])"
)
_ROMAN: Final = {"i": 1, "v": 5, "x": 10, "l": 50, "c": 100}


def _number(value: str) -> str:
    low = value.lower()
    if low.isalpha() and all(c in _ROMAN for c in low):
        total = 0
        for a, b in zip(low, [*low[1:], ""], strict=True):
            total += -_ROMAN[a] if b and _ROMAN[b] > _ROMAN[a] else _ROMAN[a]
        return str(total)
    return low


def division_units(text: str) -> list[DivisionUnit]:
    """The units a division label or heading names: "Teil 4 Kapitel 2" -> [("teil", "4"), ("kapitel", "2")],
    "Erster Abschnitt - Allgemeine Vorschriften" -> [("abschnitt", "1")]."""
    m = _ORDINAL_HEADING_RE.match(text.strip())
    if m and m.group("ord").lower() in _ORDINALS:
        return [(m.group("kind").lower(), str(_ORDINALS[m.group("ord").lower()]))]
    return [(u.group("kind").lower(), _number(u.group("num"))) for u in _UNIT_RE.finditer(text)]


def _heading_unit(heading: str) -> DivisionUnit | None:
    units = division_units(heading.split(" - ")[0])
    return units[0] if len(units) == 1 else None


def _match(path: Sequence[str], wanted: Sequence[DivisionUnit]) -> tuple[str, ...] | None:
    """The path up to and including the last wanted unit when the path holds them all in order."""
    i = 0
    for depth, heading in enumerate(path):
        if _heading_unit(heading) == wanted[i]:
            i += 1
            if i == len(wanted):
                return tuple(path[: depth + 1])
    return None


def sections_in_division(
    division: str,
    sections: Sequence[tuple[str, tuple[str, ...]]],
    citing_path: tuple[str, ...] = (),
) -> list[str]:
    """Labels (in document order) of the ``sections`` ((label, path) pairs) inside ``division``."""
    wanted = [u for u in division_units(division) if u[0] in _KINDS]
    if not wanted:
        return []
    groups: dict[tuple[str, ...], list[str]] = {}
    for label, path in sections:
        prefix = _match(path, wanted)
        if prefix is not None:
            groups.setdefault(prefix, []).append(label)
    if len(groups) <= 1:
        return next(iter(groups.values()), [])
    # several parts have such a unit: the one in the citing section's enclosing units
    for prefix, labels in groups.items():
        if tuple(citing_path[: len(prefix) - 1]) == prefix[:-1]:
            return labels
    return []
