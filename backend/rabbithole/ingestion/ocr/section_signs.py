"""Tesseract's one systematic misreading in statutes: the section sign "§" (bold in headings) read as "8", "$"
or "S", and "§§" as "88". Where the context leaves no doubt (a line opening with it before a section number
and a capitalised heading; in the text before a section number and "Abs."/"Absatz"/"Satz"/"Nr.", or after
"nach", "gemäß", ... before a section number), the sign is restored. Each replacement keeps the length, so
the word boxes' offsets stay valid; the page text (what quotes are verbatim to) is the corrected text."""

from __future__ import annotations

import re

_SIGN = r"(?:8|\$|S)"
_DOUBLE = r"(?:88|\$\$|SS|S8|8S)"
_NUMBER = r"\d{1,3}[a-z]?"
#: an amount, not a section: "von 8 500 Euro"
_UNITS = r"(?:Euro|EUR|Prozent|%|Jahre|Monate|Tage|Stunden|mSv|Millisievert|Bq|Becquerel)"
_NOT_AN_AMOUNT = rf"(?!\s\d{{1,3}}[a-z]?\s*{_UNITS})"
_HEADING_END = r"(?:\s+[A-ZÄÖÜ(„]|\s*$|,|\s(?:und|bis)\s)"
_HEADING = re.compile(rf"^({_DOUBLE}|{_SIGN})(?=\s{_NUMBER}{_HEADING_END})")
_BEFORE_UNIT = re.compile(
    rf"(?<![\w.,])({_DOUBLE}|{_SIGN})(?=\s{_NUMBER}\s(?:Abs\.|Absatz|Satz|Nr\.|Nummer)\s)"
)
_AFTER_WORD = re.compile(
    rf"\b(?:nach|gemäß|gemäss|des|der|dem|den|im|in|von|und|oder|sowie|bis|zu|auf|mit|über|vgl\.)\s"
    rf"({_DOUBLE}|{_SIGN}){_NOT_AN_AMOUNT}(?=\s{_NUMBER}\b)"
)


def _sign(match: re.Match[str]) -> str:
    """The match with its group 1 (the misread sign) replaced by as many section signs."""
    whole, start, end = match.group(0), match.start(1) - match.start(0), match.end(1) - match.start(0)
    return whole[:start] + "§" * (end - start) + whole[end:]


def restore_section_signs(line: str) -> str:
    """The line with misread section signs restored (same length)."""
    restored = _HEADING.sub(_sign, line)
    restored = _BEFORE_UNIT.sub(_sign, restored)
    return _AFTER_WORD.sub(_sign, restored)
