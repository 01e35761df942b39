"""Heading matches: the share of a section title's words in the query, on BM25 tokens."""

from __future__ import annotations

from pathlib import Path

from rabbithole.core.models import Chunk
from rabbithole.retrieval.bm25_index import BM25Index
from rabbithole.retrieval.bm25_storage import load_index, save_index
from rabbithole.retrieval.headings import HeadingMatcher, heading_match, heading_words
from rabbithole.retrieval.tokenizer import tokenize_query


def _chunk(i: int, heading: str, section: str) -> Chunk:
    text = f"{section} {heading}\nDer Text des Paragraphen handelt von Strahlenschutz und Dosis {i}."
    return Chunk(f"c{i}", "laws", "StrlSchG.pdf", i, text, 0, len(text), 1, 1, section, heading)


def _index() -> BM25Index:
    chunks = [
        _chunk(0, "Grenzwerte für beruflich exponierte Personen", "§ 78"),
        _chunk(1, "Grenzwert für die Berufslebensdosis", "§ 77"),
        _chunk(2, "Begriffsbestimmungen", "§ 5"),
    ]
    return BM25Index.build("laws", chunks, "1")


def test_full_title_in_the_query_matches_fully() -> None:
    index = _index()
    query = tokenize_query("Grenzwerte für beruflich exponierte Personen", index.languages)
    matcher = HeadingMatcher()
    assert matcher.match(index, 0, query) == 1.0
    assert matcher.match(index, 1, query) < 1.0


def test_partial_and_short_headings() -> None:
    index = _index()
    words = heading_words("Grenzwerte für beruflich exponierte Personen", index)
    assert len(words) == 4  # "für" is a stopword
    half = tokenize_query("beruflich exponierte", index.languages)
    assert heading_match(words, half) == 0.5
    # a one-word heading counts only when the query holds it
    short = heading_words("Begriffsbestimmungen", index)
    assert heading_match(short, tokenize_query("Begriffsbestimmungen", index.languages)) == 1.0
    two = heading_words("Berufslebensdosis Grenzwert", index)
    assert heading_match(two, tokenize_query("Grenzwert", index.languages)) == 0.0
    assert heading_match(frozenset(), half) == 0.0


def test_headings_survive_save_and_load(tmp_path: Path) -> None:
    index = _index()
    save_index(index, tmp_path)
    loaded = load_index(tmp_path, index.fingerprint)
    assert loaded is not None
    assert [loaded.heading_of(row) for row in range(3)] == [index.heading_of(row) for row in range(3)]
    assert loaded.heading_of(0) == "Grenzwerte für beruflich exponierte Personen"
