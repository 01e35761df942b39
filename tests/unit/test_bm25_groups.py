"""BM25 with groups of alternatives (a cross-lingual question's German terms per English phrase): a passage
scores each group by the term it matches best, so a phrase rendered by several terms counts once."""

from __future__ import annotations

import numpy as np

from rabbithole.core.config import RetrievalSettings
from rabbithole.core.models import Chunk
from rabbithole.retrieval.bm25_index import BM25Index
from rabbithole.retrieval.filters import SearchFilters
from rabbithole.retrieval.glossary import cross_lingual_query
from rabbithole.retrieval.tokenizer import tokenize_query

TEXTS = [
    "Die Geräte sind zu warten. Die Wartung ist zu dokumentieren; gewartet wird von Fachkräften.",
    "Die Wartung der Bestrahlungsvorrichtung erfolgt jährlich durch einen Sachverständigen.",
    "Die Genehmigung für den Umgang mit radioaktiven Stoffen ist zu beantragen.",
    "Der Sachverständige prüft die Vorrichtung jährlich.",
]


def _index() -> BM25Index:
    chunks = [
        Chunk(f"c{i}", "laws", "StrlSchV.pdf", i, text, 0, len(text), 1, 1, f"§ {i + 1}", "")
        for i, text in enumerate(TEXTS)
    ]
    return BM25Index.build("laws", chunks, "1")


def _terms(index: BM25Index, *terms: str) -> list[list[str]]:
    return [tokenize_query(term, index.languages) for term in terms]


def test_a_group_scores_by_its_best_alternative_and_groups_add_up() -> None:
    index = _index()
    service = _terms(index, "Wartung", "warten", "gewartet")
    yearly = _terms(index, "jährlich")
    grouped = index.search_groups([service, yearly], 10)
    assert grouped.scores is not None
    expected = np.zeros(len(TEXTS), dtype=np.float32)
    for group in (service, yearly):
        best = np.zeros(len(TEXTS), dtype=np.float32)
        for tokens in group:
            single = index.search(tokens, 10)
            row_scores = np.array([single.score_of_row(r) for r in range(len(TEXTS))], dtype=np.float32)
            best = np.maximum(best, row_scores)
        expected += best
    np.testing.assert_allclose(grouped.scores, expected, rtol=1e-6)
    # the passage that names the concept three times does not win on that alone
    assert grouped.matches[0].id == "c1"
    flat = index.search([t for group in (service, yearly) for tokens in group for t in tokens], 10)
    assert flat.matches[0].id == "c0"


def test_groups_respect_filters_and_unknown_terms() -> None:
    index = _index()
    only_first = SearchFilters.create(sections=["§ 1"])
    result = index.search_groups([_terms(index, "Wartung")], 10, only_first)
    assert [m.id for m in result.matches] == ["c0"]
    assert index.search_groups([_terms(index, "Zebra")], 10).matches == []
    assert index.search_groups([], 10).matches == []
    assert index.search_groups([_terms(index, "Wartung")], 0).matches == []


def test_the_glossary_gives_one_group_per_phrase_and_one_per_name() -> None:
    question = "How often must the devices be serviced?"
    settings = RetrievalSettings()
    groups = cross_lingual_query(f"{question} See StrlSchV", "en", ("de",), settings)
    assert groups is not None and len(groups) >= 2
    assert any(len(group) > 1 for group in groups)  # a phrase with several German terms
    assert ("StrlSchV",) in groups  # a name kept as it is, a group of its own
    assert cross_lingual_query(question, "de", ("de",), settings) is None
    assert (
        cross_lingual_query(question, "en", ("de",), settings.model_copy(update={"glossary": False})) is None
    )
