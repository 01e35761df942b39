"""A figure the quote states, put where the quote gives another (issue 30): the figure's place.

"Die Behörde kann für ein einzelnes Jahr 100 Millisievert zulassen." under a quote that allows "für ein
einzelnes Jahr ... 50 Millisievert, wobei in fünf aufeinander folgenden Jahren insgesamt 100 Millisievert
nicht überschritten werden dürfen" states a figure of its quote, but for another thing: the five-year total
written as the single year's limit. So does "unter 18 Jahren ... 20 Millisievert" under a quote giving 20
for adults and 1 for persons under 18. What differs is what each figure is a figure of.

A figure's place is the words around it (``figure_places``): its clause (a sentence cut at ``,``/``;``/
``:`` and before the items of an enumeration; a clause holding several figures of the unit cut before the
last "und"/"oder" between two of them, else halfway), a clause without a figure given to the next figure
of its sentence (else the last), the lead-in of an enumeration to all its figures; as content words
(stopwords out, folded, without an inflection ending) and the values of other figures ("#18" for "unter 18
Jahren", "under 18"; not list markers). Its scope adds the words of its Absatz (the text from a "(3)"
marker to the next; the whole text without one) up to the end of its sentence: "unter 18 Jahren" in the
first sentence of StrlSchG § 78 (3) holds for the figures of its second sentence too, while a rule's
figure does not take the words of the exception that follows it ("Der Grenzwert beträgt 20 mSv. Für
Personen unter 18 Jahren beträgt er 1 mSv.").

For each claim figure that its quotes state where they give another figure of the same unit, the claim's
place (its words around the figure) is set against the places of the same figure and of each other one.
Only words that tell them apart count: the claim's words at the other figure's place and in no scope of
the same figure (``towards``; the scope of a figure in the other figure's own sentence is its place
alone), and the claim's words in those scopes but not at the other place (``away``). The claim puts its
figure in the other's place, clearly, when ``away`` is empty and ``towards`` holds ``MIN_TOWARDS`` words,
or one where more than ``MIN_SHARE`` of the claim's words around the figure stand at the other place. A
claim whose words point to neither place (an English claim under a German quote but for a number, a claim
that names nothing around its figure) is not flagged this way.

    misplaced_figures((claim, claim_tokens(claim)), [(quote, claim_tokens(quote))])
    # [Misplaced(token=<100 Millisievert>, quoted=<50 Millisievert>, words=("behörde", ...))]

Pure: no I/O, no model.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from rabbithole.research.evidence.claim_tokens import ClaimToken, covers
from rabbithole.research.evidence.sentences import split_sentences
from rabbithole.retrieval.tokenizer import STOPWORDS, raw_tokens

__all__ = ["MIN_SHARE", "MIN_TOWARDS", "Misplaced", "Place", "Read", "figure_places", "misplaced_figures"]

#: a text as the check reads it: whitespace normalised, with its ``claim_tokens``
Read = tuple[str, Sequence[ClaimToken]]

#: the claim's words at another figure's place (and in no scope of the same figure) that are enough alone
MIN_TOWARDS = 2
#: the share of the claim's words around its figure at the other place above which one such word is enough
MIN_SHARE = 0.5
_FIGURE_KINDS = frozenset({"quantity", "amount", "percent"})
_VALUE_KINDS = frozenset({"quantity", "amount", "percent", "number"})
_CLAUSE_END = re.compile(r"[,;:](?=\s)")
# an item of an enumeration run into one line ("... im Kalenderjahr und 3. für die Hände, ..."): a clause
_LIST_ITEM = re.compile(r"(?<=\s)(?:\d{1,2}[a-z]?\.|[a-z]{1,2}\))(?=\s+[a-zäöü])")
_ABSATZ = re.compile(r"\(\d{1,3}[a-z]?\)\s")
_ORDINAL = re.compile(r"\.\s+[a-zäöü]")
_CONJUNCTION = re.compile(r"\s(?:und|oder|sowie|bzw\.|and|or)\s", re.I)
_MIN_WORD_CHARS = 3
_MIN_STEM_CHARS = 4
# inflection endings (German, and the English plural): "effektiven" = "effektive" = "effektiv", "Jahren" =
# "Jahr"; words are not cut shorter, so compounds stay apart ("Höchstbetrag", "Höchstleistung")
_ENDINGS = ("ern", "en", "er", "es", "em", "e", "n", "s")


@dataclass(frozen=True, slots=True)
class Place:
    """Where a figure stands in its text: ``words`` of its own clauses, the index of its ``sentence``,
    ``scope`` the words of its Absatz up to the end of its sentence."""

    words: frozenset[str]
    sentence: int
    scope: frozenset[str]


@dataclass(frozen=True, slots=True)
class Misplaced:
    """A claim's figure (``token``, as the claim writes it) that its quotes give for another thing: at
    the place the claim puts it they give ``quoted`` (the quote's token); ``words`` are the claim's words
    that point there."""

    token: ClaimToken
    quoted: ClaimToken
    words: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class _Figure:
    token: ClaimToken
    place: Place
    source: int  # which text: the claim or one quote


def _stem(word: str) -> str:
    for ending in _ENDINGS:
        if word.endswith(ending) and len(word) - len(ending) >= _MIN_STEM_CHARS:
            return word[: -len(ending)]
    return word


def _words(
    text: str, span: tuple[int, int], tokens: Sequence[ClaimToken], figures: Sequence[ClaimToken]
) -> set[str]:
    """The content words of ``text`` in ``span`` with every token blanked out, and the value of each
    other number, amount, percentage or quantity in it; not the ``figures`` themselves, ordinals ("1. für
    die Augenlinse") or Absatz marks ("(3)")."""
    start, end = span
    chars = list(text[start:end])
    values: set[str] = set()
    for token in tokens:
        if token.end <= start or token.start >= end:
            continue
        for i in range(max(start, token.start), min(end, token.end)):
            chars[i - start] = " "
        marker = _ORDINAL.match(text, token.end) or text[token.start - 1 : token.end + 1] == f"({token.text})"
        if token.kind in _VALUE_KINDS and token not in figures and not marker:
            values.add("#" + token.key.partition(" ")[0])
    words = raw_tokens("".join(chars))
    return values | {
        _stem(w) for w in words if w.isalpha() and len(w) >= _MIN_WORD_CHARS and w not in STOPWORDS
    }


def _cut(text: str, left: ClaimToken, right: ClaimToken) -> int:
    """Where the words between two figures of one clause part: before the last conjunction between them
    ("6 mSv für die effektive Dosis und jeweils 150 mSv für die Haut"), else at the space nearest halfway."""
    joints = list(_CONJUNCTION.finditer(text, left.end, right.start))
    if joints:
        return joints[-1].start()
    middle = (left.end + right.start) // 2
    spaces = [i for i in range(left.end, right.start) if text[i].isspace()]
    return min(spaces, key=lambda i: abs(i - middle)) if spaces else middle


def _pieces(text: str, start: int, end: int, figures: Sequence[ClaimToken]) -> list[tuple[int, int, int]]:
    """The sentence ``[start, end)`` as pieces (start, end, index in ``figures`` of the figure the piece
    holds; -1: none): cut into clauses, a clause holding several figures cut between them."""
    cuts = sorted(
        {
            start,
            *(m.end() for m in _CLAUSE_END.finditer(text, start, end)),
            *(m.start() for m in _LIST_ITEM.finditer(text, start, end)),
        }
    )
    pieces: list[tuple[int, int, int]] = []
    for a, b in zip(cuts, [*cuts[1:], end], strict=True):
        inside = [i for i, f in enumerate(figures) if a <= f.start < b]
        if not inside:
            pieces.append((a, b, -1))
            continue
        for here, after in zip(inside, [*inside[1:], None], strict=True):
            hi = b if after is None else _cut(text, figures[here], figures[after])
            pieces.append((a, hi, here))
            a = hi
    return pieces


def figure_places(text: str, tokens: Sequence[ClaimToken], figures: Sequence[ClaimToken]) -> list[Place]:
    """The place of each of ``figures`` (tokens of ``text`` of one unit, in order) in ``text``, whose
    tokens are ``tokens``."""
    words: list[set[str]] = [set() for _ in figures]
    sentence_of = [-1] * len(figures)
    scope_of: list[frozenset[str]] = [frozenset()] * len(figures)
    scope: set[str] = set()  # the words of the Absatz so far
    for n, sentence in enumerate(split_sentences(text, max_chars=max(1, len(text)))):
        if _ABSATZ.match(text, sentence.start):
            scope = set()
        scope |= _words(text, (sentence.start, sentence.end), tokens, figures)
        pieces = _pieces(text, sentence.start, sentence.end, figures)
        owners = [i for _, _, i in pieces if i >= 0]
        listed = _LIST_ITEM.search(text, sentence.start, sentence.end) is not None
        for k, (a, b, owner) in enumerate(pieces):
            later = [i for _, _, i in pieces[k + 1 :] if i >= 0]
            if owner >= 0:
                heirs = [owner]
            elif listed and len(later) == len(owners) > 1:  # an enumeration's lead-in: all its figures'
                heirs = later
            else:  # a clause without a figure: the next figure's of its sentence, else the last's
                heirs = later[:1] or owners[-1:]
            for i in heirs:
                words[i] |= _words(text, (a, b), tokens, figures)
        for i in owners:
            sentence_of[i], scope_of[i] = n, frozenset(scope)
    return [Place(frozenset(w), sentence_of[i], scope_of[i]) for i, w in enumerate(words)]


def _by_unit(tokens: Sequence[ClaimToken]) -> dict[tuple[str, str], list[ClaimToken]]:
    """The figures among ``tokens`` by unit (kind and unit: ("quantity", "msv"), ("amount", "eur"))."""
    by_unit: dict[tuple[str, str], list[ClaimToken]] = {}
    for token in tokens:
        if token.kind in _FIGURE_KINDS:
            by_unit.setdefault((token.kind, token.key.partition(" ")[2]), []).append(token)
    return by_unit


def _placed(read: Read, figures: Sequence[ClaimToken], source: int) -> list[_Figure]:
    text, tokens = read
    return [_Figure(t, p, source) for t, p in zip(figures, figure_places(text, tokens, figures), strict=True)]


def misplaced_figures(
    claim: Read, quotes: Sequence[Read], *, min_towards: int = MIN_TOWARDS, min_share: float = MIN_SHARE
) -> list[Misplaced]:
    """The claim's figures that its quotes state but give for another thing, in the order written.
    ``claim`` and each quote are a text (whitespace normalised by the caller) with its ``claim_tokens``."""
    wanted = _by_unit(claim[1])
    quoted: dict[tuple[str, str], list[_Figure]] = {}
    for source, quote in enumerate(quotes):
        for unit, figures in _by_unit(quote[1]).items():
            if unit in wanted:
                quoted.setdefault(unit, []).extend(_placed(quote, figures, source))
    out: list[Misplaced] = []
    for unit, figures in wanted.items():
        if len({q.token.key for q in quoted.get(unit, [])}) < 2:  # no other figure of this unit quoted
            continue
        for figure in _placed(claim, figures, -1):
            found = _swap(figure, quoted[unit], min_towards, min_share)
            if found is not None:
                out.append(found)
    return sorted(out, key=lambda m: m.token.start)


def _swap(figure: _Figure, quoted: Sequence[_Figure], min_towards: int, min_share: float) -> Misplaced | None:
    """The other figure whose place the claim clearly puts its figure in (the one its words point to
    most); None where there is none."""
    same = [q for q in quoted if covers(q.token, figure.token)]
    others = [q for q in quoted if not covers(q.token, figure.token)]
    claimed = figure.place.words
    if not same or not others or not claimed:
        return None
    best: tuple[tuple[int, float], Misplaced] | None = None
    for other in others:
        # the same figure's scope: its place, and its Absatz unless the other figure stands in its sentence
        here = frozenset().union(
            *(
                s.place.words
                if (s.source, s.place.sentence) == (other.source, other.place.sentence)
                else s.place.words | s.place.scope
                for s in same
            )
        )
        towards = (claimed & other.place.words) - here
        away = (claimed & here) - other.place.words
        share = len(claimed & other.place.words) / len(claimed)
        if away or not towards or (len(towards) < min_towards and share <= min_share):
            continue
        rank = (len(towards), share)
        if best is None or rank > best[0]:
            best = (rank, Misplaced(figure.token, other.token, tuple(sorted(towards))))
    return None if best is None else best[1]
