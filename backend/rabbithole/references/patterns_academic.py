"""Academic and technical references: [12], [3-5], [Townsend79], (Smith et al., 2019), "see section 4.2",
"siehe Abschnitt 3", standards ("KTA 1401", "DIN EN ISO 9001"), URLs.

Each ``parse_*`` function gets the text and the position where its trigger matched and returns the
references found there plus the end of the consumed text, or ``None``.
"""

from __future__ import annotations

import re
from typing import Final

from rabbithole.references.lawnames import collapse
from rabbithole.references.models import Reference, RefType
from rabbithole.references.patterns_legal import MONTHS_DE, MONTHS_EN, WS1

Found = tuple[list[Reference], int]
MAX_RANGE: Final = 50

# --- numbered citations [12], [3-5], [3, 7] ---------------------------------------------------------------
_CIT_NUM = r"\d{1,3}(?:\s*[-–]\s*\d{1,3})?"
NUMBERED_RE: Final = re.compile(rf"\[\s*({_CIT_NUM}(?:\s*[,;]\s*{_CIT_NUM})*)\s*\]")
_CIT_ITEM_RE: Final = re.compile(r"(\d{1,3})(?:\s*[-–]\s*(\d{1,3}))?")


def parse_numbered(text: str, pos: int) -> Found | None:
    m = NUMBERED_RE.match(text, pos)
    if not m or (pos > 0 and (text[pos - 1].isalnum() or text[pos - 1] == "_")):
        return None
    refs: list[Reference] = []
    base = m.start(1)
    for it in _CIT_ITEM_RE.finditer(m.group(1)):
        a, b = int(it.group(1)), int(it.group(2) or it.group(1))
        s, e = base + it.start(), base + it.end()
        if b < a or b - a > MAX_RANGE:
            b = a
        for n in range(a, b + 1):
            refs.append(
                Reference(
                    RefType.NUMBERED_CITATION,
                    m.group(),
                    m.start(),
                    m.end(),
                    s,
                    e,
                    key=str(n),
                    from_range=a < n < b,
                )
            )
    return refs, m.end()


# --- author-year -------------------------------------------------------------------------------------------
_NAME = (
    r"(?:(?:van|von|de|der|da|del|du|le|la|van der|von der)\s+)?"
    r"[A-ZÄÖÜ][a-zäöüßéèáàíóúñçø'’]+(?:-[A-ZÄÖÜ][a-zäöüß]+)?"
)
_AUTHORS = rf"{_NAME}(?:\s+et\s+al\.?|(?:,\s*{_NAME})*,?\s+(?:and|&|und)\s+{_NAME})?"
_YEAR = r"(?:1[6-9]|20)\d{2}[a-z]?"
_PAR_ITEM_RE: Final = re.compile(
    rf"(?:(?:see|e\.g\.,?|cf\.|vgl\.|siehe|z\.\s?B\.)\s+)?(?P<authors>{_AUTHORS}),?\s+(?P<years>{_YEAR}(?:,\s*{_YEAR})*)"
    rf"(?:,\s*(?:p|pp|S)\.\s*\d+(?:\s*[-–]\s*\d+)?)?"
)
_YEAR_RE: Final = re.compile(_YEAR)
_SEMI_RE: Final = re.compile(r"\s*;\s*")
_NARRATIVE_RE: Final = re.compile(rf"(?P<authors>{_AUTHORS})\s*\Z")
_NARRATIVE_YEAR_RE: Final = re.compile(rf"\((?P<years>{_YEAR}(?:,\s*{_YEAR})*)\)")
_KEY_RE: Final = re.compile(
    r"\[\s*([A-Z][A-Za-z-]*\+?\d{2}(?:\d{2})?[a-z]?(?:\s*[,;]\s*[A-Z][A-Za-z-]*\+?\d{2}(?:\d{2})?[a-z]?)*)\s*\]"
)
_ONE_KEY_RE: Final = re.compile(r"([A-Z][A-Za-z-]*)\+?(\d{2}(?:\d{2})?)[a-z]?")
#: Capitalised words that precede a year without being authors.
_NOT_AUTHORS: Final = frozenset((MONTHS_DE + "|" + MONTHS_EN).split("|")) | frozenset(
    """Stand Fassung Ausgabe Edition Version Revision Rev Jahr Jahre Year Since Seit Band Heft Vol Volume
    Table Figure Tabelle Abbildung Anlage Teil Nr Nummer Artikel Article Section Abschnitt Kapitel Chapter
    Bekanntmachung Gesetz Verordnung Richtlinie Juli Mai Herbst Frühjahr Sommer Winter Ende Anfang Mitte
    Januar Summer Spring Autumn Fall See Siehe Vgl In Im The Der Die Das Seite Page""".split()  # noqa: SIM905
)
_ARTICLE_BEFORE_RE: Final = re.compile(
    r"(?:\b(?:der|die|das|des|dem|den|the|a|an|ein|eine|einer|eines|im|vom)\s+)\Z"
)


