"""The checkable tokens of a claim: numbers with their units, dates, amounts, percentages and provision
references, normalised so that the same fact written two ways gives the same token.

    claim_tokens("Der Grenzwert beträgt 1 mSv nach § 7 AtG.")
    # [ClaimToken(kind="quantity", key="1 msv", ...), ClaimToken(kind="provision", key="§7", laws=("AtG",))]
    missing_tokens("20 Millisievert nach § 7 des Atomgesetzes", claim_tokens("§ 7 AtG: 20 mSv"))  # []

Normalisation:

* numbers in German and English notation ("1.000", "1,000" and "1000"; "6,5" and "6.5"), small number
  words before a unit ("ein Jahr", "drei Monate"), multipliers ("1,5 Millionen Euro" = "1500000 eur");
* units by their symbol or name in any case form ("1 mSv" = "1 Millisievert", "18 Jahren" = "18 Jahre",
  "20 %" = "20 Prozent" = "20 vom Hundert", "100 €" = "100 Euro" = "EUR 100");
* dates as ISO ("1. Januar 2019" = "01.01.2019" = "2019-01-01"); a bare year is a number that a date of
  that year also holds;
* provisions (§, Artikel, Anlage/Anhang, with their Absatz) through the reference grammar
  (``rabbithole.references.grammar``), with their law as written in base form: "§ 7 AtG" =
  "§ 7 des Atomgesetzes", an abbreviation matching a name by ``registry.mining.fit_cost``. A provision
  without a law ("§ 7", "dieses Gesetzes") belongs to ``document_laws`` (the names of the document the
  text is from) where they are given, else to any law.

Pure: no I/O, no model. Synthesis can use it to check a claim against the quotes it cites.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Literal

from rabbithole.references.grammar import detect_references
from rabbithole.references.models import RefType
from rabbithole.registry.mining import fit_cost
from rabbithole.registry.synonyms import fold

__all__ = ["ClaimToken", "TokenKind", "claim_tokens", "covers", "missing_tokens", "same_law"]

TokenKind = Literal["quantity", "percent", "amount", "date", "number", "provision"]


@dataclass(frozen=True, slots=True)
class ClaimToken:
    """One checkable token: ``key`` is its normal form ("1 msv", "2019-01-01", "§7"); ``text`` and
    ``start``/``end`` where it was written. Provisions: ``detail`` their Absatz, ``laws`` the names of
    their law (empty: any law)."""

    kind: TokenKind
    key: str
    text: str
    start: int
    end: int
    detail: str | None = None
    laws: tuple[str, ...] = ()


_MONTHS = {
    **dict.fromkeys(("januar", "jänner", "jan", "january"), 1),
    **dict.fromkeys(("februar", "feb", "febr", "february"), 2),
    **dict.fromkeys(("märz", "mär", "march"), 3),
    **dict.fromkeys(("april", "apr"), 4),
    **dict.fromkeys(("mai", "may"), 5),
    **dict.fromkeys(("juni", "jun", "june"), 6),
    **dict.fromkeys(("juli", "jul", "july"), 7),
    **dict.fromkeys(("august", "aug"), 8),
    **dict.fromkeys(("september", "sep", "sept"), 9),
    **dict.fromkeys(("oktober", "okt", "october"), 10),
    **dict.fromkeys(("november", "nov"), 11),
    **dict.fromkeys(("dezember", "dez", "december"), 12),
}
_MONTH = "(?:" + "|".join(sorted((re.escape(m) for m in _MONTHS), key=len, reverse=True)) + r")\.?"
_DATES: tuple[tuple[re.Pattern[str], tuple[str, str, str]], ...] = (
    (re.compile(r"(?<![\d.])(\d{1,2})\.\s?(\d{1,2})\.\s?((?:19|20)\d\d)(?!\d)"), ("3", "2", "1")),
    (re.compile(r"(?<!\d)((?:19|20)\d\d)-(\d\d)-(\d\d)(?!\d)"), ("1", "2", "3")),
    (re.compile(rf"(?<![\d.])(\d{{1,2}})\.?\s+({_MONTH})\s+((?:19|20)\d\d)(?!\d)", re.I), ("3", "2", "1")),
    (re.compile(rf"(?<![\w])({_MONTH})\s+(\d{{1,2}}),?\s+((?:19|20)\d\d)(?!\d)", re.I), ("3", "1", "2")),
    (re.compile(rf"(?<![\w.])({_MONTH})\s+((?:19|20)\d\d)(?!\d)", re.I), ("2", "1", "")),
)

_NUMBER_WORDS = {
    **dict.fromkeys(("ein", "eine", "einen", "einem", "einer", "eines", "one"), 1),
    **dict.fromkeys(("zwei", "two"), 2),
    **dict.fromkeys(("drei", "three"), 3),
    **dict.fromkeys(("vier", "four"), 4),
    **dict.fromkeys(("fünf", "five"), 5),
    **dict.fromkeys(("sechs", "six"), 6),
    **dict.fromkeys(("sieben", "seven"), 7),
    **dict.fromkeys(("acht", "eight"), 8),
    **dict.fromkeys(("neun", "nine"), 9),
    **dict.fromkeys(("zehn", "ten"), 10),
    **dict.fromkeys(("zwölf", "twelve"), 12),
    **dict.fromkeys(("zwanzig", "twenty"), 20),
    **dict.fromkeys(("dreißig", "thirty"), 30),
}
_MULTIPLIERS = {
    **dict.fromkeys(("tausend", "thousand"), 10**3),
    **dict.fromkeys(("mio", "million", "millionen", "millions"), 10**6),
    **dict.fromkeys(("mrd", "milliarde", "milliarden", "billion", "billions"), 10**9),
}
# (canonical unit, kind, spellings): symbols are matched case-sensitively, names in any case
_UNITS: tuple[tuple[str, TokenKind, tuple[str, ...], tuple[str, ...]], ...] = (
    ("msv", "quantity", ("mSv",), ("millisievert",)),
    ("usv", "quantity", ("µSv", "μSv", "uSv"), ("mikrosievert", "microsievert")),
    ("sv", "quantity", ("Sv",), ("sievert",)),
    ("mgy", "quantity", ("mGy",), ("milligray",)),
    ("gy", "quantity", ("Gy",), ("gray",)),
    ("kbq", "quantity", ("kBq",), ("kilobecquerel",)),
    ("mbq", "quantity", ("MBq",), ("megabecquerel",)),
    ("gbq", "quantity", ("GBq",), ("gigabecquerel",)),
    ("tbq", "quantity", ("TBq",), ("terabecquerel",)),
    ("bq", "quantity", ("Bq",), ("becquerel",)),
    ("percent", "percent", ("%",), ("prozent", "vom hundert", "v. h.", "v.h.", "percent", "per cent")),
    ("eur", "amount", ("€", "EUR"), ("euro", "euros")),
    ("year", "quantity", (), ("kalenderjahre", "kalenderjahren", "jahre", "jahren", "jahres")),
    ("year", "quantity", (), ("jahrs", "jahr", "years", "year")),
    ("month", "quantity", (), ("monate", "monaten", "monats", "monat", "months", "month")),
    ("week", "quantity", (), ("wochen", "woche", "weeks", "week")),
    ("workday", "quantity", (), ("werktage", "werktagen", "werktag", "working days", "working day")),
    ("day", "quantity", (), ("tage", "tagen", "tages", "tag", "days", "day")),
    ("hour", "quantity", ("h",), ("stunden", "stunde", "hours", "hour")),
    ("minute", "quantity", ("min",), ("minuten", "minute", "minutes")),
    ("mm", "quantity", ("mm",), ("millimeter", "millimetre", "millimeters", "millimetres")),
    ("cm", "quantity", ("cm",), ("zentimeter", "centimeter", "centimetre", "centimeters", "centimetres")),
    ("km", "quantity", ("km",), ("kilometer", "kilometre", "kilometers", "kilometres")),
    ("m", "quantity", ("m",), ("meter", "metre", "meters", "metres")),
    ("mg", "quantity", ("mg",), ("milligramm", "milligram", "milligrams")),
    ("kg", "quantity", ("kg",), ("kilogramm", "kilogram", "kilograms")),
    ("t", "quantity", ("t",), ("tonnen", "tonne", "tonnes", "tons")),
    ("g", "quantity", ("g",), ("gramm", "gram", "grams")),
    ("mw", "quantity", ("MW",), ("megawatt",)),
    ("kw", "quantity", ("kW",), ("kilowatt",)),
)
_UNIT_OF: dict[str, tuple[str, TokenKind]] = {}
for _unit, _kind, _symbols, _names in _UNITS:
    _UNIT_OF.update({s: (_unit, _kind) for s in _symbols})
    _UNIT_OF.update({n: (_unit, _kind) for n in _names})
_SPELLINGS = sorted(_UNIT_OF, key=len, reverse=True)
# one space of any kind between a number and its unit, a line break too: page text breaks lines anywhere
# ("20\nMillisievert" on the page of StrlSchG § 78)
_UNIT_RE = re.compile(
    r"\s?(?:"
    + "|".join(
        re.escape(s) if s in {x for _u, _k, sym, _n in _UNITS for x in sym} else f"(?i:{re.escape(s)})"
        for s in _SPELLINGS
    )
    + r")(?![\w])"
)
_NUMBER = r"\d{1,3}(?:[.,]\d{3})+(?:[.,]\d+)?|\d+(?:[.,]\d+)?"
_WORD = "|".join(sorted(_NUMBER_WORDS, key=len, reverse=True))
_MULT = "|".join(sorted(_MULTIPLIERS, key=len, reverse=True))
_QUANTITY_RE = re.compile(
    rf"(?<![\w.,/])(?:(?P<cur>€|EUR)\s?)?(?:(?P<num>{_NUMBER})|(?P<word>(?i:{_WORD}))(?=\s))"
    rf"(?![\d])(?:\s(?P<mult>(?i:{_MULT}))\.?(?![\w]))?"
)
_PROVISION_TYPES = (RefType.SECTION, RefType.ARTICLE, RefType.ANNEX, RefType.EU_ACT)


def parse_number(text: str) -> Decimal | None:
    """A number in German or English notation: the last of two different separators is the decimal mark;
    one kind alone separates thousands when it recurs or is followed by exactly three digits."""
    text = text.strip()
    dot, comma = text.rfind("."), text.rfind(",")
    if dot >= 0 and comma >= 0:
        decimal_mark = "." if dot > comma else ","
        thousands = "," if decimal_mark == "." else "."
        text = text.replace(thousands, "").replace(decimal_mark, ".")
    elif dot >= 0 or comma >= 0:
        mark = "." if dot >= 0 else ","
        head, _, tail = text.rpartition(mark)
        grouped = text.count(mark) > 1 or (len(tail) == 3 and not head.startswith("0"))
        text = text.replace(mark, "") if grouped else text.replace(mark, ".")
    try:
        return Decimal(text)
    except InvalidOperation:
        return None


def _plain(value: Decimal) -> str:
    text = format(value.normalize(), "f")
    return text.rstrip("0").rstrip(".") if "." in text else text


def _overlaps(spans: Sequence[tuple[int, int]], start: int, end: int) -> bool:
    return any(s < end and start < e for s, e in spans)


def _dates(text: str, taken: list[tuple[int, int]]) -> list[ClaimToken]:
    out: list[ClaimToken] = []
    for pattern, (year, month, day) in _DATES:
        for m in pattern.finditer(text):
            if _overlaps(taken, m.start(), m.end()):
                continue
            raw_month = m.group(int(month))
            month_number = _MONTHS.get(raw_month.rstrip(".").casefold()) or (
                int(raw_month) if raw_month.isdigit() else 0
            )
            if not 1 <= month_number <= 12:
                continue
            key = f"{m.group(int(year))}-{month_number:02d}"
            if day:
                key += f"-{int(m.group(int(day))):02d}"
            taken.append((m.start(), m.end()))
            out.append(ClaimToken("date", key, m.group(), m.start(), m.end()))
    return out


def _provisions(text: str, document_laws: tuple[str, ...], taken: list[tuple[int, int]]) -> list[ClaimToken]:
    out: list[ClaimToken] = []
    for ref in detect_references(text, skip_headings=False):
        taken.append((ref.start, ref.end))  # "Satz 1", "[12]": no numbers of their own
        if ref.type not in _PROVISION_TYPES:
            continue
        if ref.section:
            key = f"§{ref.section}"
        elif ref.article:
            key = f"art{ref.article}"
        elif ref.annex:
            key = f"anlage{ref.annex}"
        else:
            continue
        if ref.law_normalized:
            laws: tuple[str, ...] = (ref.law_normalized,)
        elif ref.law and not ref.same_document:
            laws = (ref.law,)
        else:
            laws = document_laws
        mention = " ".join(ref.mention.split())
        out.append(ClaimToken("provision", key, mention, ref.start, ref.end, ref.absatz, laws))
    return out


_MARKER_BEFORE = re.compile(r"(?:^|[\s:;(])\(?$")


def _is_marker(text: str, start: int, end: int) -> bool:
    """Whether the bare number at ``text[start:end]`` numbers an Absatz ("(1) Der Grenzwert ...") or a list
    item ("1. für die Augenlinse ..."), at the start of the text or of a line or clause."""
    before = text[max(0, start - 2) : start]
    after = text[end : end + 2]
    if before.endswith("(") and after.startswith(")"):
        opening = text[: start - 1].rstrip()
        return not opening or opening[-1] in ".:;\n" or start - 1 == 0 or text[start - 2] == "\n"
    if after.startswith(".") and (len(after) < 2 or after[1].isspace()):
        opening = text[:start].rstrip(" \t")
        return not opening or opening[-1] in ":;\n" or opening.endswith(",")
    return False


def _quantities(text: str, taken: list[tuple[int, int]]) -> list[ClaimToken]:
    out: list[ClaimToken] = []
    for m in _QUANTITY_RE.finditer(text):
        if _overlaps(taken, m.start(), m.end()):
            continue
        value = parse_number(m["num"]) if m["num"] else Decimal(_NUMBER_WORDS[m["word"].casefold()])
        if value is None:
            continue
        if m["mult"]:
            value *= _MULTIPLIERS[m["mult"].casefold()]
        end = m.end()
        unit: tuple[str, TokenKind] | None = ("eur", "amount") if m["cur"] else None
        if unit is None and (u := _UNIT_RE.match(text, end)) is not None:
            spelled = u.group().lstrip()
            unit = _UNIT_OF.get(spelled) or _UNIT_OF[spelled.casefold()]
            end = u.end()
        if unit is None and m["word"]:
            continue  # "ein" without a unit is an article
        number = _plain(value)
        if unit is None and _is_marker(text, m.start(), end):
            continue  # "(1)" an Absatz, "1." a list item: where the text stands, not a figure it states
        if unit is None:
            out.append(ClaimToken("number", number, m.group(), m.start(), end))
        else:
            name, kind = unit
            key = number if kind == "percent" else f"{number} {name}"
            out.append(ClaimToken(kind, key, text[m.start() : end], m.start(), end))
    return out


def claim_tokens(text: str, *, document_laws: Iterable[str] = ()) -> list[ClaimToken]:
    """The checkable tokens of ``text`` in the order written. ``document_laws``: names of the law the text
    belongs to (file stem, abbreviation, title), given to its provisions that name no law."""
    taken: list[tuple[int, int]] = []
    tokens = _dates(text, taken)
    tokens += _provisions(text, tuple(n for n in document_laws if n), taken)
    tokens += _quantities(text, taken)
    return sorted(tokens, key=lambda t: (t.start, t.end))


def same_law(a: str, b: str) -> bool:
    """Whether two law names name one law: equal when folded, or one abbreviates the other
    ("AtG" and "Atomgesetz")."""
    fa, fb = fold(a), fold(b)
    if fa == fb:
        return True
    return fit_cost(a, b) is not None or fit_cost(b, a) is not None


def covers(found: ClaimToken, wanted: ClaimToken) -> bool:
    """Whether ``found`` (in the evidence) states what ``wanted`` (in the claim) states: the same key
    (a date also holds its year and month), for a provision a compatible Absatz and law."""
    if wanted.kind == "provision":
        if found.kind != "provision" or found.key != wanted.key:
            return False
        if wanted.detail and found.detail and wanted.detail != found.detail:
            return False
        return (
            not wanted.laws or not found.laws or any(same_law(a, b) for a in wanted.laws for b in found.laws)
        )
    if wanted.kind in ("number", "date") and found.kind == "date":
        return found.key == wanted.key or found.key.startswith(f"{wanted.key}-")
    if wanted.kind == "number" and found.kind in ("quantity", "amount", "percent"):
        return found.key.split(" ")[0] == wanted.key
    return found.kind == wanted.kind and found.key == wanted.key


def missing_tokens(claim: str | Sequence[ClaimToken], evidence: Sequence[ClaimToken]) -> list[ClaimToken]:
    """The tokens of ``claim`` (a text or its tokens) that no token of ``evidence`` covers."""
    wanted = claim_tokens(claim) if isinstance(claim, str) else claim
    return [w for w in wanted if not any(covers(f, w) for f in evidence)]
