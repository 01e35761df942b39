"""German-aware tokenization for BM25.

Pipeline (the same for documents and queries, so both sides always agree):

1. Unicode NFKC (PDF ligatures, decomposed umlauts), soft hyphens removed, words hyphenated across a
   line break joined again ("Strahlen-\\nschutz" -> "Strahlenschutz"; a capitalised continuation or a
   conjunction keeps the hyphen: "Organ-\\nÄquivalentdosis", "Kern- und").
2. Case folding; umlauts and ß folded: ä->ae, ö->oe, ü->ue, ß->ss (so "Änderung"/"Aenderung" match).
3. § citations become one token per cited section: "§ 80", "§80" -> "§80"; "§ 9a" -> "§9a";
   "§§ 8 bis 10" -> "§8 §9 §10" (short ranges expanded); "§§ 6, 7, 9 oder 9b" -> "§6 §7 §9 §9b".
4. Abbreviations folded: "Abs."/"Absatz"/"Absätze" -> "abs", "Nr."/"Nummer" -> "nr", "Art."/"Artikel"
   -> "art", "S."/"Satz" -> "satz".
5. German + English stopwords removed; single letters dropped, numbers kept ("2017", "0,3", "1.5").
6. Section membership: a chunk's own section label adds the token "@§80" (see :func:`section_tokens`);
   a query citing "§ 80" gets both "§80" and "@§80".
7. Stemming with Snowball (PyStemmer). Each document is stemmed in one language: German unless its
   English stopwords clearly outnumber its German ones (decided per document, see
   :func:`detect_language`). A query is stemmed in every language present in the index and both stems
   are kept when they differ, so a query matches German and English documents alike.

Stems are cached per language (a corpus has far fewer distinct words than tokens), which keeps
tokenization at a few microseconds per token in pure Python.
"""

from __future__ import annotations

import functools
import re
import threading
import unicodedata
from collections.abc import Iterable, Sequence
from typing import Any, Literal

Language = Literal["de", "en"]
LANGUAGES: tuple[Language, ...] = ("de", "en")

#: Bump whenever the output of the tokenizer changes: persisted BM25 indexes are rebuilt.
TOKENIZER_VERSION = "1"

_SNOWBALL = {"de": "german", "en": "english"}
SECTION_MEMBER_PREFIX = "@"

# --- stopwords (folded forms: ae/oe/ue/ss) -------------------------------------------------------------

_GERMAN_STOPWORDS = """
aber alle allem allen aller alles als also am an ander andere anderem anderen anderer anderes anderm andern
anderr anders auch auf aus bei bin bis bist bzw da dadurch daher damit dann darf darueber das dass dasselbe
dazu dein deine deinem deinen deiner deines dem demselben den denen denn denselben der derer derselbe
derselben des desselben dessen dich die dies diese dieselbe dieselben diesem diesen dieser dieses dir doch
dort du duerfen durch ein eine einem einen einer eines einig einige einigem einigen einiger einiges einmal
er es etwa etwas euch euer eure eurem euren eurer eures fuer gegen gemaess gewesen hab habe haben hat hatte
hatten hier hin hinter ich ihm ihn ihnen ihr ihre ihrem ihren ihrer ihres im in indem ins insbesondere ist
jede jedem jeden jeder jedes jene jenem jenen jener jenes jetzt kann kein keine keinem keinen keiner keines
koennen koennte machen man manche manchem manchen mancher manches mein meine meinem meinen meiner meines
mich mir mit muss musste muessen nach nicht nichts noch nun nur ob oder ohne sehr sein seine seinem seinen
seiner seines selbst sich sie sind so sofern solche solchem solchen solcher solches soll sollen sollte
sondern sonst soweit sowie ueber um und uns unser unsere unserem unseren unseres unter viel vom von vor
waehrend war waren warst was weg weil weiter welche welchem welchen welcher welches wenn wer werde werden
wie wieder will wir wird wirst wo wollen wollte worden wurde wurden wuerde wuerden zu zum zur zwar zwischen
"""

_ENGLISH_STOPWORDS = """
a about above after again against all am an and any are as at be because been before being below between
both but by can could did do does doing down during each few for from further had has have having he her
here hers herself him himself his how i if in into is it its itself just me more most my myself no nor not
of off on once only or other our ours ourselves out over own same shall she should so some such than that
the their theirs them themselves then there these they this those through to too under until up upon very
was we were what when where which while who whom why will with within would you your yours yourself
"""

GERMAN_STOPWORDS: frozenset[str] = frozenset(_GERMAN_STOPWORDS.split())
ENGLISH_STOPWORDS: frozenset[str] = frozenset(_ENGLISH_STOPWORDS.split())
STOPWORDS: frozenset[str] = GERMAN_STOPWORDS | ENGLISH_STOPWORDS
# Words that tell the languages apart (present in one list only).
_DE_MARKERS = GERMAN_STOPWORDS - ENGLISH_STOPWORDS
_EN_MARKERS = ENGLISH_STOPWORDS - GERMAN_STOPWORDS