def _author_ok(authors: str) -> bool:
    first = authors.split()[0].rstrip(",.")
    return first not in _NOT_AUTHORS


def parse_parenthetical(text: str, pos: int) -> Found | None:
    """(Smith et al., 2019) / (Smith and Jones 2019) / (Smith 2019; Lee 2020, p. 4)."""
    p = pos + 1
    found: list[tuple[str, str, int, int]] = []
    while True:
        m = _PAR_ITEM_RE.match(text, p)
        if not m or not _author_ok(m.group("authors")):
            return None
        for y in _YEAR_RE.finditer(m.group("years")):
            ys = m.start("years") + y.start()
            found.append((collapse(m.group("authors")), y.group(), m.start("authors"), ys + len(y.group())))
        p = m.end()
        sep = _SEMI_RE.match(text, p)
        if sep and p < len(text) and text[p] != ")":
            p = sep.end()
            continue
        break
    if p >= len(text) or text[p] != ")":
        return None
    end = p + 1
    mention = text[pos:end]
    refs = [
        Reference(RefType.AUTHOR_YEAR, mention, pos, end, s, e, authors=a, year=y, key=f"{a} {y}")
        for a, y, s, e in found
    ]
    return refs, end


def parse_narrative(text: str, pos: int) -> Found | None:
    """Smith et al. (2019) — the trigger is the "(2019)"; authors are read backwards."""
    ym = _NARRATIVE_YEAR_RE.match(text, pos)
    if not ym:
        return None
    window_start = max(0, pos - 80)
    am = _NARRATIVE_RE.search(text, window_start, pos)
    if not am or not _author_ok(am.group("authors")):
        return None
    authors = collapse(am.group("authors"))
    if " " not in authors and _ARTICLE_BEFORE_RE.search(text, max(0, am.start() - 12), am.start()):
        return None  # "das Gesetz (1990)": a noun with an article, not an author
    start, end = am.start(), ym.end()
    refs = []
    for y in _YEAR_RE.finditer(ym.group("years")):
        s = ym.start("years") + y.start()
        refs.append(
            Reference(
                RefType.AUTHOR_YEAR,
                text[start:end],
                start,
                end,
                s,
                s + len(y.group()),
                authors=authors,
                year=y.group(),
                key=f"{authors} {y.group()}",
            )
        )
    return refs, end


def parse_bracket_keys(text: str, pos: int) -> Found | None:
    """[Townsend79], [Smi19], [ABC+19; Lee2020]."""
    m = _KEY_RE.match(text, pos)
    if not m:
        return None
    refs = []
    base = m.start(1)
    for k in _ONE_KEY_RE.finditer(m.group(1)):
        refs.append(
            Reference(
                RefType.AUTHOR_YEAR,
                m.group(),
                m.start(),
                m.end(),
                base + k.start(),
                base + k.end(),
                key=k.group(),
                authors=k.group(1),
                year=k.group(2),
            )
        )
    return refs, m.end()


