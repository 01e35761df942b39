"""The BM25 side of a hybrid search: which query each collection's index is searched with, and the merged
candidate list.

Per collection, a German or language-neutral question is searched by its own words plus the legal terms of
its everyday phrases (:func:`rabbithole.retrieval.thesaurus.expanded_query`); a question evidently in a
language none of the collection's documents is in (an English question over German laws) is searched by
the German terms of the English phrases it contains
(:func:`rabbithole.retrieval.glossary.cross_lingual_query`; each phrase scores by the German term a passage
matches best, ``retrieval.glossary_best_term``),
and in hybrid mode, when the glossary knows none of them, that collection's BM25 is left out (it could only
add noise; "bm25" mode always runs BM25). The candidates of all collections are merged by raw BM25 score.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from rabbithole.core.config import RetrievalSettings
from rabbithole.retrieval.bm25_index import BM25Index, BM25Result
from rabbithole.retrieval.bm25_indexes import BM25Indexes
from rabbithole.retrieval.filters import SearchFilters
from rabbithole.retrieval.glossary import cross_lingual_query
from rabbithole.retrieval.thesaurus import expanded_query
from rabbithole.retrieval.tokenizer import query_language, tokenize_query

Key = tuple[str, str]  # (collection, chunk id)


@dataclass(slots=True)
class BM25Side:
    """What the BM25 side of one search found."""

    #: merged candidates, best first, with raw BM25 scores (None: no collection ran BM25)
    ranking: list[tuple[Key, float]] | None = None
    #: raw BM25 score of every candidate any collection returned (also those cut from the ranking)
    scores: dict[Key, float] = field(default_factory=dict)
    #: per collection that ran BM25: its index and result (for the BM25 score of hits found otherwise)
    results: dict[str, tuple[BM25Index, BM25Result]] = field(default_factory=dict)
    #: per collection: its index and the query's tokens (heading matches; also for skipped collections)
    tokens: dict[str, tuple[BM25Index, list[str]]] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)  # collections not searched by BM25 (language)
    translated: list[str] = field(default_factory=list)  # collections searched via the glossary

    def scores_of(self, keys: Sequence[Key]) -> dict[Key, float]:
        """The raw BM25 score of each of ``keys`` (0.0 when no query term occurs in it) in the collections
        that ran BM25, with every candidate's."""
        out = dict(self.scores)
        for key in keys:
            if key not in out and key[0] in self.results:
                index, result = self.results[key[0]]
                row = index.row_of(key[1])
                out[key] = result.score_of_row(row) if row is not None else 0.0
        return out


def search_bm25(
    query: str,
    names: Sequence[str],
    revisions: dict[str, str],
    indexes: BM25Indexes,
    settings: RetrievalSettings,
    filters: SearchFilters,
    n_candidates: int,
    *,
    hybrid: bool,
    cross_lingual_skip: bool = True,
) -> BM25Side:
    """BM25 candidates of ``query`` over the collections ``names`` (read at ``revisions``)."""
    side = BM25Side()
    scored: list[tuple[float, int, Key]] = []
    qlang = query_language(query) if cross_lingual_skip else None
    for c_index, name in enumerate(names):
        index = indexes.get(name, revision=revisions[name])
        bm25_query = expanded_query(query, qlang, index.languages, settings) or query
        groups: list[list[list[str]]] | None = None
        if qlang is not None and qlang not in index.languages:
            translated = cross_lingual_query(query, qlang, index.languages, settings)
            if translated is not None:
                groups = [[tokenize_query(term, index.languages) for term in group] for group in translated]
                bm25_query = " ".join(term for group in translated for term in group)
                side.translated.append(name)
            elif hybrid:
                side.skipped.append(name)
                side.tokens[name] = (index, tokenize_query(query, index.languages))
                continue
        tokens = tokenize_query(bm25_query, index.languages)
        side.tokens[name] = (index, tokens)
        if groups is not None and settings.glossary_best_term:
            result = index.search_groups(groups, n_candidates, filters)
        else:
            result = index.search(tokens, n_candidates, filters)
        side.results[name] = (index, result)
        for hit in result.matches:
            scored.append((-hit.score, c_index, (name, hit.id)))
            side.scores[(name, hit.id)] = hit.score
    scored.sort(key=lambda s: (s[0], s[1]))
    if len(side.skipped) < len(names):
        side.ranking = [(key, side.scores[key]) for _, _, key in scored[:n_candidates]]
    return side
