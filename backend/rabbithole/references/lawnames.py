"""Generic recognition and normalization of names of laws, ordinances, treaties and EU acts.

No list of law names: a German law name is recognised by its form —

* a compound ending in ``-gesetz``/``-gesetzbuch``/``-verordnung``/``-ordnung`` in any case form
  ("des Atomgesetzes", "dem Strahlenschutzgesetz", "der Strahlenschutzverordnung", "des Bundes-\\n
  Immissionsschutzgesetzes", "des Atom-\\ngesetzes"), optionally with an adjective ("des Bürgerlichen
  Gesetzbuchs") or an ordinal book ("des Fünften Buches Sozialgesetzbuch");
* "Gesetz/Verordnung über|zur|zum|für ..." ("des Gesetzes über die Umweltverträglichkeitsprüfung") and
  "Gesetz vom <date>";
* an abbreviation shaped like a law abbreviation ("AtG", "StrlSchV", "BImSchG", "IMIS-ZustV", "BGB");
* "dieses Gesetzes"/"dieser Verordnung" (the citing document itself);
* treaties ("Pariser Übereinkommen", "EG-Vertrag", "Vertrag über die Arbeitsweise der Europäischen Union")
  and EU acts ("Richtlinie 2013/59/Euratom", "Verordnung (EU) 2016/679").

Generic nouns that merely end like a law ("Rechtsverordnung", "Anordnung", "Raumordnung", "Bundesgesetz")
are rejected by a small stop list of *common nouns*; that list names no law.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final, Literal

from rabbithole.references.patterns_legal import MONTHS_DE, WS, WS1

LawKind = Literal["law", "this", "eu", "treaty"]


@dataclass(frozen=True, slots=True)
class LawMatch:
    start: int
    end: int
    raw: str  # as written, whitespace collapsed, article included
    normalized: str | None  # base form; None for "dieses Gesetzes"
    kind: LawKind


_L = "A-Za-zÄÖÜäöüß"
_ARTICLE = r"(?:des|der|dem|den|das|die|im|zum|zur|vom|beim)"
ARTICLE_RE: Final = re.compile(rf"{_ARTICLE}{WS1}")
_DATIVE_ARTICLES: Final = frozenset({"dem", "im", "zum", "vom", "beim"})

THIS_DOC_RE: Final = re.compile(
    rf"(?:[Dd]ieses{WS1}Gesetz(?:es)?|[Dd]iesem{WS1}Gesetze?|[Dd]ies(?:er|e){WS1}(?:(?:Rechts)?[Vv]erordnung|Richtlinie)"
    rf"|(?:[Tt]his|the{WS1}present){WS1}(?:Act|Regulation|Directive|Ordinance))(?![\w])"
)

EU_ACT_RE: Final = re.compile(
    rf"(?P<kind>(?:Durchführungs|Delegierte[nr]?{WS1})?(?:Richtlinie|Verordnung|Beschlusses|Beschluss|Entscheidung"
    rf"|Empfehlung)|(?:Implementing{WS1}|Delegated{WS1}|Council{WS1}|Commission{WS1})?"
    rf"(?:Directive|Regulation|Decision|Recommendation))"
    rf"(?:{WS1}(?:des{WS1}Rates|der{WS1}Kommission))?"
    rf"{WS1}(?:\((?P<org>EU|EG|EWG|EC|EEC|Euratom|EGKS)(?:,{WS}Euratom)?\){WS1})?"
    rf"(?:(?:Nr\.|No\.?){WS})?(?P<num>\d{{1,4}}/\d{{1,4}})(?:(?P<sep>/|{WS1})(?P<suf>Euratom|EG|EWG|EU|EGKS|EC|EEC))?"
    r"(?![\w/])"
)

_EU_NUM = r"\d{1,4}/\d{1,4}(?:/(?:Euratom|EG|EWG|EU|EGKS|EC|EEC))?(?![\w/])"
#: "Richtlinien 89/618/Euratom, 90/641/Euratom und 2003/122/Euratom"
EU_PLURAL_RE: Final = re.compile(
    rf"(?P<kind>Richtlinien|Verordnungen|Directives|Regulations){WS1}"
    rf"(?:\((?P<org>EU|EG|EWG|EC|EEC|Euratom)\){WS1})?(?:(?:Nr\.|No\.?){WS})?"
    rf"(?P<list>{_EU_NUM}(?:(?:,{WS}|{WS1}(?:und|oder|sowie|and|or){WS1}){_EU_NUM})+)"
)
EU_NUM_RE: Final = re.compile(_EU_NUM)
EU_SINGULAR: Final = {
    "Richtlinien": "Richtlinie",
    "Verordnungen": "Verordnung",
    "Directives": "Directive",
    "Regulations": "Regulation",
}

#: A capitalised word, possibly joined by hyphens, also across a line break ("Bundes-\nImmissionsschutz...")
#: or a space left where a line break was ("Bundes- Immissionsschutzgesetz", as PDF text extraction gives).
COMPOUND_RE: Final = re.compile(
    rf"[A-ZÄÖÜ](?:[{_L}]|-(?:[ \t]*\r?\n\f?[ \t]*|[ \t]+(?=[A-ZÄÖÜ]))?(?=[{_L}]))*"
)
_HEAD_RE: Final = re.compile(
    r"(?P<stem>.*?)(?P<head>[Gg]esetzbuch|[Gg]esetz|[Vv]erordnung|[Oo]rdnung|[Vv]ertrag|[Üü]bereinkommen)"
    r"(?P<infl>es|s|e|en|n)?"
)
_ADJ_RE: Final = re.compile(rf"[A-ZÄÖÜ][a-zäöüß]+(?:en|es|e|er){WS1}")
_ORDINAL_BOOK_RE: Final = re.compile(rf"(?P<ord>[A-ZÄÖÜ][a-zäöü]+te[nsr]?){WS1}Buch(?:es|s)?{WS1}")
_NOUN = (
    rf"[A-ZÄÖÜ][\wäöüß]*(?:-[\wäöüß]+)*"
    rf"(?:-{WS1}(?:und|oder){WS1}[A-ZÄÖÜ][\wäöüß]*)?"  # "Finanzierungs- und Handlungspflichten"
)
_NP = rf"(?:(?:die|den|das|der|dem|eine[nms]?|ein){WS1})?(?:[a-zäöüß][\wäöüß-]*{WS1}){{0,3}}{_NOUN}"
_NP_DEF = rf"(?:dem|der|den){WS1}(?:[a-zäöüß][\wäöüß-]*{WS1}){{0,3}}{_NOUN}"
_COMPL = (
    rf"(?:{WS1}(?:der|des|eines|einer){WS1}{_NP}"  # genitive: "der Kernenergie", "eines Standortes"
    rf"|{WS1}[a-zäöüß]+er{WS1}[A-ZÄÖÜ][\wäöüß]*"  # "radioaktiver Abfälle"
    rf"|{WS1}(?:und|oder){WS1}(?![\wäöüß]*(?:gesetz|verordnung|ordnung|Gesetz|Verordnung)(?![\w]))"
    rf"[A-ZÄÖÜ][\wäöüß]*(?![\w-]))"  # "Suche und Auswahl", "Anforderungen und Verfahren"
)
_NAME_TAIL_RE: Final = re.compile(
    rf"{WS1}(?:(?:(?:über|zur|zum|für|betreffend){WS1}{_NP}|zu{WS1}{_NP_DEF}){_COMPL}{{0,3}}"
    rf"|vom{WS1}\d{{1,2}}\.{WS}(?:(?:{MONTHS_DE}){WS1}|\d{{1,2}}\.{WS})\d{{4}})"
)
_TREATY_TAIL_RE: Final = re.compile(
    rf"{WS1}(?:über{WS1}die{WS1}(?:Arbeitsweise{WS1}der{WS1}Europäischen{WS1}Union|Europäische{WS1}Union)"
    rf"|zur{WS1}Gründung{WS1}der{WS1}Europäischen{WS1}[A-Z][\wäöüß]+)"
)
#: Law abbreviations: "AtG", "StrlSchV", "BImSchG", "IMIS-ZustV", "StPO", "VwGO", "BGB", "BauGB".
ABBR_RE: Final = re.compile(
    r"(?:[A-ZÄÖÜ][A-Za-zÄÖÜäöü]*-)?[A-ZÄÖÜ][A-Za-zÄÖÜäöü]*?(?:GB|PO|GO|VO|G|V|O)(?![\w-])"
)
#: End of a law abbreviation, to find candidates quickly (walk back to the word start from here).
ABBR_END_RE_SRC: Final = r"(?<=[A-Za-zÄÖÜäöü])(?:GB|PO|GO|VO|G|V|O)(?![\w-])"


#: Common nouns with a law-like ending; none of them is the name of a law.
def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_GENERIC: Final = _words(
    """gesetz bundesgesetz landesgesetz änderungsgesetz vertragsgesetz fachgesetz spezialgesetz naturgesetz
    ausführungsgesetz einführungsgesetz mantelgesetz haushaltsgesetz artikelgesetz zustimmungsgesetz
    verordnung rechtsverordnung eilverordnung änderungsverordnung durchführungsverordnung landesverordnung
    bundesverordnung ministerverordnung ordnung anordnung zuordnung einordnung raumordnung neuordnung
    unterordnung rangordnung größenordnung geschäftsordnung betriebsordnung verfahrensordnung hausordnung
    benutzungsordnung prüfungsordnung dienstordnung zugangsordnung rechtsordnung grundordnung
    wirtschaftsordnung friedensordnung nachordnung beiordnung überordnung gleichordnung satzungsordnung
    gesetzbuch vertrag übereinkommen kaufvertrag arbeitsvertrag mietvertrag"""
)
#: Generic words that stay generic as the last part of a compound.
_GENERIC_TAILS: Final = tuple(
    _words(
        """anordnung zuordnung einordnung neuordnung unterordnung rangordnung größenordnung beiordnung
        überordnung nachordnung gleichordnung rechtsverordnung eilverordnung"""
    )
)
#: Abbreviation-shaped tokens that are units, companies or courts, not laws.
_NOT_LAW_ABBR: Final = _words(
    "MeV GeV TeV PeV keV TÜV DGUV EWG EAG KG AG OHG VG LG OLG OVG BAG BSG BFG BVerfG BVerwG BGH VGH EuG VO EO"
)

_HYPHEN_BREAK_LOWER: Final = re.compile(r"-[ \t]*\r?\n\f?[ \t]*(?=[a-zäöüß])")
_HYPHEN_BREAK: Final = re.compile(r"-[ \t]*\r?\n\f?[ \t]*|-[ \t]+(?=[A-ZÄÖÜ])")
_SPACES: Final = re.compile(r"\s+")


def collapse(raw: str) -> str:
    """One line: whitespace runs to one space; a word split at a line end joined ("Atom-\ngesetzes" ->
    "Atomgesetzes"; before a capital the hyphen is kept: "Bundes-\nImmissionsschutzgesetz")."""
    return _SPACES.sub(" ", _dehyphenate(raw)).strip()


def _dehyphenate(word: str) -> str:
    """'Atom-\\ngesetzes' -> 'Atomgesetzes' (syllable break); 'Bundes-\\nImmi...' keeps its hyphen."""
    return _HYPHEN_BREAK.sub("-", _HYPHEN_BREAK_LOWER.sub("", word))


def _normalize_adjective(adj: str, feminine: bool) -> str:
    if adj.endswith("er"):  # "Pariser", "Wiener": invariant
        return adj
    stem = adj[:-2] if adj.endswith(("en", "es")) else adj[:-1] if adj.endswith("e") else adj
    return stem + ("e" if feminine else "es")


def _is_abbreviation(tok: str) -> bool:
    if tok in _NOT_LAW_ABBR or len(tok) < 2:
        return False
    letters = tok.replace("-", "")
    if any(c.islower() for c in letters):
        return True
    # all capitals: "BGB", "ZPO", "VwGO" has lower case; keep 3+ letters ending in G/GB/PO/GO/VO, and "GG"
    return tok == "GG" or (len(letters) >= 3 and letters.endswith(("G", "GB", "PO", "GO", "VO")))


def match_abbreviation(text: str, pos: int) -> re.Match[str] | None:
    m = ABBR_RE.match(text, pos)
    return m if m and _is_abbreviation(m.group()) else None


def match_law_name(text: str, pos: int, *, in_chain: bool) -> LawMatch | None:
    """A law/treaty/EU-act name starting at ``pos`` (optionally with article), or the citing document.

    ``in_chain``: the name follows a citation ("§ 5 ..."), which licenses abbreviations without article,
    "-vertrag" compounds and a missing article.
    """
    m = THIS_DOC_RE.match(text, pos)
    if m:
        return LawMatch(pos, m.end(), collapse(m.group()), None, "this")
    art = ARTICLE_RE.match(text, pos)
    q = art.end() if art else pos
    article = art.group().strip() if art else ""
    m = EU_ACT_RE.match(text, q)
    if m:
        return LawMatch(pos, m.end(), collapse(text[pos : m.end()]), normalize_eu_act(m), "eu")
    # abbreviation ("§ 7 AtG", "des StrlSchG")
    if in_chain or art:
        ab = match_abbreviation(text, q)
        if ab:
            return LawMatch(pos, ab.end(), collapse(text[pos : ab.end()]), ab.group(), "law")
    # optional adjective ("des Bürgerlichen Gesetzbuchs", "Pariser Übereinkommen") / ordinal book
    adjective = ""
    book = ""
    r = q
    ob = _ORDINAL_BOOK_RE.match(text, r)
    if ob:
        book, r = ob.group("ord"), ob.end()
    else:
        adj = _ADJ_RE.match(text, r)
        if adj and COMPOUND_RE.match(text, adj.end()):
            cand = adj.group().strip()
            if cand.endswith("er") or art:
                adjective, r = cand, adj.end()
    w = COMPOUND_RE.match(text, r)
    if not w:
        return None
    word = _dehyphenate(w.group())
    h = _HEAD_RE.fullmatch(word)
    if not h:
        return None
    stem, head, infl = h.group("stem"), h.group("head"), h.group("infl") or ""
    end = w.end()
    head_l = head.lower()
    if infl in ("en", "n") or (infl == "e" and (head_l != "gesetz" or article not in _DATIVE_ARTICLES)):
        return None  # plural: a category of laws, not one law
    if infl and head_l in ("verordnung", "ordnung"):
        return None
    if book and head_l != "gesetzbuch":
        return None
    base_word = stem + head
    kind: LawKind = "law"
    tail = ""
    if head_l in ("vertrag", "übereinkommen"):
        kind = "treaty"
        if not stem:
            t = _TREATY_TAIL_RE.match(text, end)
            if t:
                tail, end = collapse(t.group()), t.end()
            elif not (head_l == "übereinkommen" and adjective.endswith("er")):
                return None
        elif base_word.lower() in _GENERIC:
            return None
        elif head_l == "vertrag" and not (in_chain or "-" in stem):
            return None  # "Kaufvertrag"; standalone only "EG-Vertrag" style
    elif not stem:
        if not (head_l == "gesetzbuch" and (adjective or book)):
            t = _NAME_TAIL_RE.match(text, end)
            if not t or head_l not in ("gesetz", "verordnung"):
                return None
            tail, end = collapse(t.group()), t.end()
    elif (
        not stem[0].isupper()
        or base_word.lower() in _GENERIC
        or base_word.lower().endswith(_GENERIC_TAILS)  # "Schutzanordnung", "Landesrechtsverordnung"
        or (head_l == "ordnung" and len(stem.rstrip("-")) < 4)  # "Anordnung", "Zuordnung"
    ):
        return None
    feminine = head_l in ("verordnung", "ordnung")
    parts = []
    if book:
        parts.append(_normalize_adjective(book, False) + " Buch")  # "Fünften Buches" -> "Fünftes Buch"
    if adjective:
        parts.append(_normalize_adjective(adjective, feminine))
    parts.append(base_word + (" " + tail if tail else ""))
    normalized = " ".join(parts)
    return LawMatch(pos, end, collapse(text[pos:end]), normalized, kind)


def normalize_eu_act(m: re.Match[str]) -> str:
    """'Verordnung (EU) 2016/679', 'Richtlinie 2013/59/Euratom' (also from 'Richtlinie 2013/59 Euratom')."""
    kind = collapse(m.group("kind"))
    if kind == "Beschlusses":
        kind = "Beschluss"
    whole = m.group()
    out = kind
    if m.group("org"):
        i, j = whole.find("("), whole.find(")")
        out += " (" + collapse(whole[i + 1 : j]) + ")"
    nr = re.search(r"(Nr\.|No\.?)\s*\d", whole)
    if nr:
        out += " " + ("No." if nr.group(1).startswith("No") else "Nr.")
    out += " " + m.group("num")
    if m.group("suf"):
        out += "/" + m.group("suf")
    return out