# --- document sections: "see section 4.2", "siehe Abschnitt 3", "in Kapitel 2.1", "Teil 2 Kapitel 1" ------
_DIV_NUM = r"(?:\d{1,3}(?:\.\d{1,3})*[a-z]?|[IVX]{1,5}|[A-Z](?:\.\d{1,3})*)(?![\w])"
_DIV_KW_EN = r"(?:[Ss]ections?|[Ss]ect?\.|[Cc]hapters?|Ch\.|[Aa]ppendix|[Aa]ppendices)"
_DIV_KW_DE = r"(?:Unterabschnitt(?:e?s)?|Abschnitt(?:e?s|en?)?|Kapitel[sn]?|Teil(?:e?s|en?)?)"
DIVISION_RE: Final = re.compile(rf"(?P<kw>{_DIV_KW_EN}|{_DIV_KW_DE})(?![\w]){WS1}(?P<num>{_DIV_NUM})")
_DIV_NEXT_RE: Final = re.compile(rf"{WS1}(?P<kw>{_DIV_KW_DE})(?![\w]){WS1}(?P<num>{_DIV_NUM})")
_LETTER_ONLY_RE: Final = re.compile(r"[A-Z]\Z")
_ZUM_BEFORE_RE: Final = re.compile(r"\b(?:zum|zu\s+einem|großen|größten|kleinen)\s+\Z")


_DIV_BASE: Final = {
    "Abschnitts": "Abschnitt",
    "Abschnittes": "Abschnitt",
    "Abschnitte": "Abschnitt",
    "Abschnitten": "Abschnitt",
    "Unterabschnitts": "Unterabschnitt",
    "Unterabschnittes": "Unterabschnitt",
    "Kapitels": "Kapitel",
    "Kapiteln": "Kapitel",
    "Teils": "Teil",
    "Teiles": "Teil",
    "Teile": "Teil",
    "Teilen": "Teil",
}
_DIV_LIST_RE: Final = re.compile(
    rf"(?:{WS1}?,{WS1}|{WS1}(?:und|oder|and|or|sowie){WS1}|{WS1}?,{WS1}(?:und|oder|and|or){WS1})(?P<num>{_DIV_NUM})"
)
_DIV_RANGE_RE: Final = re.compile(rf"{WS1}(?:bis|to|–|-){WS1}(?P<num>\d{{1,3}})(?![\w.])")


def _div_keyword(kw: str) -> str:
    kw = collapse(kw)
    if kw[0].islower() or kw in ("Sect.", "Sec.", "Ch."):
        kw = {"sect.": "Section", "sec.": "Section", "ch.": "Chapter"}.get(kw.lower(), kw.capitalize())
    if kw.endswith(("sections", "Sections", "chapters", "Chapters")):
        kw = kw[:-1]
    if kw == "Appendices":
        kw = "Appendix"
    return _DIV_BASE.get(kw, kw)


