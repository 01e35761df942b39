"""Plausible junk in figures: a number in a sentence changed the way the 0.5B model changed "1 Millisievert
im Kalenderjahr" into "20 Millisievert" (issue 30)."""

from __future__ import annotations

import re

#: An integer that is not part of a decimal, a date or a longer number; years (4 digits) are left alone.
_NUMBER = re.compile(r"(?<![\d.,/-])\d{1,3}(?![\d]|[.,/-]\d)")
_AMOUNT = re.compile(
    r" ?(?:mSv|µSv|Sv|Millisievert|Mikrosievert|Sievert|Bq|Becquerel|Gy|Gray|%|Prozent|percent|Euro|EUR)",
    re.IGNORECASE,
)
_DURATION = re.compile(r" (?:Jahr|Monat|Woche|Tag|Stunde|year|month|week|day|hour)", re.IGNORECASE)
_PROVISION = ("§", "(", "Nr.", "Nummer", "Absatz", "Abs.", "Artikel", "Art.", "Satz", "Anlage")


def swapped(number: int) -> int:
    """Another plausible value for ``number``: 20 -> 1, smaller ones -> 20, larger ones doubled."""
    if number == 20:
        return 1
    return 20 if number < 20 else number * 2


def _rank(text: str, match: re.Match[str]) -> int:
    """0: an amount with its unit ("1 Millisievert"), 1: a duration ("18 Jahren"), 2: another number, 3: a
    provision's or a paragraph's number."""
    if text[: match.start()].rstrip().endswith(_PROVISION):
        return 3
    if _AMOUNT.match(text, match.end()):
        return 0
    return 1 if _DURATION.match(text, match.end()) else 2


def change_number(text: str) -> str | None:
    """``text`` with its best-placed number changed (an amount first), or None when it has no number."""
    matches = list(_NUMBER.finditer(text))
    if not matches:
        return None
    match = min(matches, key=lambda m: (_rank(text, m), m.start()))
    new = str(swapped(int(match.group())))
    return text[: match.start()] + new + text[match.end() :]
