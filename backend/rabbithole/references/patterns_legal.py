"""Precompiled building blocks for German/EU legal citation chains ("§ 5 Absatz 2 Satz 1 Nummer 3").

Whitespace inside a citation may contain at most one line break (hard-wrapped text, PDF lines, the
"\\n\\f" page separator), never a blank line: a reference does not run across paragraphs.
"""

from __future__ import annotations

import re
from typing import Final

# --- whitespace ----------------------------------------------------------------------------------------
_H = r"[ \t\u00a0\u202f]"
WS: Final = rf"{_H}*(?:\r?\n\f?{_H}*)?"  # optional, at most one line break
WS1: Final = rf"(?:{_H}+(?:\r?\n\f?{_H}*)?|\r?\n\f?{_H}*)"  # mandatory, at most one line break

MONTHS_DE: Final = (
    "Januar|Februar|März|April|Mai|Juni|Juli|August|September|Oktober|November|Dezember"
    "|Jan\\.|Feb\\.|Febr\\.|Mär\\.|Apr\\.|Jun\\.|Jul\\.|Aug\\.|Sept?\\.|Okt\\.|Nov\\.|Dez\\."
)
MONTHS_EN: Final = "January|February|March|April|May|June|July|August|September|October|November|December"

# --- levels of a citation chain ------------------------------------------------------------------------
ARTIKEL, SECTION, ANNEX, TEIL, ABSATZ, UNTERABSATZ, SATZ, HALBSATZ, NUMMER, BUCHSTABE = range(10)
TABELLE, SPALTE, ZEILE = 10, 11, 12
LEVEL_NAMES: Final = {
    ARTIKEL: "artikel",
    SECTION: "section",
    ANNEX: "annex",
    TEIL: "teil",
    ABSATZ: "absatz",
    UNTERABSATZ: "unterabsatz",
    SATZ: "satz",
    HALBSATZ: "halbsatz",
    NUMMER: "nummer",
    BUCHSTABE: "buchstabe",
    TABELLE: "tabelle",
    SPALTE: "spalte",
    ZEILE: "zeile",
}
#: Levels kept as free text in Reference.detail, with the label used there.
DETAIL_LABELS: Final = {
    UNTERABSATZ: "Unterabsatz",
    HALBSATZ: "Halbsatz",
    TABELLE: "Tabelle",
    SPALTE: "Spalte",
    ZEILE: "Zeile",
}
#: Levels a chain may start with (everything else only continues a chain).
START_LEVELS: Final = frozenset({ARTIKEL, SECTION, ANNEX, TEIL, ABSATZ, SATZ, NUMMER, BUCHSTABE})
#: Top levels: a restated keyword of these levels starts a new mention ("§ 5 und § 7").
TOP_LEVELS: Final = frozenset({ARTIKEL, SECTION, ANNEX})

_B = r"(?![\wäöüß])"  # end of a word keyword
KEYWORD_RE: Final = re.compile(
    "|".join(
        (
            rf"(?P<artikel>(?:Artikel[ns]?|Articles?){_B}|Art\.)",
            r"(?P<section>§§?)",
            rf"(?P<annex>(?:Anlagen?|Anhang(?:e?s)?|Anhängen?|Annex(?:es)?){_B})",
            rf"(?P<teil>Teil(?:e?s|en?)?{_B})",
            rf"(?P<absatz>(?:Absatz(?:es)?|Absätzen?){_B}|Abs\.)",
            rf"(?P<unterabsatz>(?:Unterabsatz(?:es)?|Unterabsätzen?){_B}|Unterabs\.)",
            rf"(?P<satz>(?:Satz(?:es)?|Sätzen?){_B})",
            rf"(?P<halbsatz>(?:Halbsatz(?:es)?|Halbsätzen?){_B})",
            rf"(?P<nummer>(?:Nummern?|Ziffern?){_B}|Nrn?\.|Ziff\.)",
            rf"(?P<buchstabe>(?:Buchstaben?s?){_B}|Buchst\.|lit\.)",
            rf"(?P<tabelle>Tabellen?{_B})",
            rf"(?P<spalte>Spalten?{_B})",
            rf"(?P<zeile>Zeilen?{_B})",
        )
    )
)
KEYWORD_LEVEL: Final = {name: level for level, name in LEVEL_NAMES.items()}
PLURAL_KEYWORDS: Final = frozenset(
    {
        "§§",
        "Artikeln",
        "Articles",
        "Anlagen",
        "Anhänge",
        "Anhängen",
        "Annexes",
        "Teile",
        "Teilen",
        "Absätze",
        "Absätzen",
        "Unterabsätze",
        "Unterabsätzen",
        "Sätze",
        "Sätzen",
        "Halbsätze",
        "Halbsätzen",
        "Nummern",
        "Nrn.",
        "Ziffern",
        "Buchstaben",
        "Tabellen",
        "Spalten",
        "Zeilen",
    }
)

_NUM = r"\d{1,3}[a-z]?(?![\w])"
NUMBER_RE: Final = {
    ARTIKEL: re.compile(_NUM),
    SECTION: re.compile(r"\d{1,4}[a-z]{0,2}(?![\w])"),
    ANNEX: re.compile(r"\d{1,2}[a-z]?(?![\w])|[IVXL]{1,6}(?![\w])"),
    TEIL: re.compile(r"[A-Z](?![\w])|[IVX]{1,4}(?![\w])|\d{1,2}(?![\w])"),
    ABSATZ: re.compile(r"\d{1,2}[a-z]?(?![\w])|[a-h](?![\w])"),  # "Abs. a" in treaties
    UNTERABSATZ: re.compile(r"\d{1,2}(?![\w])"),
    SATZ: re.compile(r"\d{1,2}(?![\w])"),
    HALBSATZ: re.compile(r"\d(?![\w])"),
    NUMMER: re.compile(r"\d{1,3}[a-z]{0,2}(?:\.\d{1,3}[a-z]?)*(?![\w])|[ivx]{1,5}(?![\w])"),
    BUCHSTABE: re.compile(r"(?:[a-z]{1,2}|[A-Z])(?![\w])"),
    TABELLE: re.compile(_NUM),
    SPALTE: re.compile(_NUM),
    ZEILE: re.compile(_NUM),
}

