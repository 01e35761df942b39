"""Promulgation and amendment notes, and the version of a law a citation names.

* **Amendment notes** ("..., das zuletzt durch Artikel 2 des Gesetzes vom 20. Mai 2021 (BGBl. I S. 1194)
  geändert worden ist", "der durch Artikel 1 Nummer 10 des Gesetzes vom 6. April 1998 (BGBl. I S. 694)
  eingefügt wurde") say which act changed a law; they cite no provision anybody would follow.
  :func:`amendment_spans` finds them (from "durch" to the verb) so the grammar drops what lies inside.
* **Versions**: a law cited "vom 20. Juli 2001", "in der Fassung der Bekanntmachung vom 15. Juli 1985" or
  "in der bis zum 31. Dezember 2018 geltenden Fassung" names one version of it. :func:`version_after`
  reads that qualifier after a law name; the resolver compares it with the dates of the collection's
  document (:func:`document_dates`: "Ausfertigungsdatum", "Zuletzt geändert durch ... v. 8.10.2021" in
  the head of a German federal law) and treats an older version as another, external, document.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from rabbithole.references.patterns_legal import WS, WS1

__all__ = [
    "DocumentDates",
    "Version",
    "amendment_spans",
    "document_dates",
    "is_older_version",
    "version_after",
]

_MONTHS: Final = {
    "januar": 1,
    "februar": 2,
    "märz": 3,
    "april": 4,
    "mai": 5,
    "juni": 6,
    "juli": 7,
    "august": 8,
    "september": 9,
    "oktober": 10,
    "november": 11,
    "dezember": 12,
}
_DATE: Final = (
    rf"(?P<day>\d{{1,2}})\.{WS}(?:(?P<month>{'|'.join(m.capitalize() for m in _MONTHS)}){WS1}"
    rf"|(?P<mnum>\d{{1,2}})\.{WS})(?P<year>\d{{4}})"
)

#: "durch Artikel 2 des Gesetzes", "durch die Verordnung (EU) 2016/2105", "durch § 3 ..."
_NOTE_START_RE: Final = re.compile(
    rf"(?<![\w])durch{WS1}(?:(?:die|den|das){WS1})?(?=Art(?:ikel|\.)|Verordnung|Gesetz|Richtlinie|Bekanntmachung|§)"
)
#: the verb that closes the note; at most 400 characters on, never across a blank line
_NOTE_END_RE: Final = re.compile(
    rf"(?:geändert|eingefügt|aufgehoben|neu{WS1}gefasst|neugefasst|ersetzt|befristet|angefügt)"
    rf"(?:(?:{WS1}worden)?{WS1}(?:ist|sind|war|waren|wurde|wurden))?(?![\w])"
)
_BLANK_LINE_RE: Final = re.compile(r"\n[ \t\f]*\n")

_VERSION_RES: Final = (
    (
        re.compile(
            rf"{WS1}in{WS1}der{WS1}bis{WS1}(?:zum|einschließlich){WS1}{_DATE}{WS1}geltenden{WS1}Fassung"
        ),
        True,
    ),
    (re.compile(rf"{WS1}in{WS1}der{WS1}Fassung{WS1}der{WS1}Bekanntmachung{WS1}vom{WS1}{_DATE}"), False),
    (re.compile(rf"{WS1}vom{WS1}{_DATE}"), False),
)


@dataclass(frozen=True, slots=True)
class Version:
    text: str  # as written, whitespace collapsed: "vom 20. Juli 2001"
    date: str  # ISO: "2001-07-20"
    until: bool  # "in der bis zum ... geltenden Fassung": the version that ended on that date
    end: int  # end of the qualifier in the text


@dataclass(frozen=True, slots=True)
class DocumentDates:
    """Dates of the version of a law a collection holds (ISO strings; None when not stated)."""

    enacted: str | None = None  # Ausfertigungsdatum
    latest: str | None = None  # the last change (or the enactment, when none is stated)


def _iso(m: re.Match[str]) -> str | None:
    month_name = m.group("month")
    month = _MONTHS.get(month_name.lower(), 0) if month_name else int(m.group("mnum") or 0)
    day, year = int(m.group("day")), int(m.group("year"))
    if not 1 <= month <= 12 or not 1 <= day <= 31:
        return None
    return f"{year:04d}-{month:02d}-{day:02d}"


def version_after(text: str, pos: int) -> Version | None:
    """The version qualifier right after a law name ending at ``pos``, or None."""
    for pattern, until in _VERSION_RES:
        m = pattern.match(text, pos)
        if m:
            date = _iso(m)
            return None if date is None else Version(" ".join(m.group().split()), date, until, m.end())
    return None


def amendment_spans(text: str) -> list[tuple[int, int]]:
    """[start, end) spans of amendment notes: from "durch <act>" to "geändert worden ist" and the like."""
    spans: list[tuple[int, int]] = []
    for m in _NOTE_START_RE.finditer(text):
        if spans and m.start() < spans[-1][1]:
            continue
        window_end = min(len(text), m.end() + 400)
        blank = _BLANK_LINE_RE.search(text, m.end(), window_end)
        if blank:
            window_end = blank.start()
        end = _NOTE_END_RE.search(text, m.end(), window_end)
        if end:
            spans.append((m.start(), end.end()))
    return spans


_ENACTED_RE: Final = re.compile(r"Ausfertigungsdatum:\s*(\d{4})-(\d{2})-(\d{2})")
_CHANGED_RE: Final = re.compile(
    r"(?:Zuletzt geändert durch|Neugefasst durch|Änderung durch):[^\n]*?v\.\s*(\d{1,2})\.(\d{1,2})\.(\d{4})"
)


def document_dates(head: str) -> DocumentDates:
    """The dates a German federal law states in its head (the first page of the PDF)."""
    enacted = _ENACTED_RE.search(head)
    enacted_iso = "-".join(enacted.groups()) if enacted else None
    changes = [f"{y}-{int(mo):02d}-{int(d):02d}" for d, mo, y in _CHANGED_RE.findall(head)]
    candidates = [d for d in [enacted_iso, *changes] if d]
    return DocumentDates(enacted_iso, max(candidates) if candidates else None)


def is_older_version(version_date: str, until: bool, dates: DocumentDates | None) -> bool:
    """Whether a citation of the version ``version_date`` means an older version than ``dates``' one."""
    if until:
        # the version valid until that date: older unless the document's version is older still
        return dates is None or dates.latest is None or version_date < dates.latest
    return dates is not None and dates.enacted is not None and version_date < dates.enacted