def parse_division(text: str, pos: int) -> Found | None:
    """One reference per listed unit: "Abschnitte 1, 2 und 3", "Kapiteln 1 bis 4", "Teil 2 Kapitel 1"."""
    m = DIVISION_RE.match(text, pos)
    if not m:
        return None
    kw = m.group("kw")
    num = m.group("num")
    german = kw[0] in "UAKT" and not kw.startswith(("Appendix", "Appendices"))
    if german and (_LETTER_ONLY_RE.match(num) or _ZUM_BEFORE_RE.search(text, max(0, pos - 14), pos)):
        return None  # "Teil A" belongs to an Anlage; "zum Teil 2 ..." is prose
    label = _div_keyword(kw)
    end = m.end()
    items: list[tuple[str, str, int, int, bool]] = []  # division, number, item span, from_range
    prefix: list[str] = []
    last_num, num_start, num_end = num, m.start("num"), m.end("num")
    while german:  # nested: "Teil 2 Kapitel 2 Abschnitt 8 Unterabschnitt 2"
        nxt = _DIV_NEXT_RE.match(text, end)
        if not nxt or _LETTER_ONLY_RE.match(nxt.group("num")):
            break
        prefix.append(f"{label} {last_num}")
        label = _div_keyword(nxt.group("kw"))
        last_num, num_start, num_end, end = nxt.group("num"), nxt.start("num"), nxt.end("num"), nxt.end()
    head = " ".join(prefix)
    items.append((f"{head} {label} {last_num}".strip(), last_num, num_start, num_end, False))
    while True:
        rg = _DIV_RANGE_RE.match(text, end)
        if rg and last_num.isdigit() and 0 < int(rg.group("num")) - int(last_num) <= MAX_RANGE:
            a, b = int(last_num), int(rg.group("num"))
            for n in range(a + 1, b + 1):
                items.append((f"{head} {label} {n}".strip(), str(n), num_start, rg.end("num"), n < b))
            last_num, end = str(b), rg.end()
            continue
        li = _DIV_LIST_RE.match(text, end)
        if not li:
            break
        last_num, end = li.group("num"), li.end()
        items.append((f"{head} {label} {last_num}".strip(), last_num, li.start("num"), li.end("num"), False))
    mention = text[pos:end]
    refs = [
        Reference(
            RefType.DOCUMENT_SECTION,
            mention,
            pos,
            end,
            s,
            e,
            section=n,
            division=d,
            same_document=True,
            from_range=r,
        )
        for d, n, s, e, r in items
    ]
    return refs, end


# --- standards -------------------------------------------------------------------------------------------
STANDARD_RE: Final = re.compile(
    r"(?P<body>DIN(?:\s+(?:EN|ISO|IEC|VDE|SPEC))*(?:\s+(?:ISO|IEC))?|EN(?:\s+(?:ISO|IEC))?|ISO(?:/IEC)?|IEC|VDE"
    r"|VDI|KTA|ICRP(?:\s+Publication)?|NUREG(?:/CR)?|ANSI(?:/[A-Z]+)?|ASTM|IEEE(?:\s+Std\.?)?|BS(?:\s+EN)?|ASME"
    r"|IAEA\s+(?:SSR|GSR|SSG|GSG|NS-G|TECDOC))"
    r"(?P<sep>\s+|-)(?P<num>[A-Z]?\d+(?:[.-]\d+)*(?:/[A-Z]{1,3}|/\d+)?(?::\d{4})?(?:-\d+)*)(?![\w])"
)


def parse_standard(text: str, pos: int) -> Found | None:
    m = STANDARD_RE.match(text, pos)
    if not m or (pos > 0 and (text[pos - 1].isalnum() or text[pos - 1] in "-/")):
        return None
    if m.group("sep") == "-" and not m.group("body").startswith(("NUREG", "IAEA")):
        return None  # "ISO-Einstufung", "DIN-Norm"
    if "\n\n" in m.group():
        return None
    designation = collapse(m.group())
    ref = Reference(
        RefType.STANDARD, m.group(), m.start(), m.end(), m.start("num"), m.end("num"), standard=designation
    )
    return [ref], m.end()


# --- URLs ------------------------------------------------------------------------------------------------
URL_RE: Final = re.compile(r"(?:https?://|ftp://|www\.)[^\s<>\"'\[\]{}|\\^`]+|doi:\s?10\.\d{4,9}/[^\s<>\"']+")
_TRAILING = ".,;:!?"


def parse_url(text: str, pos: int) -> Found | None:
    m = URL_RE.match(text, pos)
    if not m or (pos > 0 and (text[pos - 1].isalnum() or text[pos - 1] in "/.@")):
        return None
    url = m.group()
    while url and (url[-1] in _TRAILING or (url[-1] == ")" and url.count("(") < url.count(")"))):
        url = url[:-1]
    if len(url) < 8:
        return None
    end = pos + len(url)
    target = url
    if url.startswith("doi:"):
        target = "https://doi.org/" + url[4:].strip()
    elif url.startswith("www."):
        target = "http://" + url
    return [Reference(RefType.URL, url, pos, end, pos, end, url=target, external=True)], end
