"""German name forms of documents: normalization keys and the case forms references use.

References name a law in every case form: "das Atomgesetz", "des Atomgesetzes", "dem Atomgesetz", "die
Strahlenschutzverordnung", "der Strahlenschutzverordnung", "des Gesetzes über die friedliche Verwendung der
Kernenergie ...". This module

* normalizes names to lookup keys: case-, whitespace- and hyphen-insensitive, leading articles and
  prepositions stripped ("nach dem Atomgesetz" -> "atomgesetz"), umlaut-tolerant ("Ü", "Ue" and "U" fold to
  the same key: "AtZüV", "AtZueV" and "AtZuV" are one key);
* generates the case forms of a law name (:func:`name_forms`) and of a title (:func:`title_forms`): the
  inflection is that of the head noun, which is the *last* word of a short name ("Atomgesetz",
  "Atomrechtliche Verfahrensverordnung") and the *first* word of a title ("Gesetz über ...",
  "Kostenverordnung zum Atomgesetz ...");
* splits an abbreviation from its year ("StrlSchV 2018" -> "StrlSchV", "2018").

Pure functions without state; everything here is cheap enough to run per synonym.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Literal

Gender = Literal["n", "f", "m"]

#: Head nouns of German legal acts, longest first (suffix match on the last compound part), with gender.
HEAD_NOUNS: tuple[tuple[str, Gender], ...] = (
    ("übereinkommen", "n"),
    ("gesetzbuch", "n"),
    ("verordnung", "f"),
    ("bekanntmachung", "f"),
    ("vereinbarung", "f"),
    ("richtlinie", "f"),
    ("abkommen", "n"),
    ("vorschrift", "f"),
    ("ordnung", "f"),
    ("regelung", "f"),
    ("satzung", "f"),
    ("vertrag", "m"),
    ("erlass", "m"),
    ("statut", "n"),
    ("gesetz", "n"),
    ("regel", "f"),
)

#: Leading words that are not part of a name: articles and the prepositions references put before a law.
LEADING_FUNCTION_WORDS = frozenset(
    {
        "der", "die", "das", "des", "dem", "den", "ein", "eine", "eines", "einer", "einem",
        "nach", "gemäß", "gem", "laut", "lt", "zum", "zur", "vom", "von", "im", "in", "beim", "bei", "am",
        "aufgrund", "auf", "grund", "durch", "mit", "aus", "für", "über", "unter", "sowie", "und", "oder",
        "bzw", "entsprechend", "this", "the", "of",
    }
)  # fmt: skip

_UMLAUT_FOLD = str.maketrans({"ä": "a", "ö": "o", "ü": "u", "ß": "ss", "æ": "ae", "œ": "oe"})
_DIGRAPH_RE = re.compile(r"ae|oe|ue")
_NON_ALNUM_RE = re.compile(r"[^0-9a-z]+")
_ISD_RE = re.compile(r"^i\.?\s*s\.?\s*(?:d|v)\.?\s+", re.IGNORECASE)
_WS_RE = re.compile(r"\s+")
_HYPHEN_WS_RE = re.compile(r"(?<=\w)-\s+(?=[A-ZÄÖÜ])")
_YEAR_RE = re.compile(r"^(?P<base>.*?\S)\s+(?P<year>(?:19|20)\d\d)$")


def clean_name(text: str) -> str:
    """NFC, whitespace collapsed, a wrap space after a compound hyphen dropped ("Vorsorge- Verordnung")."""
    text = unicodedata.normalize("NFC", text)
    return _HYPHEN_WS_RE.sub("-", _WS_RE.sub(" ", text).strip())


def fold(text: str) -> str:
    """Casefold and fold umlauts and ß ("Übergang" -> "ubergang", "Uebergang" -> "ubergang")."""
    text = unicodedata.normalize("NFC", text).casefold().translate(_UMLAUT_FOLD)
    return _DIGRAPH_RE.sub(lambda m: m.group(0)[0], text)


def words(text: str) -> list[str]:
    """Folded words of a name, leading articles and prepositions stripped."""
    text = _ISD_RE.sub("", clean_name(text))
    tokens = [t for t in _NON_ALNUM_RE.split(fold(text)) if t]
    leading = {fold(w) for w in LEADING_FUNCTION_WORDS}
    start = 0
    while start < len(tokens) - 1 and tokens[start] in leading:
        start += 1
    if start == len(tokens) - 1 and tokens[start] in leading:
        return []
    return tokens[start:]


def normalize_key(text: str) -> str:
    """Lookup key: folded, article-stripped, without spaces, hyphens and punctuation.

    "des Atomgesetzes" -> "atomgesetzes"; "StrlSchV 2018" -> "strlschv2018"; "AtZüV" -> "atzuv".
    """
    return "".join(words(text))


def normalize_words(text: str) -> str:
    """Like :func:`normalize_key` but words kept apart by single spaces (for word-bounded prefix tests)."""
    return " ".join(words(text))


def split_year(abbreviation: str) -> tuple[str, str | None]:
    """ "StrlSchV 2018" -> ("StrlSchV", "2018"); "AtG" -> ("AtG", None)."""
    abbreviation = clean_name(abbreviation)
    match = _YEAR_RE.match(abbreviation)
    if match is None:
        return abbreviation, None
    return match.group("base"), match.group("year")


def head_gender(word: str) -> tuple[str, Gender] | None:
    """Head noun and gender of a (compound) noun: "Strahlenschutzverordnung" -> ("verordnung", "f")."""
    lowered = unicodedata.normalize("NFC", word).casefold()
    for head, gender in HEAD_NOUNS:
        if lowered.endswith(head):
            return head, gender
    if lowered.endswith(("ung", "heit", "keit", "schaft", "tion")):
        return "", "f"
    return None


def _noun_forms(noun: str, gender: Gender, *, plural: bool) -> dict[str, list[str]]:
    """Inflected forms of a noun by case key: nom, gen, dat, pl, dat_pl."""
    lowered = noun.casefold()
    if gender == "f":
        forms: dict[str, list[str]] = {"nom": [noun], "gen": [noun], "dat": [noun]}
        if plural:
            if lowered.endswith("ung"):
                forms["pl"] = forms["dat_pl"] = [noun + "en"]
            elif lowered.endswith(("ie", "e", "el")):
                forms["pl"] = forms["dat_pl"] = [noun + "n"]
        return forms
    genitive = [noun + "es"] if lowered.endswith(("s", "ß", "x", "z")) else [noun + "es", noun + "s"]
    forms = {"nom": [noun], "gen": genitive, "dat": [noun, noun + "e"] if gender == "n" else [noun]}
    if plural and lowered.endswith("gesetz"):
        forms["pl"] = [noun + "e"]
        forms["dat_pl"] = [noun + "en"]
    return forms


#: (case key, article, adjective ending) per gender: weak "-e" after der/die/das (nom.), "-en" otherwise.
_ARTICLES: dict[Gender, tuple[tuple[str, str, str], ...]] = {
    "n": (("nom", "das", "e"), ("gen", "des", "en"), ("dat", "dem", "en"),
          ("pl", "die", "en"), ("dat_pl", "den", "en")),
    "f": (("nom", "die", "e"), ("gen", "der", "en"),
          ("pl", "die", "en"), ("dat_pl", "den", "en")),
    "m": (("nom", "der", "e"), ("gen", "des", "en"), ("dat", "dem", "en"),
          ("pl", "die", "en"), ("dat_pl", "den", "en")),
}  # fmt: skip

_ADJECTIVE_RE = re.compile(r"^(?P<stem>[A-ZÄÖÜa-zäöüß]+?)(?:e|en|er|es)$")


def _adjective_stem(word: str) -> str | None:
    match = _ADJECTIVE_RE.match(word)
    if match is None or not word[:1].isalpha():
        return None
    stem = match.group("stem")
    return stem if stem.casefold().endswith(("lich", "isch", "ig", "al", "ell", "iv", "ar")) else None


def name_forms(name: str) -> list[str]:
    """Case forms of a short name whose head noun is its last word, with and without article.

    "Atomgesetz" -> Atomgesetz, Atomgesetzes, Atomgesetze, Atomgesetzen, das Atomgesetz, des Atomgesetzes,
    dem Atomgesetz, dem Atomgesetze, die Atomgesetze, den Atomgesetzen; "Strahlenschutzverordnung" ->
    Strahlenschutzverordnung, Strahlenschutzverordnungen, die/der Strahlenschutzverordnung, ...;
    "Atomrechtliche Verfahrensverordnung" -> also "der Atomrechtlichen Verfahrensverordnung";
    "Bürgerliches Gesetzbuch" -> also "des Bürgerlichen Gesetzbuchs", "das Bürgerliche Gesetzbuch".
    The name itself is included. Names without a known head noun only get themselves back.
    """
    name = clean_name(name)
    parts = name.split(" ")
    head = parts[-1]
    # "Deckungsvorsorge-Verordnung": the head is the last hyphen part, inflection applies to the whole word.
    info = head_gender(head.rsplit("-", 1)[-1])
    if info is None:
        return [name]
    gender = info[1]
    noun_forms = _noun_forms(head, gender, plural=True)
    adjective_stem = _adjective_stem(parts[0]) if len(parts) >= 2 else None
    middle = parts[1:-1] if adjective_stem is not None else parts[:-1]
    out: list[str] = [name]
    if adjective_stem is not None and gender != "f":
        # strong form without article, as a base form is written: "Bürgerliches Gesetzbuch"
        out.append(" ".join([adjective_stem + ("es" if gender == "n" else "er"), *middle, head]))
    for case, article, adjective_ending in _ARTICLES[gender]:
        for noun in noun_forms.get(case, []):
            words_ = (
                ([adjective_stem + adjective_ending] if adjective_stem is not None else []) + middle + [noun]
            )
            form = " ".join(words_)
            out.append(form)
            out.append(f"{article} {form}")
    return _dedupe(out)


def title_forms(title: str) -> list[str]:
    """Case forms of a title whose head noun is its first word ("Gesetz über ...", "Verordnung zum ...").

    "Gesetz über die friedliche Verwendung ..." -> the title, "das Gesetz über ...", "des Gesetzes über ...",
    "dem Gesetz über ...". Singular only; a title without a known head noun only gets itself back.
    """
    title = clean_name(title)
    if not title:
        return []
    first, _, rest = title.partition(" ")
    info = head_gender(first.rsplit("-", 1)[-1])
    if info is None or not first[:1].isupper():
        return [title]
    gender = info[1]
    noun_forms = _noun_forms(first, gender, plural=False)
    out = [title]
    for case, article, _ending in _ARTICLES[gender]:
        for noun in noun_forms.get(case, []):
            form = f"{noun} {rest}".strip()
            out.append(form)
            out.append(f"{article} {form}")
    return _dedupe(out)


_TRAILING_PAREN_RE = re.compile(r"\s*\((?P<abbr>[^()]{1,30})\)$")
_NOT_DOCUMENT_ABBREVIATIONS = frozenset({"EU", "EG", "EWG", "EC", "EEC", "EURATOM", "EGKS"})
_ABBREVIATION_SHAPE_RE = re.compile(r"^[A-ZÄÖÜ][A-Za-zÄÖÜäöüß\-]*[A-ZÄÖÜa-zäöüß](?: (?:19|20)\d\d)?$")


def title_and_abbreviation(title: str, abbreviation: str) -> tuple[str, str]:
    """Title without a trailing "(Abk)" and the fullest abbreviation known.

    Parsers may give "Verordnung ... (StrlSchV 2018)" with the abbreviation "StrlSchV": the result is
    ("Verordnung ...", "StrlSchV 2018"). A trailing parenthesis that is not this abbreviation stays in the
    title; with no abbreviation given, an abbreviation-shaped parenthesis ("(AtG)") is taken.
    """
    title = clean_name(title)
    abbreviation = clean_name(abbreviation)
    match = _TRAILING_PAREN_RE.search(title)
    if match is None:
        return title, abbreviation
    stated = clean_name(match.group("abbr"))
    stated_base, stated_year = split_year(stated)
    if not abbreviation:
        shaped = _ABBREVIATION_SHAPE_RE.match(stated) and any(ch.isupper() for ch in stated_base[1:])
        if shaped and stated_base.upper() not in _NOT_DOCUMENT_ABBREVIATIONS:
            return title[: match.start()].rstrip(), stated
        return title, abbreviation
    base, year = split_year(abbreviation)
    if stated_base.casefold() != base.casefold():
        return title, abbreviation
    if year is None and stated_year is not None:
        abbreviation = stated
    return title[: match.start()].rstrip(), abbreviation


def _dedupe(items: list[str]) -> list[str]:
    seen: set[str] = set()
    out: list[str] = []
    for item in items:
        if item not in seen:
            seen.add(item)
            out.append(item)
    return out