#: After a number: things that show it is not a citation number (date, decimal, fraction, time, ratio).
NUMBER_VETO_RE: Final = re.compile(rf"[.,:/]\d|\.{WS}(?:{MONTHS_DE})(?![\w])|{_H}*(?:%|‰|°)")
#: After a *continuation* number ("und 5"): units and amounts make it a quantity, not a citation.
UNIT_VETO_RE: Final = re.compile(
    rf"{WS}(?:Jahre?n?|Monate?n?|Wochen?|Tage?n?|Stunden?|Minuten?|Sekunden?|Prozent|Euro|EUR|Cent"
    rf"|Mio\.|Millionen|Milliarden|[kMGT]?Bq|Becquerel|[mµμn]?Sv|(?:Milli|Mikro|Nano)?[Ss]ievert|[mµ]?Gy|Gray"
    rf"|k?m|Meter[ns]?|Kilometer[ns]?|Zentimeter[ns]?|Millimeter[ns]?|[mk]?g|Gramm|Kilogramm|Tonnen?|Liter[ns]?"
    rf"|Personen|Stück|Exemplare?n?|Mal|mal)(?![\w])"
)
#: "\n2.  die ...", "\nb)  ..." — a list item marker at the start of a line, not a continued citation.
LIST_MARKER_RE: Final = re.compile(rf"[.)]{_H}")

RANGE_RE: Final = re.compile(rf"{WS}(?:bis|–|-){WS}")
#: "Teil A" / "Teil B" (a part of an Anlage), as opposed to "Teil 2" (a division of the law).
TEIL_LETTER_RE: Final = re.compile(r"[A-Z](?![\w])")
SEP_RE: Final = re.compile(
    rf"{WS}(?:,{WS}(?:(?:und|oder|sowie|bzw\.|and|or){WS1})?|(?:und/oder|oder/und|und|oder|sowie|bzw\.|and|or){WS1})"
)
#: Detail after a number: "erster Halbsatz", "zweite Alternative", "ff.".
DETAIL_RE: Final = re.compile(
    rf"{WS1}(?P<d>(?:erste[rn]?|zweite[rn]?|dritte[rn]?|vierte[rn]?|letzte[rn]?){WS1}"
    rf"(?:Halbsatz(?:es)?|Alternative|Variante)(?![\w]))|{_H}*(?P<ff>ff?\.)"
)
#: Between two mentions of one citation group.
CONNECTOR_RE: Final = re.compile(
    rf"{WS}(?P<comma>,)?{WS}"
    rf"(?:(?P<ivm>(?:(?:jeweils{WS1})?auch{WS1}|jeweils{WS1})?(?:in{WS1}Verbindung{WS1}mit|i\.{WS}V\.{WS}m\.))"
    rf"|(?P<conj>und/oder|oder/und|und|oder|sowie|bzw\.|and|or))?{WS}"
    rf"(?P<prep>(?:nach|gemäß|von|aus|im{WS1}Sinne|auf{WS1}Grund|aufgrund|in|mit){WS1})?"
    rf"(?:(?:de[rmns]|die|das){WS1})?"
)

# --- things that are never citations: gazette citations, amendment notes ------------------------------
_GAZ_TOKEN = (
    rf"(?:Teil|Nr\.|Nummer|Seite|S\.|L|C|AT|B|I{{1,3}}|vom|Jahrgang|\d[\d./]*|[,–-]|\(Nr\.{WS}\d+\)"
    rf"|{MONTHS_DE})"
)
GAZETTE_RE: Final = re.compile(
    rf"(?:BGBl\.?|[A-Z][A-Za-z]{{0,4}}Bl\.|Bundesgesetzblatt(?:e?s)?|Amtsblatt(?:e?s)?(?:{WS1}der{WS1}Europäischen{WS1}"
    rf"(?:Union|Gemeinschaften?))?|BAnz\.?|Bundesanzeiger[s]?)(?:{WS}{_GAZ_TOKEN}(?![\w]))*"
)
#: "G v. 10.8.2021 I 3530 (Nr. 53)": amendment notes, matched from the "v.".
AMENDMENT_RE: Final = re.compile(
    rf"v\.{WS}\d{{1,2}}\.{WS}\d{{1,2}}\.{WS}\d{{2,4}}(?:{WS1}(?:I{{1,3}}|S\.){WS1}\d+)*(?:{WS1}\(Nr\.{WS}\d+\))?"
)
AMENDMENT_BEFORE_RE: Final = re.compile(rf"(?<![\w])(?:[GV]|Bek\.|VO|Ges\.){WS1}\Z")

# --- heading labels ("### § 7 Genehmigung von Anlagen") -------------------------------------------------
HEADING_PREFIX_RE: Final = re.compile(rf"\f?{_H}*(?:#{{1,6}}{_H}+)?(?:\(X+\){_H}*)?\Z")
HEADING_AFTER_RE: Final = re.compile(
    rf"{_H}*(?:[-–—:]|\((?:weggefallen|[A-ZÄÖÜ][^()\n]*)\)|(?!(?:Abs\.|Absatz|Absätze|Satz|Sätze|Nr\.|Nummer|Buchst|Anlage|Teil"
    rf"|Kapitel|Abschnitt)(?![\w]))[A-ZÄÖÜ][\wäöüß])"
)