# Legal abbreviations and their spelled-out forms, folded to one canonical token (never stemmed).
_CANONICAL = {
    "abs": "abs",
    "absatz": "abs",
    "absatzes": "abs",
    "absaetze": "abs",
    "absaetzen": "abs",
    "nr": "nr",
    "nummer": "nr",
    "nummern": "nr",
    "art": "art",
    "artikel": "art",
    "artikels": "art",
    "satz": "satz",
    "saetze": "satz",
    "satzes": "satz",
}
_CANONICAL_TOKENS = frozenset(_CANONICAL.values())

# --- normalization ------------------------------------------------------------------------------------

# A word hyphenated at a line break whose continuation starts in lower case (and is not a conjunction,
# as in "Kern- und Brennstoffe"): join it. The pattern starts with the literal "-" so the regex engine can
# skip ahead quickly (a leading lookbehind would be tried at every position).
_HYPHEN_BREAK = re.compile(
    r"-(?<=[^\W\d_]-)[ \t]*\r?\n[ \t]*(?!(?:und|oder|bzw|sowie|bis|noch|als)\b)(?=[^\W\d_A-ZÄÖÜ])"
)
# Soft hyphens (PDF text) vanish, together with a line break right after them.
_SOFT_HYPHEN = re.compile(r"\u00ad[ \t]*(?:\r?\n[ \t]*)?")

# § citations, after case folding. The argument list: numbers with an optional letter, joined by commas,
# "bis", "und", "oder", "sowie", dashes. "§§ 8 bis 10", "§ 9a", "§§ 6, 7, 9 oder 9b", "§ 80".
_SECTION_NUM = r"\d+[a-z]?\b"
_SECTION_JOIN = r"(?:\s*(?:,|;|bis|und|oder|sowie|[-–])\s*)"
_SECTION_CITE = re.compile(rf"§§?\s*({_SECTION_NUM}(?:{_SECTION_JOIN}{_SECTION_NUM})*)")
_SECTION_PARTS = re.compile(r"\d+[a-z]?|bis|[-–]")
_MAX_RANGE = 30

# § tokens, numbers (with inner "." or "," between digits: 0,3  1.5  2017), words.
_TOKEN = re.compile(r"§\d+[a-z]?|\d+(?:[.,]\d+)*|[^\W\d_]+")


def _expand_sections(match: re.Match[str]) -> str:
    parts = _SECTION_PARTS.findall(match.group(1))
    out: list[str] = []
    pending_range = False
    for part in parts:
        if part in ("bis", "-", "–"):
            pending_range = True
            continue
        if pending_range and out and out[-1].isdigit() and part.isdigit():
            low, high = int(out[-1]), int(part)
            if 0 < high - low <= _MAX_RANGE:
                out.extend(str(n) for n in range(low + 1, high))
        pending_range = False
        out.append(part)
    return " " + " ".join("§" + p for p in out) + " "


def normalize(text: str) -> str:
    """Unicode-normalize, join line-break hyphenation, case-fold, fold umlauts/ß, unify § citations."""
    if not unicodedata.is_normalized("NFKC", text):
        text = unicodedata.normalize("NFKC", text)
    if "\u00ad" in text:
        text = _SOFT_HYPHEN.sub("", text)
    if "-" in text:
        text = _HYPHEN_BREAK.sub("", text)
    # casefold() already turns ß and ẞ into "ss"; chained replace() is much faster than translate().
    text = text.casefold().replace("ä", "ae").replace("ö", "oe").replace("ü", "ue")
    if "§" in text:
        text = _SECTION_CITE.sub(_expand_sections, text)
    return text


def raw_tokens(text: str) -> list[str]:
    """Normalized tokens before stopword removal and stemming."""
    return _TOKEN.findall(normalize(text))


def _marker_counts(tokens: Iterable[str]) -> tuple[int, int]:
    de = en = 0
    for token in tokens:
        if token in _DE_MARKERS:
            de += 1
        elif token in _EN_MARKERS:
            en += 1
    return de, en


def detect_language(tokens: Iterable[str]) -> Language:
    """German unless English function words clearly outnumber German ones (for documents)."""
    de, en = _marker_counts(tokens)
    return "en" if en >= 3 and en > 1.5 * de else "de"


def query_language(text: str) -> Language | None:
    """The language of a query when its function words make it clear ("What are the ..." -> "en",
    "Wie viel ... darf ein ..." -> "de"); None for keyword queries and anything uncertain."""
    de, en = _marker_counts(raw_tokens(text))
    if en >= 2 and en > 2 * de:
        return "en"
    if de >= 2 and de > 2 * en:
        return "de"
    return None


# --- stemming -----------------------------------------------------------------------------------------


