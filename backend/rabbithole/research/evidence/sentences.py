"""Sentence spans of page text, by offsets, tuned for German legal text and plain English.

Extraction shows the model numbered sentences and cuts the quotes it picks from the stored text, so a
sentence is only ever a pair of offsets (never a copy of the text). The splitter is rule based and
deterministic:

* A blank line (the parser's paragraph break) and a page separator (``"\\n\\f"``) always end a span; spans
  never contain a form feed, so they never cross a page.
* An Absatz mark ``(1)``/``(2a)`` or a bullet at a line start always starts a span. A list marker
  (``1.``, ``a)``, ``aa)``, ``(a)``, ``-``) at a line start starts one when the line before ends a list item
  (``;``, ``,``, ``:``, ``.``, or "und"/"oder"/"sowie"/"and"/"or"), so each item of an enumeration is a span;
  a first item (``1.``, ``a)``, ``(a)``) starts one after any line, except in a date (``am\\n1. Januar``).
* ``.``/``!``/``?`` followed by whitespace and an upper-case letter, digit, ``(``, ``§`` or an opening quote
  ends a sentence, except after a known abbreviation (``Abs.``, ``z. B.``, ``i. V. m.``, ``e.g.``, ...), a
  single letter (initials, ``S.``, ``p.``), a dotted token (``e.g``, ``U.S``), a list marker at a line start
  or after a sentence (``2. Nachweis``, ``1a. Kernmaterialien``), a day before a month
  (``20. Juli 2001``) and an ordinal after an article or preposition (``am 1. Januar``,
  ``der 2. Durchführungsverordnung``).
* A span longer than ``max_chars`` is cut at the best break in its window: ``;`` then ``:`` then ``,``
  then a line break then a space (each preferred in the second half of the window), else hard at the limit.
  Clause punctuation ranks above a line break because PDF line breaks are only wraps.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from rabbithole.core.text import trim_span

__all__ = ["ABBREVIATIONS", "SentenceSpan", "split_sentences"]


@dataclass(frozen=True, slots=True)
class SentenceSpan:
    """A sentence as absolute offsets ``[start, end)``; the text is trimmed and never empty."""

    start: int
    end: int


def _words(text: str) -> frozenset[str]:
    return frozenset(text.lower().split())


# Compared case-insensitively (without the trailing dot); "No" is checked separately (case-sensitive),
# because "no." ends English sentences.
ABBREVIATIONS: frozenset[str] = _words(
    # German legal and general
    "Abs Nr Nrn Art Artt Buchst vgl bzw ggf insb insbes gem lit Ziff Kap Anl BGBl Dr Prof Bek "
    "Abschn Anh Anm Aufl Hrsg Bd Bl Rn Rdnr Rz Tz Fn Hs Halbs Alt Var UAbs Unterabs Verw Verf Tab "
    "Abb Nachw ff ca evtl inkl einschl entspr zzgl zzt max min mind sog usw usf Mio Mrd Jh Jhd Jt "
    "geb gez Str Tel Fa St Std Sek Vors Begr Beschl Urt Ber Erl Ausg Ges Verz Slg Nrs ABl "
    "Az Dipl Ing Nov Dez Jan Feb Okt Sept Aug Allg betr bspw bezgl bzgl Amtl BAnz GBl GVBl RGBl GMBl VkBl "
    "Drs Drucks"
    # English
    " etc cf Sec Secs pp Vol Vols ed eds Ch Chap Fig Figs Eq Eqs vs approx Mr Mrs Ms Jr Sr Inc Ltd "
    "Co Corp al Dept Univ Ref Refs Nos Para Paras Art App Suppl resp incl esp viz"
)

_MONTHS = _words(
    "januar jänner februar märz april mai juni juli august september oktober november dezember "
    "january february march may june july october december"
)
# A number followed by a dot after one of these words is an ordinal, not a sentence end.
_ORDINAL_CONTEXT = _words(
    "am im vom zum zur bis ab seit der die das den dem des ein eine einer eines einem dieser diese "
    "dieses je jeweils jedem jeden jeder the on by of"
)
_LIST_ENDING_WORDS = frozenset({"und", "oder", "sowie", "and", "or"})

_PARAGRAPH_BREAK = re.compile(r"\n[ \t\r\v]*\n")
_LINE = re.compile(r"[^\n]*")
_ABSATZ = re.compile(r"\(\d{1,3}[a-z]?\)\s|[•▪◦●]\s")
_LIST_MARKER = re.compile(r"(?:\d{1,3}[a-z]?\.|[a-z]{1,2}\)|\([a-z]{1,3}\)|[-–]) ")
_ORDINAL = re.compile(r"\d{1,4}[a-z]?")
_FIRST_ITEM = re.compile(r"(?:1\.|a\)|\(a\)|i\)|\(i\)) ")
_END_PUNCT = re.compile(r"(?:[.!?]+|…)[\"'»«“”’‘)\]]*(?=\s)")
_SENTENCE_START = re.compile(r"\s+[A-ZÄÖÜ0-9(§\[\"'„“«»‚‘]")
_WORD_AFTER = re.compile(r"\s*(\w+)")
_TRAILING_WORD = re.compile(r"(\w+)\s*$")


def split_sentences(text: str, offset: int = 0, *, max_chars: int = 500) -> list[SentenceSpan]:
    """Sentence spans of ``text`` as ``offset`` + index, in order, trimmed, non-overlapping, never empty."""
    if max_chars < 1:
        raise ValueError("max_chars must be at least 1")
    spans: list[SentenceSpan] = []
    seg_start = 0
    for seg_end in [*(m.start() for m in re.finditer("\f", text)), len(text)]:
        cuts = sorted(_boundaries(text, seg_start, seg_end))
        prev = seg_start
        for cut in [*cuts, seg_end]:
            start, end = trim_span(text, prev, cut)
            if start < end:
                spans.extend(
                    SentenceSpan(offset + s, offset + e) for s, e in _limit(text, start, end, max_chars)
                )
            prev = max(prev, cut)
        seg_start = seg_end + 1
    return spans


def _boundaries(text: str, start: int, end: int) -> set[int]:
    segment = text[start:end]
    cuts = {start + m.start() for m in _PARAGRAPH_BREAK.finditer(segment)}
    cuts |= {start + c for c in _line_start_cuts(segment)}
    cuts |= {start + c for c in _punctuation_cuts(segment)}
    return {c for c in cuts if start < c < end}


def _line_start_cuts(segment: str) -> list[int]:
    cuts: list[int] = []
    previous = ""  # content of the last non-blank line
    for match in _LINE.finditer(segment):
        line = match.group()
        content = line.lstrip()
        if not content:
            continue
        at = match.start() + len(line) - len(content)
        if previous:
            absatz = _ABSATZ.match(content + " ") is not None
            item = _LIST_MARKER.match(content + " ") is not None and (
                _ends_list_item(previous) or _opens_list(previous, content)
            )
            if absatz or item:
                cuts.append(at)
        previous = content.rstrip()
    return cuts


def _ends_list_item(line: str) -> bool:
    if line[-1] in ";,:.":
        return True
    word = _TRAILING_WORD.search(line)
    return word is not None and word.group(1).lower() in _LIST_ENDING_WORDS


def _opens_list(previous: str, line: str) -> bool:
    """A first item (``1.``, ``a)``, ``(a)``) after a line that ends in a word: "in denen\\n1. nach ..."."""
    marker = _FIRST_ITEM.match(line)
    if not marker:
        return False
    following = _WORD_AFTER.match(line, marker.end())
    if following and following.group(1).lower() in _MONTHS:
        return False  # "am\\n1. Januar"
    word = _TRAILING_WORD.search(previous)
    return not (word and word.group(1).lower() in _ORDINAL_CONTEXT)


def _punctuation_cuts(segment: str) -> list[int]:
    cuts: list[int] = []
    for match in _END_PUNCT.finditer(segment):
        after = match.end()
        if not _SENTENCE_START.match(segment, after):
            continue
        if "." in match.group()[:1] and not _dot_ends_sentence(segment, match.start(), after):
            continue
        cuts.append(after)
    return cuts


def _dot_ends_sentence(segment: str, dot: int, after: int) -> bool:
    """Whether the dot at ``dot`` (the first of its run) ends a sentence."""
    if segment.startswith("..", dot):
        return True  # an ellipsis before an upper-case word
    word = segment[_scan_back(segment, dot, _is_token_char) : dot]
    if not word:
        return True  # e.g. a dot after a closing bracket or quote
    bare = word.rstrip(".")
    if not bare:
        return True
    if _ORDINAL.fullmatch(bare):
        return _number_dot_ends_sentence(segment, dot - len(word), after)
    return not _is_abbreviation(bare)


def _is_abbreviation(bare: str) -> bool:
    """Whether a word before a dot (without the dot) abbreviates; ``bare`` is no plain number."""
    if bare.replace(".", "").isdigit():
        return False  # a full date or a version number: "v. 3.1.2022."
    if "." in bare:
        return True  # e.g., i.e, z.B, U.S, i.V.m
    if len(bare) == 1 and bare.isalpha():
        return True  # initials and one-letter abbreviations: S., p., v., z. B.
    return bare.lower() in ABBREVIATIONS or bare == "No"


def _number_dot_ends_sentence(segment: str, number_start: int, after: int) -> bool:
    i = number_start
    while i > 0 and segment[i - 1] in " \t":
        i -= 1
    if i == 0 or segment[i - 1] in "\n;:":
        return False  # a list marker at a line start: "2. Nachweis, dass ..."
    if segment[i - 1] == ".":
        word = segment[_scan_back(segment, i - 1, _is_token_char) : i - 1].rstrip(".")
        if not word or _ORDINAL.fullmatch(word) or not _is_abbreviation(word):
            return False  # a list marker after a sentence: "weiter. 3. Die Originale"
    following = _WORD_AFTER.match(segment, after)
    if following and following.group(1).lower() in _MONTHS:
        return False  # a date: "20. Juli 2001"
    end = i
    while end > 0 and not segment[end - 1].isalnum() and segment[end - 1] != "\n":
        end -= 1
    preceding = segment[_scan_back(segment, end, str.isalnum) : end]
    return preceding.lower() not in _ORDINAL_CONTEXT


def _is_token_char(char: str) -> bool:
    return char.isalnum() or char in "._"


def _scan_back(text: str, end: int, accept: Callable[[str], bool]) -> int:
    """Start of the run of accepted characters that ends at ``end``."""
    start = end
    while start > 0 and accept(text[start - 1]):
        start -= 1
    return start


_BREAK_KINDS: tuple[re.Pattern[str], ...] = (
    re.compile(r";"),
    re.compile(r":"),
    re.compile(r","),
    re.compile(r"\n"),
    re.compile(r"\s"),
)


def _limit(text: str, start: int, end: int, max_chars: int) -> list[tuple[int, int]]:
    """``[start, end)`` cut into trimmed pieces of at most ``max_chars`` characters."""
    pieces: list[tuple[int, int]] = []
    while end - start > max_chars:
        cut = _best_break(text, start, start + max_chars)
        piece = trim_span(text, start, cut)
        if piece[0] < piece[1]:
            pieces.append(piece)
        start, end = trim_span(text, cut, end)
    if start < end:
        pieces.append((start, end))
    return pieces


def _best_break(text: str, start: int, limit: int) -> int:
    """Where to cut a too-long span: just after the best break character in ``(start, limit]``."""
    half = start + (limit - start) // 2
    for lower in (half, start):
        for kind in _BREAK_KINDS:
            best = -1
            for match in kind.finditer(text, lower, limit):
                best = match.end()
            if best > start:
                return best
    return limit
