"""Which words of a collection the English->German glossary cannot reach, to extend it from the corpus.

    python -m rabbithole.devtools.glossary_coverage [--data-dir DIR] [--collection sample] [--top 400]
        [--glossary FILE ...] [--headings] [--check-terms] [--english-singles]

The default report lists the German content-word stems of the collection's chunk texts (``--headings``:
of its section and annex titles) by frequency, tokenized as BM25 tokenizes German text
(``retrieval.tokenizer``), that no German term of any glossary entry produces, with how many chunks hold
them and their most frequent spellings: the vocabulary an English question cannot bring into a BM25
query today. Numbers, § tokens, the folded abbreviations ("abs", "nr", "art", "satz") and stems under three
letters are left out; names and words too general to
help are left to the reader. ``--check-terms`` lists the glossary's German terms with a stem that never
occurs in the collection (a term that can match nothing, or a misspelling). ``--english-singles`` lists
the English words that occur only inside multi-word phrases ("occupational" in "occupational exposure"),
so a question that uses them alone translates to nothing.

The glossary is the built-in one plus ``--glossary`` files (the format of ``retrieval.glossary_path``);
the collection is read from the catalog of ``--data-dir`` (default: the configured data dir). Nothing here
runs in the product; it is a tool for the one who maintains the glossary (docs/retrieval.md, "How the
glossary is built").
"""

from __future__ import annotations

import argparse
import functools
import re
import sys
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from rabbithole.retrieval.glossary import DEFAULT_GLOSSARY, Glossary, english_words, parse_entries
from rabbithole.retrieval.tokenizer import ENGLISH_STOPWORDS, tokenize

Entry = tuple[str, Sequence[str]]

#: stems shorter than this are left out of the report (abbreviation fragments, "ab", "eu")
MIN_STEM_LENGTH = 3
_SURFACE_WORD = re.compile(r"[^\W\d_]+")
_FORMS_SHOWN = 3


@dataclass(frozen=True, slots=True)
class StemCount:
    stem: str
    count: int  # occurrences in all texts
    texts: int  # texts (chunks) that contain it
    forms: tuple[str, ...]  # its most frequent spellings in the texts, most frequent first


def german_stems(text: str) -> list[str]:
    """The BM25 tokens of German text (stemmed, stopwords dropped)."""
    return tokenize(text, "de")


@functools.cache
def _abbreviation_tokens() -> frozenset[str]:
    """The tokens legal abbreviations are folded to ("Absatz", "Abs." -> "abs"): structure, not content."""
    return frozenset(german_stems("Absatz Nummer Artikel Satz"))


def _is_content_stem(stem: str) -> bool:
    return len(stem) >= MIN_STEM_LENGTH and stem.isalpha() and stem not in _abbreviation_tokens()


def glossary_stems(entries: Iterable[Entry]) -> set[str]:
    """Every German stem that some entry's German terms produce."""
    return {stem for _, terms in entries for term in terms for stem in german_stems(term)}


def corpus_stems(texts: Iterable[str]) -> list[StemCount]:
    """The content-word stems of ``texts``, most frequent first (ties by stem)."""
    counts: Counter[str] = Counter()
    in_texts: Counter[str] = Counter()
    forms: dict[str, Counter[str]] = {}
    for text in texts:
        stems = [stem for stem in german_stems(text) if _is_content_stem(stem)]
        counts.update(stems)
        in_texts.update(set(stems))
        for word in _SURFACE_WORD.findall(text):
            stemmed = german_stems(word)
            if len(stemmed) == 1 and _is_content_stem(stemmed[0]):
                forms.setdefault(stemmed[0], Counter())[word] += 1
    return [
        StemCount(
            stem,
            count,
            in_texts[stem],
            tuple(form for form, _ in forms.get(stem, Counter()).most_common(_FORMS_SHOWN)),
        )
        for stem, count in sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    ]


def uncovered_stems(corpus: Sequence[StemCount], covered: set[str]) -> list[StemCount]:
    """The corpus stems no glossary term produces, in the corpus order."""
    return [entry for entry in corpus if entry.stem not in covered]


def absent_terms(entries: Iterable[Entry], vocabulary: set[str]) -> list[tuple[str, str]]:
    """(English phrase, German term) pairs whose term has a content stem the corpus never uses."""
    absent: list[tuple[str, str]] = []
    for english, terms in entries:
        for term in terms:
            stems = [stem for stem in german_stems(term) if _is_content_stem(stem)]
            if any(stem not in vocabulary for stem in stems):
                absent.append((english, term))
    return absent


