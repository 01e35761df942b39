"""An English question over German text searched by two vector retrievers, its own vector and its glossary
translation's (``retrieval.translation_weight``): real embedded Chroma, real bm25s, real USE embeddings."""

from __future__ import annotations

import numpy as np

from fixtures.retrieval import (  # noqa: F401  (the fixtures retrieval_env and use_embedder)
    RetrievalEnv,
    retrieval_env_fixture,
    use_embedder_fixture,
)
from rabbithole.embeddings.base import l2_normalize

QUESTION = "What has to be submitted with the application for a licence?"


def test_the_question_and_its_translation_rank_as_two_retrievers(retrieval_env: RetrievalEnv) -> None:
    s = retrieval_env.searcher_with(translation_weight=0.2)
    result = s.run(QUESTION, "other", k=5)
    assert set(result.candidates) == {"vector", "translation", "bm25"}
    # the question's own first hit is kept among the first five (pin_first = 1)
    own = retrieval_env.embedder.embed_query(QUESTION)
    first = s.run(QUESTION, "other", k=1, mode="vector", query_vector=own).hits[0]
    assert first.chunk.id in [h.chunk.id for h in result.hits]
    # a hit's similarity is the cosine with the combined vector of the views embed_views gives
    combined = s.embed_views(QUESTION, "other").combined
    stored = s.vectors("other").get_embeddings([h.chunk.id for h in result.hits])
    for hit in result.hits:
        expected = float(np.dot(l2_normalize(stored[hit.chunk.id]), combined))
        assert hit.similarity is not None and abs(hit.similarity - expected) < 1e-5


def test_the_views_passed_in_are_searched_as_when_the_query_is_embedded(retrieval_env: RetrievalEnv) -> None:
    s = retrieval_env.searcher_with(translation_weight=0.2)
    embedded = s.run(QUESTION, "other", k=5)
    views = s.embed_views(QUESTION, "other")
    given = s.run(QUESTION, "other", k=5, query_vector=views)
    assert "translation" in given.candidates
    assert [h.chunk.id for h in given.hits] == [h.chunk.id for h in embedded.hits]
    # a plain vector, even the views' combined one, is searched as given, by one vector retriever
    combined = s.run(QUESTION, "other", k=5, query_vector=views.combined)
    assert "translation" not in combined.candidates
    own = retrieval_env.embedder.embed_query(QUESTION)
    assert "translation" not in s.run(QUESTION, "other", k=5, query_vector=own).candidates
    # the views of another query are searched too: nothing is looked up by the query text
    elsewhere = s.run("Genehmigung", "other", k=5, query_vector=views)
    assert "translation" in elsewhere.candidates


def test_one_vector_retriever_where_there_is_no_translation_or_weight(retrieval_env: RetrievalEnv) -> None:
    s = retrieval_env.searcher_with(translation_weight=0.2)
    assert "translation" not in s.run("Was ist dem Antrag auf Genehmigung beizufügen?", "other").candidates
    assert "translation" not in s.run(QUESTION, ["laws", "other"]).candidates  # an English document
    assert "translation" not in s.run(QUESTION, "other", mode="vector").candidates
    off = retrieval_env.searcher_with(translation_weight=0.0)
    summed = off.run(QUESTION, "other", k=5)
    assert set(summed.candidates) == {"vector", "bm25"}
    given = off.run(QUESTION, "other", k=5, query_vector=off.embed_views(QUESTION, "other"))
    assert [h.chunk.id for h in given.hits] == [h.chunk.id for h in summed.hits]


def test_several_vectors_in_one_store_call_answer_as_one_call_each(retrieval_env: RetrievalEnv) -> None:
    s = retrieval_env.searcher_with()
    handle = s.vectors("other")
    embed = retrieval_env.embedder.embed_query
    queries = [embed(QUESTION), embed("Genehmigung Antrag Unterlagen")]
    together = handle.query_many(queries, 7)
    assert together == [handle.query(q, 7) for q in queries]
    assert all(len(matches) == 7 for matches in together)
    assert handle.query_many(queries, 0) == [[], []]
