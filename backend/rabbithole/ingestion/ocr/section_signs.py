"""Tesseract's one systematic misreading in statutes: the section sign "§" (bold in headings) read as "8", "$"
or "S", and "§§" as "88". Where the context leaves no doubt (a line opening with it before a section number
and a capitalised heading; in the text before a section number and "Abs."/"Absatz"/"Satz"/"Nr.", or after
"nach", "gemäß", ... before a section number), the sign is restored. A heading's sign read as a digit run
into the number ("848 Aktualisierung der Fachkunde") is restored where the number continues the headings
before it. Each replacement keeps the length, so the word boxes' offsets stay valid; the page text (what
quotes are verbatim to) is the corrected text."""

from __future__ import annotations

import re
from collections.abc import Sequence

from rabbithole.ingestion.pdf_layout import PdfPage

_SIGN = r"(?:8|\$|S)"
_DOUBLE = r"(?:88|\$\$|SS|S8|8S)"
_NUMBER = r"\d{1,3}[a-z]?"
#: an amount, not a section: "von 8 500 Euro"
_UNITS = r"(?:Euro|EUR|Prozent|%|Jahre|Monate|Tage|Stunden|mSv|Millisievert|Bq|Becquerel)"
_NOT_AN_AMOUNT = rf"(?!\s\d{{1,3}}[a-z]?\s*{_UNITS})"
_HEADING_END = r"(?:[ \t]+[A-ZÄÖÜ(„]|[ \t]*$|,|\s(?:und|bis)\s)"
_HEADING = re.compile(rf"^({_DOUBLE}|{_SIGN})(?=[ \t]{_NUMBER}{_HEADING_END})", re.MULTILINE)
#: "§§ 12c und 12d (weggefallen)" read as "85 12c und 12d": only before two section numbers
_PLURAL_HEADING = re.compile(rf"^(85)(?=[ \t]{_NUMBER}[ \t](?:und|bis)[ \t]{_NUMBER}\b)", re.MULTILINE)
_BEFORE_UNIT = re.compile(
    rf"(?<![\w.,])({_DOUBLE}|{_SIGN})(?=\s{_NUMBER}\s(?:Abs\.|Absatz|Satz|Nr\.|Nummer)\s)"
)
_AFTER_WORD = re.compile(
    rf"\b(?:nach|gemäß|gemäss|die|des|der|dem|den|im|in|von|und|oder|sowie|bis|zu|auf|mit|über|vgl\.)\s"
    rf"({_DOUBLE}|{_SIGN}){_NOT_AN_AMOUNT}(?=\s{_NUMBER}\b)"
)


def _sign(match: re.Match[str]) -> str:
    """The match with its group 1 (the misread sign) replaced by as many section signs."""
    whole, start, end = match.group(0), match.start(1) - match.start(0), match.end(1) - match.start(0)
    return whole[:start] + "§" * (end - start) + whole[end:]


def restore_section_signs(text: str) -> str:
    """The text (a line, or a paragraph's lines joined by newlines) with misread section signs restored
    (same length); a heading's sign is looked for at the start of each line."""
    restored = _HEADING.sub(_sign, text)
    restored = _PLURAL_HEADING.sub(_sign, restored)
    restored = _BEFORE_UNIT.sub(_sign, restored)
    return _AFTER_WORD.sub(_sign, restored)


#: what follows a section number in a reference, not in a heading: "§ 25 Absatz 1 ..."
_NOT_A_TITLE = r"(?!(?:Abs\.|Absatz|Absätze|Satz|Sätze|Nr\.|Nummer|Buchstabe)\b)"
#: a paragraph opening with a section heading: "§ 47 Title", "§47 Title"
_KNOWN_HEADING = re.compile(rf"^§§?\s?(\d{{1,3}})[a-z]?(?=\s+{_NOT_A_TITLE}[A-ZÄÖÜ(„])")
#: one whose sign Tesseract read as a digit run into the number: "848 Aktualisierung der Fachkunde"
_MERGED_HEADING = re.compile(rf"^{_SIGN}(\d{{1,3}})[a-z]?(?=\s+{_NOT_A_TITLE}(?!{_UNITS}\b)[A-ZÄÖÜ(„])")
#: how far the section numbering may jump from one heading to the next (sections repealed and left out)
_MAX_STEP = 5


def restore_heading_signs(pages: Sequence[PdfPage]) -> None:
    """Section headings whose sign Tesseract ran into the number ("848 Aktualisierung" for "§ 48
    Aktualisierung"; "85 Nachweis" for "§ 5 Nachweis") get their sign back, where the number read without
    the first character continues the numbering of the headings before it (after § 47, "848" is § 48 and
    "850 Becquerel", an amount, stays as it is). The lines are changed in place, with the same length."""
    last = 0
    for page in pages:
        for line in page.lines:
            if not line.paragraph_start:
                continue
            if known := _KNOWN_HEADING.match(line.text):
                last = int(known.group(1))
            elif (merged := _MERGED_HEADING.match(line.text)) and _continues(last, int(merged.group(1))):
                last = int(merged.group(1))
                line.text = "§" + line.text[1:]


def _continues(last: int, number: int) -> bool:
    return last <= number <= last + _MAX_STEP