class _StemCache:
    """token -> final token ("" = dropped) for one language; PyStemmer is created lazily."""

    MAX_ENTRIES = 2_000_000

    def __init__(self, language: Language) -> None:
        self.language = language
        self._map: dict[str, str] = {}
        self._stemmer: Any = None
        self._lock = threading.Lock()

    def _compute(self, tokens: Iterable[str]) -> dict[str, str]:
        todo = list(dict.fromkeys(tokens))
        with self._lock:
            if self._stemmer is None:
                import Stemmer

                self._stemmer = Stemmer.Stemmer(_SNOWBALL[self.language])
            words = [t for t in todo if _needs_stem(t)]
            stems: list[str] = self._stemmer.stemWords(words) if words else []
            stemmed = dict(zip(words, stems, strict=True))
            result = {token: _final(token, stemmed.get(token)) for token in todo}
            if len(self._map) > self.MAX_ENTRIES:
                self._map = {}
            self._map.update(result)
        return result

    def apply_positions(self, tokens: list[str]) -> list[str]:
        """Final token per input token, "" where it is dropped (stopwords, single letters)."""
        get = self._map.get
        out = [get(t) for t in tokens]
        if None in out:
            new = self._compute(t for t, s in zip(tokens, out, strict=True) if s is None)
            return [new[t] if s is None else s for t, s in zip(tokens, out, strict=True)]
        return out  # type: ignore[return-value]

    def apply(self, tokens: list[str]) -> list[str]:
        return [t for t in self.apply_positions(tokens) if t]


def _needs_stem(token: str) -> bool:
    return not (
        token[0] == "§" or token[0].isdigit() or token in STOPWORDS or token in _CANONICAL or len(token) < 2
    )


def _final(token: str, stem: str | None) -> str:
    if token[0] == "§" or token[0].isdigit():
        return token
    if token in _CANONICAL:
        return _CANONICAL[token]
    if token in STOPWORDS or len(token) < 2:
        return ""
    assert stem is not None
    # A stem that collides with a canonical abbreviation token would merge unrelated words.
    return stem + "_" if stem in _CANONICAL_TOKENS else stem


_CACHES: dict[Language, _StemCache] = {lang: _StemCache(lang) for lang in LANGUAGES}


# --- public API ---------------------------------------------------------------------------------------


def tokenize(text: str, language: Language | None = None) -> list[str]:
    """BM25 tokens of one text (document side). language=None: detect it from the text."""
    tokens = raw_tokens(text)
    lang = language or detect_language(tokens)
    return _CACHES[lang].apply(tokens)


def tokenize_documents(
    texts: Sequence[str], languages: Sequence[Language | None] | Language | None = None
) -> tuple[list[list[str]], list[Language]]:
    """Tokenize many texts. languages: one per text, one for all, or None to detect per text.

    Returns the token lists and the language each text was stemmed in.
    """
    if languages is None or isinstance(languages, str):
        per_text: Sequence[Language | None] = [languages] * len(texts)
    else:
        per_text = languages
        if len(per_text) != len(texts):
            raise ValueError("languages must have one entry per text")
    token_lists: list[list[str]] = []
    used: list[Language] = []
    for text, lang in zip(texts, per_text, strict=True):
        tokens = raw_tokens(text)
        chosen = lang or detect_language(tokens)
        token_lists.append(_CACHES[chosen].apply(tokens))
        used.append(chosen)
    return token_lists, used


def tokenize_query(text: str, languages: Iterable[Language] = ("de",)) -> list[str]:
    """BM25 tokens of a query: stemmed in each given language (distinct stems kept), duplicates dropped,
    and for each cited section "§N" also its membership token "@§N" (see :func:`section_tokens`)."""
    tokens = raw_tokens(text)
    langs = list(dict.fromkeys(languages)) or ["de"]
    if len(langs) == 1:
        merged = _CACHES[langs[0]].apply(tokens)
    else:
        columns = [_CACHES[lang].apply_positions(tokens) for lang in langs]
        merged = [t for group in zip(*columns, strict=True) for t in group if t]
    out: list[str] = []
    for token in merged:
        out.append(token)
        if token[0] == "§":
            out.append(SECTION_MEMBER_PREFIX + token)
    return list(dict.fromkeys(out))


@functools.lru_cache(maxsize=65536)
def _section_tokens(label: str) -> tuple[str, ...]:
    return tuple(SECTION_MEMBER_PREFIX + t for t in raw_tokens(label) if t[0] == "§")


def section_tokens(label: str | None) -> list[str]:
    """Membership tokens of a chunk's own section label: "§ 80" -> ["@§80"].

    Indexed once per chunk, so a query citing "§ 80" ranks the chunks *of* § 80 above those that merely
    cite it.
    """
    if not label or "§" not in label:
        return []
    return list(_section_tokens(label))


def stem_tokens(tokens: list[str], language: Language) -> list[str]:
    """Stopword removal + stemming of :func:`raw_tokens` output in one language."""
    return _CACHES[language].apply(tokens)
