"""Recursive-descent parser for German/EU legal citation chains, used by :mod:`.grammar`.

A chain is one or more *mentions* ("§ 6 Absatz 3", "in Verbindung mit Absatz 2 Nummer 4") joined by
connectors; each mention is a tree of numbered units (levels in :mod:`.patterns_legal`) whose leaves become
:class:`~rabbithole.references.models.Reference` objects. See the grammar module docstring for the rules.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from typing import Final

from rabbithole.references import patterns_legal as pl
from rabbithole.references.lawnames import LawMatch, collapse, match_law_name
from rabbithole.references.models import Reference, RefType, RelativeTo

_LAW_LEAD_RE: Final = re.compile(rf"{pl.WS1}(?:of{pl.WS1}(?:the{pl.WS1})?)?")
_LAW_LEAD_COMMA_RE: Final = re.compile(rf"{pl.WS},{pl.WS1}")
_PAREN_SUB_RE: Final = re.compile(r"\((\d{1,2}[a-z]?)\)(?:\(([a-z]{1,2})\))?")
_WS_RE: Final = re.compile(pl.WS)
_CHILDREN: Final = {
    pl.ARTIKEL: frozenset({pl.SECTION, pl.ABSATZ, pl.UNTERABSATZ, pl.SATZ, pl.NUMMER, pl.BUCHSTABE}),
    pl.SECTION: frozenset({pl.ABSATZ, pl.SATZ, pl.NUMMER, pl.BUCHSTABE}),
    pl.ANNEX: frozenset({pl.TEIL, pl.NUMMER, pl.BUCHSTABE, pl.TABELLE, pl.SPALTE, pl.ZEILE}),
    pl.TEIL: frozenset({pl.NUMMER, pl.BUCHSTABE, pl.TABELLE, pl.SPALTE, pl.ZEILE}),
    pl.ABSATZ: frozenset({pl.UNTERABSATZ, pl.SATZ, pl.NUMMER, pl.BUCHSTABE}),
    pl.UNTERABSATZ: frozenset({pl.SATZ, pl.NUMMER, pl.BUCHSTABE}),
    pl.SATZ: frozenset({pl.HALBSATZ, pl.NUMMER, pl.BUCHSTABE}),
    pl.HALBSATZ: frozenset({pl.NUMMER, pl.BUCHSTABE}),
    # in Anlagen a Satz may sit below a Nummer/Buchstabe: "Nummer 3 Satz 2", "Buchstabe e Satz 1"
    pl.NUMMER: frozenset({pl.SATZ, pl.BUCHSTABE, pl.TABELLE, pl.SPALTE, pl.ZEILE}),
    pl.BUCHSTABE: frozenset({pl.SATZ}),
    pl.TABELLE: frozenset({pl.SPALTE, pl.ZEILE}),
    pl.SPALTE: frozenset({pl.ZEILE}),
    pl.ZEILE: frozenset(),
}
_BARE_TYPE: Final = {
    pl.ABSATZ: RefType.PARAGRAPH,
    pl.SATZ: RefType.SENTENCE,
    pl.NUMMER: RefType.ITEM,
    pl.BUCHSTABE: RefType.ITEM,
}
_RELATIVE: Final[dict[int, RelativeTo]] = {
    pl.ABSATZ: "section",
    pl.SATZ: "absatz",
    pl.NUMMER: "absatz",
    pl.BUCHSTABE: "nummer",
}
_MAX_RANGE: Final = 200

Comp = tuple[int, str, int, int, bool]  # level, value, item start, item end, from_range


@dataclass(slots=True)
class _Path:
    comps: list[Comp]
    details: list[str] = field(default_factory=list)


@dataclass(slots=True)
class _Mention:
    start: int
    end: int
    top: int
    paths: list[_Path]
    law: LawMatch | None
    link: str  # how it joins the previous mention: "", "list", "list_prep", "ivm", "inherit"
    inherited: bool = False


def expand_range(a: str, b: str) -> list[tuple[str, bool]] | None:
    """'8','10' -> 8, 9, 10; '7','7d' -> 7, 7a..7d; '21a','23' -> 21a, 22, 23; 'a','c' -> a, b, c."""
    ma, mb = re.fullmatch(r"(\d*)([a-z]?)", a), re.fullmatch(r"(\d*)([a-z]?)", b)
    if not ma or not mb or bool(ma.group(1)) != bool(mb.group(1)):
        return None
    if not ma.group(1):  # letters
        ca, cb = ord(a[-1]), ord(b[-1])
        if len(a) != 1 or len(b) != 1 or cb < ca:
            return None
        return [(chr(c), ca < c < cb) for c in range(ca, cb + 1)]
    na, la, nb, lb = int(ma.group(1)), ma.group(2), int(mb.group(1)), mb.group(2)
    if nb < na or nb - na > _MAX_RANGE or (na == nb and (not lb or (la and lb <= la))):
        return None
    out: list[str] = []
    if na == nb:
        out = [f"{na}{chr(c)}" for c in range(ord(la) if la else ord("a"), ord(lb) + 1)]
        if not la:
            out.insert(0, str(na))
    else:
        out = [a] + [str(n) for n in range(na + 1, nb + 1)]
        if lb:
            out += [f"{nb}{chr(c)}" for c in range(ord("a"), ord(lb) + 1)]
    return [(v, v not in (a, b)) for v in out]


def _endpoints_only(a: str, b: str) -> bool:
    """A range that cannot be expanded but is still one: dotted numbers or a reversed range. A span
    beyond _MAX_RANGE ("§ 5 bis 2025") is not a range at all."""
    if "." in a or "." in b:
        return True
    da, db = re.match(r"\d*", a), re.match(r"\d*", b)
    return bool(da and db and da.group() and db.group() and int(db.group()) < int(da.group()))


class ChainParser:
    """Parses citation chains in ``text``; :class:`rabbithole.references.grammar._Scanner` extends it."""

    def __init__(self, text: str, skip_headings: bool) -> None:
        self.text = text
        self.skip_headings = skip_headings

    def number(self, level: int, pos: int, continuation: bool) -> re.Match[str] | None:
        text = self.text
        m = pl.NUMBER_RE[level].match(text, pos)
        if not m or pl.NUMBER_VETO_RE.match(text, m.end()):
            return None
        if continuation:
            if pl.UNIT_VETO_RE.match(text, m.end()):
                return None
            ls = text.rfind("\n", 0, pos) + 1
            if not text[ls:pos].strip(" \t\f") and pl.LIST_MARKER_RE.match(text, m.end()):
                return None  # "oder\n2.  die ...": the next list item
        return m

    def is_heading_label(self, start: int, label_end: int) -> bool:
        text = self.text
        ls = text.rfind("\n", 0, start) + 1
        prefix = text[ls:start]
        if not pl.HEADING_PREFIX_RE.match(prefix):
            return False
        if "#" in prefix:
            return True
        if not pl.HEADING_AFTER_RE.match(text, label_end):
            return False
        if ls == 0:
            return True
        # Plain text (PDF): a heading follows a finished line: blank, end of a sentence, another heading
        # ("Kapitel 1 - Strahlenschutzgrundsätze"), a running page header ("AtG"). A line ending in a
        # lower-case word ("... im Sinne des") continues a sentence: "§ 7 Verwendung finden" is a citation.
        prev = text[text.rfind("\n", 0, ls - 1) + 1 : ls - 1].strip(" \t\r\f")
        return not prev or prev[-1] in ".:;!?)" or not prev.split()[-1][0].islower()

    def parse_item(self, level: int, pos: int, continuation: bool) -> tuple[list[_Path], int] | None:
        text = self.text
        num = self.number(level, pos, continuation)
        if not num:
            return None
        values: list[tuple[str, int, int, bool]] = [(num.group(), num.start(), num.end(), False)]
        end = num.end()
        rng = pl.RANGE_RE.match(text, end)
        if rng:
            q = rng.end()
            kw = pl.KEYWORD_RE.match(text, q)  # "Nummer 3 bis Nummer 8"
            if kw and pl.KEYWORD_LEVEL[kw.lastgroup or ""] == level and level not in pl.TOP_LEVELS:
                q = _WS_RE.match(text, kw.end()).end()  # type: ignore[union-attr]
            num2 = self.number(level, q, True)
            expanded = expand_range(num.group(), num2.group()) if num2 else None
            if num2 and expanded:
                values = [(v, num.start(), num2.end(), mid) for v, mid in expanded]
                end = num2.end()
            elif num2 and _endpoints_only(num.group(), num2.group()):  # "2.1 bis 2.4", "10 bis 8"
                values.append((num2.group(), num2.start(), num2.end(), False))
                end = num2.end()
        details: list[str] = []
        if level == pl.ARTIKEL:
            ps = _PAREN_SUB_RE.match(text, end)
            if ps:  # English "Article 3(2)(a)"
                sub: list[Comp] = [(pl.ABSATZ, ps.group(1), ps.start(1), ps.end(1), False)]
                if ps.group(2):
                    sub.append((pl.BUCHSTABE, ps.group(2), ps.start(2), ps.end(2), False))
                paths = [_Path([(level, v, s, e, r), *sub]) for v, s, e, r in values]
                return paths, ps.end()
        while True:
            d = pl.DETAIL_RE.match(text, end)
            if not d:
                break
            details.append(collapse(d.group("d") or d.group("ff")))
            end = d.end()
        children: list[_Path] = []
        p = end
        while True:
            q = p
            if children:
                sep = pl.SEP_RE.match(text, p)
                if not sep:
                    break
                q = sep.end()
            q = _WS_RE.match(text, q).end()  # type: ignore[union-attr]
            kw = pl.KEYWORD_RE.match(text, q)
            if not kw or pl.KEYWORD_LEVEL[kw.lastgroup or ""] not in _CHILDREN[level]:
                break
            sub_list = self.parse_list(pl.KEYWORD_LEVEL[kw.lastgroup or ""], kw.end())
            if not sub_list:
                break
            children.extend(sub_list[0])
            p = end = sub_list[1]
        paths = []
        for v, s, e, r in values:
            if children:
                for ch in children:
                    paths.append(_Path([(level, v, s, e, r), *ch.comps], details + ch.details))
            else:
                paths.append(_Path([(level, v, s, e, r)], list(details)))
        return paths, end

    def parse_list(self, level: int, pos: int) -> tuple[list[_Path], int] | None:
        text = self.text
        start = _WS_RE.match(text, pos).end()  # type: ignore[union-attr]
        first = self.parse_item(level, start, False)
        if not first:
            return None
        paths, p = first
        while True:
            sep = pl.SEP_RE.match(text, p)
            if not sep:
                break
            q = sep.end()
            item = None
            kw = pl.KEYWORD_RE.match(text, q)
            if kw:
                if pl.KEYWORD_LEVEL[kw.lastgroup or ""] == level and level not in pl.TOP_LEVELS:
                    item = self.parse_item(level, _WS_RE.match(text, kw.end()).end(), False)  # type: ignore[union-attr]
            else:
                item = self.parse_item(level, q, True)
            if not item:
                break
            paths.extend(item[0])
            p = item[1]
        return paths, p

    def law_phrase(self, pos: int, allow_comma: bool) -> LawMatch | None:
        text = self.text
        leads = [_LAW_LEAD_RE.match(text, pos)]
        if allow_comma:
            leads.append(_LAW_LEAD_COMMA_RE.match(text, pos))
        for lead in leads:
            if lead:
                lm = match_law_name(text, lead.end(), in_chain=True)
                if lm:
                    return lm
        return None

    def chain(self, pos: int) -> tuple[list[Reference], int] | None:
        text = self.text
        mentions: list[_Mention] = []
        p, link = pos, ""
        while True:
            kw = pl.KEYWORD_RE.match(text, p)
            level = pl.KEYWORD_LEVEL[kw.lastgroup or ""] if kw else -1
            if not kw or level not in pl.START_LEVELS:
                break
            if level == pl.TEIL and not pl.TEIL_LETTER_RE.match(text, _WS_RE.match(text, kw.end()).end()):  # type: ignore[union-attr]
                break  # "Teil 2": a division of the law, see division()
            parsed = self.parse_list(level, kw.end())
            if not parsed:
                break
            paths, e = parsed
            law = self.law_phrase(e, allow_comma=link == "ivm")
            heading_candidate = not mentions and not law and level in (pl.SECTION, pl.ANNEX)
            if heading_candidate and self.skip_headings and self.is_heading_label(p, e):
                return [], e
            mentions.append(_Mention(p, law.end if law else e, level, paths, law, link))
            c = pl.CONNECTOR_RE.match(text, mentions[-1].end)
            if not c or not (c.group("comma") or c.group("ivm") or c.group("conj")):
                break
            if not pl.KEYWORD_RE.match(text, c.end()):
                break
            link = "ivm" if c.group("ivm") else ("list_prep" if c.group("prep") else "list")
            p = c.end()
        if not mentions:
            return None
        self.resolve_group(mentions)
        refs: list[Reference] = []
        for m in mentions:
            refs.extend(self.to_references(m))
        return refs, mentions[-1].end

    @staticmethod
    def resolve_group(mentions: list[_Mention]) -> None:
        # structure: a bare part restating a level of the previous part continues that part's citation
        for prev, cur in itertools.pairwise(mentions):
            if cur.top in pl.TOP_LEVELS:
                continue
            last = prev.paths[-1].comps
            if any(c[0] == cur.top for c in last):
                upper = [c for c in last if c[0] < cur.top]
                for path in cur.paths:
                    path.comps = [(lv, v, s, s, False) for lv, v, s, _e, _r in upper] + path.comps
                cur.inherited, cur.link = True, "inherit"
                cur.top = prev.top
        # law: backwards over plain lists and continued citations, forwards into continued citations
        for i in range(len(mentions) - 1, 0, -1):
            cur, prev = mentions[i], mentions[i - 1]
            crosses = cur.link in ("list", "inherit") or (cur.link == "ivm" and cur.top == pl.ANNEX)
            if cur.law and not prev.law and crosses:
                prev.law = cur.law
        for prev, cur in itertools.pairwise(mentions):
            if cur.inherited and not cur.law:
                cur.law = prev.law

    def range_at(self, start: int, end: int) -> tuple[str, str] | None:
        """The written endpoints when ``text[start:end]`` is a range ("7 bis 9"), else None."""
        rng = pl.RANGE_RE.search(self.text, start, end)
        if rng is None or rng.start() == start:
            return None
        return self.text[start : rng.start()], self.text[rng.end() : end]

    def to_references(self, m: _Mention) -> list[Reference]:
        text = self.text
        law = m.law
        if m.top == pl.ARTIKEL and law is None:
            return []  # "Art. 1 G v. ...", "Artikel 5" of nothing known
        mention = text[m.start : m.end]
        external = law is not None and law.kind in ("eu", "treaty")
        same_doc = law is None or law.kind == "this"
        refs = []
        for path in m.paths:
            vals: dict[int, str] = {}
            details = []
            for lv, v, _s, _e, _r in path.comps:
                if lv in pl.DETAIL_LABELS:
                    details.append(f"{pl.DETAIL_LABELS[lv]} {v}")
                elif lv in vals:  # "Nummer 3 Satz 2" below a Satz already given
                    details.append(f"{pl.LEVEL_NAMES[lv].capitalize()} {v}")
                else:
                    vals[lv] = v
            leaf = path.comps[-1]
            details += path.details
            span = next(((cs, ce) for lv, _v, cs, ce, _r in path.comps if lv == pl.SECTION), None)
            top = m.top
            relative: RelativeTo | None = None
            if top in _BARE_TYPE:
                rtype = _BARE_TYPE[top]
                if law is None or law.kind == "this":
                    relative = _RELATIVE[top]
            elif pl.SECTION in vals:
                rtype = RefType.SECTION
            elif top in (pl.ANNEX, pl.TEIL):
                rtype = RefType.ANNEX
                if top == pl.TEIL and same_doc:
                    relative = "annex"
            elif law is not None and law.kind == "eu":
                rtype = RefType.EU_ACT
            else:
                rtype = RefType.ARTICLE
            refs.append(
                Reference(
                    rtype,
                    mention,
                    m.start,
                    m.end,
                    leaf[2],
                    max(leaf[3], leaf[2]),
                    article=vals.get(pl.ARTIKEL),
                    section=vals.get(pl.SECTION),
                    absatz=vals.get(pl.ABSATZ),
                    satz=vals.get(pl.SATZ),
                    nummer=vals.get(pl.NUMMER),
                    buchstabe=vals.get(pl.BUCHSTABE),
                    annex=vals.get(pl.ANNEX),
                    annex_part=vals.get(pl.TEIL),
                    detail=" ".join(details) or None,
                    law=law.raw if law else None,
                    law_normalized=law.normalized if law else None,
                    same_document=same_doc,
                    relative_to=relative,
                    external=external,
                    from_range=any(c[4] for c in path.comps),
                    range=self.range_at(*span) if span else None,
                )
            )
        return refs