def english_only_in_phrases(entries: Sequence[Entry]) -> list[tuple[str, int]]:
    """English content words that occur in multi-word phrases but match no entry when they stand alone
    (matched as a question is: stemmed, so "occupationally" covers "occupational"), with the number of
    phrases they occur in, most first."""
    glossary = Glossary(entries)
    in_phrases: Counter[str] = Counter()
    for english, _ in entries:
        words = english_words(english)
        if len(words) > 1:
            in_phrases.update({w for w in words if w not in ENGLISH_STOPWORDS and len(w) > 2 and w.isalpha()})
    missing = [(word, n) for word, n in in_phrases.items() if not glossary.matches(word)]
    return sorted(missing, key=lambda item: (-item[1], item[0]))


def corpus_vocabulary(texts: Iterable[str]) -> set[str]:
    """Every BM25 token of ``texts`` (German stems)."""
    return {stem for text in texts for stem in german_stems(text)}


# --- reading and printing -----------------------------------------------------------------------------


def read_entries(paths: Sequence[Path]) -> list[Entry]:
    entries: list[Entry] = []
    for path in paths:
        entries.extend(parse_entries(path.read_text(encoding="utf-8"), str(path)))
    return entries


def collection_texts(data_dir: Path, collection: str, *, headings: bool) -> list[str]:
    """The chunk texts (or the distinct section titles) of a collection in the catalog of ``data_dir``."""
    from rabbithole.catalog.repository import Catalog

    catalog_path = data_dir / "catalog.sqlite3"
    if not catalog_path.exists():
        raise SystemExit(f"no catalog at {catalog_path}: ingest the collection first (rabbithole ingest)")
    catalog = Catalog(catalog_path)
    try:
        catalog.require_collection(collection)
        chunks = catalog.chunks(collection)
    finally:
        catalog.close()
    if headings:
        return list(dict.fromkeys(chunk.heading for chunk in chunks if chunk.heading))
    return [chunk.text for chunk in chunks]


def format_stems(rows: Sequence[StemCount]) -> list[str]:
    return [f"{r.count:6d} {r.texts:5d}  {r.stem:<24} {', '.join(r.forms)}" for r in rows]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m rabbithole.devtools.glossary_coverage",
        description="Corpus words the English->German glossary does not reach (see the module docstring).",
    )
    parser.add_argument("--data-dir", type=Path, help="Rabbithole data dir (default: the configured one)")
    parser.add_argument("--collection", default="sample")
    parser.add_argument("--glossary", type=Path, action="append", default=[], help="extra glossary file")
    parser.add_argument("--top", type=int, default=400, help="how many uncovered stems to list (0: all)")
    parser.add_argument("--skip", type=int, default=0, help="leave out the first N uncovered stems")
    parser.add_argument("--headings", action="store_true", help="section and annex titles instead of texts")
    parser.add_argument("--check-terms", action="store_true", help="German terms the collection never uses")
    parser.add_argument("--english-singles", action="store_true", help="English words only inside phrases")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    entries = read_entries([DEFAULT_GLOSSARY, *args.glossary])
    if args.english_singles:
        for word, phrases in english_only_in_phrases(entries):
            print(f"{phrases:4d}  {word}")
        return 0
    data_dir = args.data_dir
    if data_dir is None:
        from rabbithole.core.config import load_settings

        data_dir = load_settings().storage.data_dir
    texts = collection_texts(data_dir, args.collection, headings=args.headings)
    if args.check_terms:
        absent = absent_terms(entries, corpus_vocabulary(texts))
        for english, term in absent:
            print(f"{english} | {term}")
        print(f"{len(absent)} German terms with a stem the collection never uses", file=sys.stderr)
        return 1 if absent else 0
    corpus = corpus_stems(texts)
    missing = uncovered_stems(corpus, glossary_stems(entries))
    end = None if args.top <= 0 else args.skip + args.top
    print("     n  texts  stem                     spellings")
    print("\n".join(format_stems(missing[args.skip : end])))
    print(
        f"{len(missing)} of {len(corpus)} content stems of {len(texts)} texts are not produced by the "
        f"glossary's {len(entries)} entries",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
