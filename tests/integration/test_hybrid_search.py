"""Hybrid search end to end: real Chroma (embedded, and a `chroma run` server), real bm25s, real USE
embeddings, German law sections."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from fixtures.retrieval import (  # noqa: F401  (the fixture use_embedder)
    ENGLISH_DOCUMENT,
    RetrievalEnv,
    build_retrieval_env,
    embedding_text,
    index_chunks,
    law_chunks,
    use_embedder_fixture,
)
from rabbithole.core.config import RetrievalSettings, StorageSettings
from rabbithole.core.errors import CollectionNotFoundError, EmbeddingModelMismatchError, InvalidRequestError
from rabbithole.core.models import Chunk, SearchHit
from rabbithole.embeddings.base import Embedder, FloatArray, l2_normalize
from rabbithole.retrieval.bm25_index import BM25Index
from rabbithole.retrieval.bm25_indexes import BM25Indexes
from rabbithole.retrieval.bm25_storage import load_index, save_index
from rabbithole.retrieval.filters import SearchFilters
from rabbithole.retrieval.glossary import cross_lingual_text
from rabbithole.retrieval.hybrid import HybridSearcher
from rabbithole.retrieval.source import InMemoryChunkSource
from rabbithole.store.chroma_store import ChromaStore

GRENZWERTE = "Grenzwerte für beruflich exponierte Personen"
SPALTUNG = "Genehmigung von Anlagen zur Spaltung von Kernbrennstoffen"


def sections(hits: list[SearchHit]) -> list[tuple[str, str | None]]:
    return [(h.chunk.document, h.chunk.section) for h in hits]


@pytest.fixture(autouse=True)
def no_default_embedding_function(monkeypatch: pytest.MonkeyPatch) -> None:
    from chromadb.api.types import DefaultEmbeddingFunction

    def refuse(self: object, input: object) -> None:
        raise AssertionError("Chroma's default embedding function was called")

    monkeypatch.setattr(DefaultEmbeddingFunction, "__call__", refuse)


@pytest.fixture(scope="module", params=["embedded", "server"])
def retrieval_env(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, use_embedder: Embedder
) -> RetrievalEnv:
    """The corpus in embedded Chroma, and in a database of its own on the session's Chroma server."""
    vectors = None
    if request.param == "server":
        server = request.getfixturevalue("chroma_server")
        server.start()
        vectors = server.vectors()
    return build_retrieval_env(tmp_path_factory.mktemp("retrieval"), use_embedder, vectors)


# --- finding the right § -----------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["hybrid", "bm25"])
def test_lexical_modes_rank_the_right_section_on_top(retrieval_env: RetrievalEnv, mode: str) -> None:
    s = retrieval_env.searcher
    assert ("StrlSchG.pdf", "§ 78") in sections(s.search(GRENZWERTE, "laws", mode=mode, k=2))  # type: ignore[arg-type]
    assert sections(s.search(SPALTUNG, "laws", mode=mode, k=1)) == [("AtG.pdf", "§ 7")]  # type: ignore[arg-type]


def test_vector_mode_finds_the_right_section(retrieval_env: RetrievalEnv) -> None:
    s = retrieval_env.searcher
    assert ("StrlSchG.pdf", "§ 78") in sections(s.search(GRENZWERTE, "laws", mode="vector", k=5))
    assert ("AtG.pdf", "§ 7") in sections(s.search(SPALTUNG, "laws", mode="vector", k=5))
    # the neighbours are on topic too: dose limits, licences
    assert {sec for _, sec in sections(s.search(GRENZWERTE, "laws", mode="vector", k=3))} <= {
        "§ 77",
        "§ 78",
        "§ 79",
        "§ 80",
    }


def test_section_citation_query_finds_the_section_itself(retrieval_env: RetrievalEnv) -> None:
    hits = retrieval_env.searcher.search("§ 7 AtG", "laws", mode="bm25", k=3)
    assert all(section == ("AtG.pdf", "§ 7") for section in sections(hits))
    hits = retrieval_env.searcher.search("§78 StrlSchG", "laws", k=1)
    assert sections(hits) == [("StrlSchG.pdf", "§ 78")]


def test_english_query_finds_english_and_german_passages(retrieval_env: RetrievalEnv) -> None:
    hits = retrieval_env.searcher.search("dose limits for occupationally exposed workers", "laws", k=5)
    assert hits[0].chunk.document == ENGLISH_DOCUMENT
    assert hits[0].chunk.heading == "Dose limits"
    assert any(h.chunk.document == "StrlSchG.pdf" for h in hits)


def test_english_question_over_german_text_runs_bm25_with_german_terms(retrieval_env: RetrievalEnv) -> None:
    s = retrieval_env.searcher
    question = "What has to be submitted with the application for a licence?"
    german_only = s.run(question, "other", k=3)
    assert german_only.bm25_translated == ["other"] and german_only.bm25_skipped == []
    assert "bm25" in german_only.candidates
    assert any(h.bm25_rank is not None for h in german_only.hits)
    # "laws" has an English document, so BM25 runs there with the question as it is
    mixed = s.run(question, ["laws", "other"], k=3)
    assert mixed.bm25_translated == ["other"] and mixed.bm25_skipped == []
    # the translated terms score like a German question: "Antrag" and "Genehmigung" match
    assert s.run(question, "other", mode="bm25", k=3).hits


def test_english_question_over_german_text_is_embedded_with_its_translation(
    retrieval_env: RetrievalEnv,
) -> None:
    s = retrieval_env.searcher
    embedder = retrieval_env.embedder
    question = "What has to be submitted with the application for a licence?"
    plain = embedder.embed_query(question)
    german = cross_lingual_text(question, ("de",), s.settings)
    assert german is not None
    expected = l2_normalize(l2_normalize(plain) + l2_normalize(embedder.embed_query(german)))
    np.testing.assert_allclose(s.embed_views(question, "other").combined, expected, atol=1e-6)
    # a collection with an English document, a German question, or no collection: the question alone
    np.testing.assert_allclose(s.embed_views(question, ["laws", "other"]).combined, plain, atol=1e-6)
    assert s.embed_views(question, ["laws", "other"]).translation is None
    np.testing.assert_allclose(s.embed_query(question), plain, atol=1e-6)
    german_question = "Was ist dem Antrag auf Genehmigung beizufügen?"
    np.testing.assert_allclose(
        s.embed_views(german_question, "other").combined, embedder.embed_query(german_question), atol=1e-6
    )
    # run() embeds the same way as embed_views with the searched collections
    embedded = s.run(question, "other", k=5)
    given = s.run(question, "other", k=5, query_vector=s.embed_views(question, "other"))
    assert [h.chunk.id for h in embedded.hits] == [h.chunk.id for h in given.hits]
    off = retrieval_env.searcher_with(glossary_vector_weight=0.0)
    np.testing.assert_allclose(off.embed_views(question, "other").combined, plain, atol=1e-6)


def test_pin_first_keeps_each_retrievers_best_among_the_first_five(retrieval_env: RetrievalEnv) -> None:
    query = "Wer muss radioaktive Abfälle abliefern und wann gilt eine Genehmigung?"
    fused = retrieval_env.searcher_with(pin_first=0).search(query, "laws", k=10)
    pinned = retrieval_env.searcher_with(pin_first=2).search(query, "laws", k=10)
    best = [h.chunk.id for h in pinned if min(h.vector_rank or 99, h.bm25_rank or 99) <= 2]
    assert best and all(chunk in [h.chunk.id for h in pinned[:5]] for chunk in best)
    # the others keep the order fusion gave them
    others = [h.chunk.id for h in pinned if h.chunk.id not in best]
    assert others == [h.chunk.id for h in fused if h.chunk.id not in best][: len(others)]


def test_cross_lingual_query_skips_bm25_where_nothing_can_match(retrieval_env: RetrievalEnv) -> None:
    env = retrieval_env
    question = "What has to be submitted with the application for a licence?"
    without_glossary = HybridSearcher(
        env.embedder,
        env.store,
        env.source,
        index_dir=env.storage.index_dir,
        settings=RetrievalSettings(k=5, candidates=30, glossary=False),
    )
    for searcher, query in ((without_glossary, question), (env.searcher, "What about zebras and giraffes?")):
        result = searcher.run(query, "other", k=3)
        assert result.bm25_skipped == ["other"] and result.bm25_translated == []
        assert "bm25" not in result.candidates
        assert result.hits[0].score == pytest.approx(1.0)  # ranked first by the only retriever that ran
        assert all(h.bm25 is None and h.bm25_rank is None for h in result.hits)
        # explicit bm25 mode always runs BM25
        assert searcher.run(query, "other", mode="bm25").bm25_skipped == []


def test_exact_section_title_ranks_that_section_first(retrieval_env: RetrievalEnv) -> None:
    hits = retrieval_env.searcher.search("Grenzwerte für beruflich exponierte Personen", "laws", k=3)
    assert (hits[0].chunk.document, hits[0].chunk.section) == ("StrlSchG.pdf", "§ 78")


# --- scores ------------------------------------------------------------------------------------------


def test_scores_are_normalized_monotone_and_complete(retrieval_env: RetrievalEnv) -> None:
    settings = retrieval_env.searcher.settings
    assert settings.fusion == "score"
    # pin_first moves hits up without changing their fused score; without it scores fall monotonically
    unpinned = retrieval_env.searcher_with(pin_first=0)
    for query in (GRENZWERTE, SPALTUNG, "Aufbewahrung von Kernbrennstoffen", "radon workplaces"):
        hits = retrieval_env.searcher.search(query, ["laws", "other"], k=8)
        assert hits
        scores = [h.score for h in hits]
        assert all(0.0 <= s <= 1.0 for s in scores)
        fused = [h.score for h in unpinned.search(query, ["laws", "other"], k=8)]
        assert fused == sorted(fused, reverse=True)
        for hit in hits:
            assert hit.similarity is not None and -1.0 <= hit.similarity <= 1.0  # also for BM25-only hits
            assert hit.bm25 is not None and hit.bm25 >= 0.0
            assert hit.vector_rank is not None or hit.bm25_rank is not None
            # found by one retriever only: at most its weight plus the heading bonus
            if hit.bm25_rank is None:
                assert hit.score <= 1 - settings.bm25_weight + settings.heading_weight + 1e-9
            if hit.vector_rank is None:
                assert hit.score <= settings.bm25_weight + settings.heading_weight + 1e-9


def test_rrf_fusion_scores_single_retriever_hits_at_most_half(retrieval_env: RetrievalEnv) -> None:
    env = retrieval_env
    rrf = HybridSearcher(
        env.embedder,
        env.store,
        env.source,
        index_dir=env.storage.index_dir,
        settings=RetrievalSettings(k=5, candidates=30, fusion="rrf", rrf_k=60, pin_first=0),
    )
    for query in (GRENZWERTE, SPALTUNG, "radon workplaces"):
        hits = rrf.search(query, ["laws", "other"], k=8)
        scores = [h.score for h in hits]
        assert scores == sorted(scores, reverse=True)
        for hit in hits:
            if hit.bm25_rank is None or hit.vector_rank is None:
                assert hit.score <= 0.5 + 1e-9


def test_first_in_both_rankings_scores_one(retrieval_env: RetrievalEnv) -> None:
    hit = retrieval_env.searcher.search("dose limits for occupationally exposed workers", "laws", k=1)[0]
    assert (hit.vector_rank, hit.bm25_rank) == (1, 1)
    assert hit.score == pytest.approx(1.0)


def test_similarity_of_bm25_only_hits_is_the_true_cosine(retrieval_env: RetrievalEnv) -> None:
    env = retrieval_env
    query_vector = env.embedder.embed_query(SPALTUNG)
    hits = env.searcher.search(SPALTUNG, "laws", k=10, candidates=10)
    by_id = {c.id: c for c in env.chunks["laws"]}
    for hit in hits:
        expected = float(
            env.embedder.embed_documents([embedding_text(by_id[hit.chunk.id])])[0] @ query_vector
        )
        assert hit.similarity == pytest.approx(expected, abs=1e-3)
    assert any(h.vector_rank is None for h in hits)  # there was something to fetch


def test_bm25_only_hits_take_their_similarity_from_the_copy_beside_the_index(
    retrieval_env: RetrievalEnv, monkeypatch: pytest.MonkeyPatch
) -> None:
    """warm() copies the collection's vectors beside its BM25 index; searches then give BM25-only hits the
    same similarity without asking the store, and fall back to the store once the collection changed."""
    from rabbithole.embeddings.base import l2_normalize
    from rabbithole.store.chroma_store import VectorCollection

    env = retrieval_env
    chunks = law_chunks("copy", "StrlSchG.pdf")
    index_chunks(env.store, env.embedder, chunks, "copy")
    env.source.add(chunks)
    query_vector = l2_normalize(env.embedder.embed_query(SPALTUNG))

    def search(searcher: HybridSearcher) -> list[SearchHit]:
        return searcher.search(SPALTUNG, "copy", k=10, candidates=5, query_vector=query_vector)

    def similarities(hits: list[SearchHit]) -> dict[str, float | None]:
        """Of the BM25-only hits (the others have theirs from the vector query's distances)."""
        return {h.chunk.id: h.similarity for h in hits if h.vector_rank is None}

    def true_similarities(hits: list[SearchHit]) -> dict[str, float | None]:
        stored = env.store.open("copy").get_embeddings([h.chunk.id for h in hits if h.vector_rank is None])
        return {
            cid: float(np.clip(np.dot(l2_normalize(v), query_vector), -1.0, 1.0)) for cid, v in stored.items()
        }

    from_store = search(env.make_searcher())
    assert any(h.vector_rank is None for h in from_store)  # BM25-only hits, whose vectors must be read
    assert similarities(from_store) == true_similarities(from_store)

    env.make_searcher().warm("copy")
    assert list(env.make_searcher().bm25.directory("copy").glob("vectors-*.npy"))

    def no_store_reads(self: VectorCollection, ids: object) -> None:
        raise AssertionError("the store was asked for vectors")

    with monkeypatch.context() as patched:
        patched.setattr(VectorCollection, "get_embeddings", no_store_reads)
        from_copy = search(env.make_searcher())  # a new searcher, as in a new process: reads the file
    assert any(h.vector_rank is None for h in from_copy)
    assert similarities(from_copy) == true_similarities(from_copy)

    env.source.add([replace(chunks[0], text=chunks[0].text + " Nachtrag")])  # a new revision
    changed = search(env.make_searcher())  # the copy belongs to the old revision: the store answers
    assert similarities(changed) == true_similarities(changed)


def test_single_retriever_modes(retrieval_env: RetrievalEnv) -> None:
    s = retrieval_env.searcher
    vector = s.search(GRENZWERTE, "laws", mode="vector", k=5)
    assert all(h.bm25 is None and h.bm25_rank is None and h.vector_rank for h in vector)
    assert vector[0].score == pytest.approx(1.0)
    similarities = [h.similarity for h in vector]
    assert similarities == sorted(similarities, reverse=True)  # type: ignore[type-var]
    bm25 = s.search(GRENZWERTE, "laws", mode="bm25", k=5)
    assert all(h.similarity is None and h.vector_rank is None and h.bm25_rank for h in bm25)
    assert [h.bm25 for h in bm25] == sorted((h.bm25 for h in bm25), reverse=True)  # type: ignore[type-var]
    with_vector = s.search(
        GRENZWERTE, "laws", mode="bm25", k=5, query_vector=retrieval_env.embedder.embed_query(GRENZWERTE)
    )
    assert [h.chunk.id for h in with_vector] == [h.chunk.id for h in bm25]
    assert all(h.similarity is not None for h in with_vector)


def test_given_query_vector_replaces_embedding(retrieval_env: RetrievalEnv) -> None:
    s = retrieval_env.searcher
    vector = retrieval_env.embedder.embed_query(SPALTUNG)
    embedded = s.run(SPALTUNG, "laws", k=5)
    given = s.run(SPALTUNG, "laws", k=5, query_vector=vector * 3.0)  # normalized on the way in
    assert "embed" in embedded.timings and "embed" not in given.timings
    assert [h.chunk.id for h in given.hits] == [h.chunk.id for h in embedded.hits]
    np.testing.assert_allclose([h.score for h in given.hits], [h.score for h in embedded.hits], atol=1e-5)
    with pytest.raises(InvalidRequestError, match="dimensions"):
        s.search(SPALTUNG, "laws", query_vector=np.ones(7, dtype=np.float32))


# --- filters -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["hybrid", "vector", "bm25"])
def test_document_filter(retrieval_env: RetrievalEnv, mode: str) -> None:
    s = retrieval_env.searcher
    hits = s.search(GRENZWERTE, "laws", mode=mode, k=6, filters=SearchFilters.create(documents="AtG.pdf"))  # type: ignore[arg-type]
    assert hits and {h.chunk.document for h in hits} == {"AtG.pdf"}
    several = SearchFilters.create(documents=["AtG.pdf", ENGLISH_DOCUMENT])
    hits = s.search("dose limits Genehmigung", "laws", mode=mode, k=10, filters=several)  # type: ignore[arg-type]
    assert {h.chunk.document for h in hits} <= {"AtG.pdf", ENGLISH_DOCUMENT}
    assert len({h.chunk.document for h in hits}) == 2


@pytest.mark.parametrize("mode", ["hybrid", "vector", "bm25"])
def test_section_filter(retrieval_env: RetrievalEnv, mode: str) -> None:
    s = retrieval_env.searcher
    for label in ("§ 80", "§80"):
        hits = s.search(GRENZWERTE, "laws", mode=mode, k=5, filters=SearchFilters.create(sections=label))  # type: ignore[arg-type]
        assert hits and {h.chunk.section for h in hits} == {"§ 80"}
    hits = s.search(
        GRENZWERTE,
        "laws",
        mode=mode,  # type: ignore[arg-type]
        k=10,
        filters=SearchFilters.create(documents="StrlSchG.pdf", sections=["§ 77", "§ 78"]),
    )
    assert {h.chunk.section for h in hits} == {"§ 77", "§ 78"}


@pytest.mark.parametrize("mode", ["hybrid", "vector", "bm25"])
def test_page_range_filter(retrieval_env: RetrievalEnv, mode: str) -> None:
    env = retrieval_env
    target = next(c for c in env.chunks["laws"] if c.section == "§ 78")
    low, high = target.page, target.page_end
    hits = env.searcher.search(
        GRENZWERTE,
        "laws",
        mode=mode,
        k=10,
        filters=SearchFilters.create(page_from=low, page_to=high),  # type: ignore[arg-type]
    )
    assert hits
    for hit in hits:
        assert hit.chunk.page <= high and hit.chunk.page_end >= low
    allowed = {c.id for c in env.chunks["laws"] if c.page <= high and c.page_end >= low}
    assert {h.chunk.id for h in hits} <= allowed
    only_after = env.searcher.search(
        GRENZWERTE, "laws", mode=mode, k=10, filters=SearchFilters.create(page_from=high + 1)
    )  # type: ignore[arg-type]
    assert all(h.chunk.page_end > high for h in only_after)


def test_filter_matching_nothing(retrieval_env: RetrievalEnv) -> None:
    none = SearchFilters.create(documents="Unbekannt.pdf")
    assert retrieval_env.searcher.search(GRENZWERTE, "laws", filters=none) == []


# --- collections -------------------------------------------------------------------------------------


def test_several_collections_are_searched_together(retrieval_env: RetrievalEnv) -> None:
    s = retrieval_env.searcher
    query = "Form und Inhalt des Antrags auf Genehmigung einer Anlage"
    hits = s.search(query, ["laws", "other"], k=10)
    assert {h.chunk.collection for h in hits} == {"laws", "other"}
    assert ("AtVfV.pdf", "§ 2") in sections(hits)
    only_other = s.search(query, "other", k=10)
    assert {h.chunk.collection for h in only_other} == {"other"}
    # the same collection twice is searched once
    assert [h.chunk.id for h in s.search(query, ["other", "other"], k=10)] == [h.chunk.id for h in only_other]


def test_unknown_collection(retrieval_env: RetrievalEnv) -> None:
    with pytest.raises(CollectionNotFoundError, match="Normen"):
        retrieval_env.searcher.search(GRENZWERTE, ["laws", "Normen"])
    with pytest.raises(CollectionNotFoundError):
        retrieval_env.searcher.search(GRENZWERTE, "Normen", mode="bm25")


# --- de-duplication ----------------------------------------------------------------------------------


def test_no_two_hits_overlap_within_a_document(retrieval_env: RetrievalEnv) -> None:
    for mode in ("hybrid", "vector", "bm25"):
        hits = retrieval_env.searcher.search(SPALTUNG, "laws", mode=mode, k=15)  # type: ignore[arg-type]
        for i, a in enumerate(hits):
            for b in hits[i + 1 :]:
                if a.chunk.document == b.chunk.document:
                    assert a.chunk.end <= b.chunk.start or b.chunk.end <= a.chunk.start


def test_overlapping_duplicates_are_collapsed_to_the_better_one(tmp_path: Path, use_embedder: object) -> None:
    storage = StorageSettings(data_dir=tmp_path)
    store = ChromaStore.from_settings(storage)
    text = (
        "Der Grenzwert der effektiven Dosis beträgt für beruflich exponierte Personen 20 Millisievert im "
        "Kalenderjahr. Die zuständige Behörde kann im Einzelfall eine effektive Dosis von 50 Millisievert "
        "zulassen."
    )
    base = Chunk("dup:0", "dup", "StrlSchG.pdf", 0, text, 1000, 1000 + len(text), 5, 5, "§ 78", "Grenzwerte")
    shifted = replace(
        base, id="dup:1", ordinal=1, text=text[20:] + " Weitere Sätze.", start=1020, end=1020 + len(text)
    )
    elsewhere = replace(
        base, id="dup:2", ordinal=2, start=50_000, end=50_000 + len(text), page=40, page_end=40
    )
    other_doc = replace(base, id="dup:3", ordinal=0, document="Kopie.pdf")
    chunks = [base, shifted, elsewhere, other_doc]
    index_chunks(store, use_embedder, chunks, "dup")  # type: ignore[arg-type]
    searcher = HybridSearcher(use_embedder, store, InMemoryChunkSource(chunks), index_dir=storage.index_dir)  # type: ignore[arg-type]
    hits = searcher.search(GRENZWERTE, "dup", k=10)
    ids = [h.chunk.id for h in hits]
    assert len(ids) == 3
    assert {"dup:2", "dup:3"} <= set(ids)
    assert len({"dup:0", "dup:1"} & set(ids)) == 1
    relaxed = HybridSearcher(
        use_embedder,
        store,
        InMemoryChunkSource(chunks),
        index_dir=storage.index_dir,
        dedup_min_overlap=0.99,  # type: ignore[arg-type]
    )
    assert len(relaxed.search(GRENZWERTE, "dup", k=10)) == 4


# --- model identity, persistence, index maintenance ---------------------------------------------------


class OtherModel:
    model_id = "sentence-transformers:some-other-model"
    dim = 384

    def embed_documents(self, texts: object) -> FloatArray:
        raise AssertionError("must not be called")

    def embed_query(self, text: str) -> FloatArray:
        raise AssertionError("must not be called")


def test_model_mismatch_is_refused(retrieval_env: RetrievalEnv) -> None:
    env = retrieval_env
    searcher = HybridSearcher(OtherModel(), env.store, env.source, index_dir=env.storage.index_dir)
    with pytest.raises(EmbeddingModelMismatchError, match=r"re-index|--reindex"):
        searcher.search(GRENZWERTE, "laws")
    with pytest.raises(EmbeddingModelMismatchError):
        searcher.search(GRENZWERTE, "laws", mode="vector", query_vector=np.ones(384, dtype=np.float32))
    # BM25 alone does not depend on the embedding model
    assert searcher.search(GRENZWERTE, "laws", mode="bm25", k=1)


def test_results_survive_reopening_the_store(retrieval_env: RetrievalEnv) -> None:
    env = retrieval_env
    before = env.searcher.search(SPALTUNG, ["laws", "other"], k=5)
    reopened = ChromaStore.from_settings(env.storage, env.vectors)
    fresh = HybridSearcher(
        env.embedder,
        reopened,
        env.source,
        index_dir=env.storage.index_dir,
        settings=RetrievalSettings(k=5, candidates=30, rrf_k=60),
    )
    after = fresh.search(SPALTUNG, ["laws", "other"], k=5)
    assert [h.chunk.id for h in after] == [h.chunk.id for h in before]
    assert fresh.bm25.builds == 0 and fresh.bm25.loads == 2  # BM25 came from disk


def test_bm25_index_is_rebuilt_only_when_the_revision_changes(tmp_path: Path) -> None:
    chunks = [
        Chunk(f"c:{i}", "c", "a.pdf", i, text, i * 100, i * 100 + 50, 1, 1, None, "")
        for i, text in enumerate(["Genehmigung von Anlagen", "Grenzwerte der Dosis", "Radon am Arbeitsplatz"])
    ]
    source = InMemoryChunkSource(chunks)
    indexes = BM25Indexes(tmp_path, source)
    first = indexes.get("c")
    assert indexes.get("c") is first
    assert (indexes.builds, indexes.loads) == (1, 0)

    # another process (a new instance) loads the persisted index instead of rebuilding it
    other = BM25Indexes(tmp_path, source)
    loaded = other.get("c")
    assert (other.builds, other.loads) == (0, 1)
    assert loaded.ids == first.ids
    assert [m.id for m in loaded.search("Dosis", 5).matches] == ["c:1"]

    source.add([Chunk("c:9", "c", "b.pdf", 0, "Dosisgrenzwerte und Dosis", 0, 30, 2, 2, None, "")])
    rebuilt = indexes.get("c")
    assert rebuilt is not first and indexes.builds == 2
    assert "c:9" in [m.id for m in rebuilt.search("Dosis", 5).matches]
    assert other.get("c").ids == rebuilt.ids and other.builds == 0 and other.loads == 2  # picked up from disk

    # only one version stays on disk
    assert len(list(indexes.directory("c").glob("bm25-*"))) == 1
    indexes.delete("c")
    assert not indexes.directory("c").exists()


def test_bm25_tokens_prepared_during_ingestion_give_the_same_index(tmp_path: Path) -> None:
    """Token lists computed ahead per document (while ingestion embeds) build the same index as computing
    them at build time; ones computed from other chunks (the document changed since) are not used."""
    from fixtures.retrieval import sample_corpus

    chunks = sample_corpus("c")
    source = InMemoryChunkSource(chunks)
    plain = BM25Indexes(tmp_path / "plain", source).get("c")

    ahead = BM25Indexes(tmp_path / "ahead", source)
    by_document: dict[str, list[Chunk]] = {}
    for chunk in chunks:
        by_document.setdefault(chunk.document, []).append(chunk)
    for document_chunks in by_document.values():
        ahead.prepare_document("c", document_chunks)
    stale = by_document["AtG.pdf"]
    ahead.prepare_document("c", [replace(stale[0], text="Strahlenschutz Strahlenschutz"), *stale[1:]])
    prepared = ahead.get("c")

    assert prepared.retriever.vocab_dict == plain.retriever.vocab_dict
    assert prepared.languages == plain.languages
    for query in (GRENZWERTE, SPALTUNG, "Strahlenschutz", "dose limits for workers", "§ 7 AtG"):
        assert prepared.search(query, 20).matches == plain.search(query, 20).matches


def test_damaged_bm25_index_is_rebuilt(tmp_path: Path) -> None:
    chunks = [Chunk("c:0", "c", "a.pdf", 0, "Genehmigung von Anlagen", 0, 20, 1, 1, None, "")]
    source = InMemoryChunkSource(chunks)
    BM25Indexes(tmp_path, source).get("c")
    directory = BM25Indexes(tmp_path, source).directory("c")
    for path in directory.glob("bm25-*/rows.json"):
        path.write_text("{ not json")
    fresh = BM25Indexes(tmp_path, source)
    assert fresh.get("c").ids == ["c:0"]
    assert fresh.builds == 1


def test_bm25_index_of_empty_and_tokenless_collections(tmp_path: Path) -> None:
    empty = BM25Index.build("e", [], "1")
    assert len(empty) == 0 and empty.search("Genehmigung", 5).matches == []
    stopwords_only = BM25Index.build(
        "s", [Chunk("s:0", "s", "a.pdf", 0, "und oder der", 0, 10, 1, 1, None, "")], "1"
    )
    assert stopwords_only.search("und", 5).matches == []
    save_index(empty, tmp_path / "e")
    assert load_index(tmp_path / "e", empty.fingerprint) is not None
    assert load_index(tmp_path / "e", "another fingerprint") is None
    assert load_index(tmp_path / "missing") is None


def test_chunks_missing_from_the_catalog_are_skipped(retrieval_env: RetrievalEnv) -> None:
    env = retrieval_env
    partial = InMemoryChunkSource(c for c in env.chunks["laws"] if c.section != "§ 7")
    searcher = HybridSearcher(env.embedder, env.store, partial, index_dir=env.data_dir / "partial-indexes")
    hits = searcher.search(SPALTUNG, "laws", k=5)
    assert hits and all(h.chunk.section != "§ 7" or h.chunk.document != "AtG.pdf" for h in hits)


def test_empty_collection_returns_nothing(retrieval_env: RetrievalEnv) -> None:
    env = retrieval_env
    env.store.open("leer", env.embedder, create=True)
    assert env.searcher.search(GRENZWERTE, "leer") == []
    assert env.searcher.search(GRENZWERTE, "leer", mode="bm25") == []


def test_invalid_requests(retrieval_env: RetrievalEnv) -> None:
    s = retrieval_env.searcher
    with pytest.raises(InvalidRequestError):
        s.search("   ", "laws")
    with pytest.raises(InvalidRequestError):
        s.search(GRENZWERTE, "laws", k=0)
    with pytest.raises(InvalidRequestError):
        s.search(GRENZWERTE, [])
    with pytest.raises(InvalidRequestError):
        s.search(GRENZWERTE, "laws", mode="semantic")  # type: ignore[arg-type]
    with pytest.raises(InvalidRequestError):
        s.search(GRENZWERTE, "laws", filters=SearchFilters(page_from=5, page_to=2))
    with pytest.raises(InvalidRequestError):
        SearchFilters.create(page_from=0)
    # stopwords only: nothing for BM25, the vector side still answers
    assert s.search("und oder der", "laws", mode="bm25") == []
    assert s.search("und oder der", "laws", mode="hybrid")


def test_timings_are_reported(retrieval_env: RetrievalEnv) -> None:
    result = retrieval_env.searcher.run(GRENZWERTE, "laws")
    assert {"embed", "vector", "bm25", "fuse", "fetch", "total"} <= set(result.timings)
    assert result.candidates["vector"] > 0 and result.candidates["bm25"] > 0


def test_concurrent_searches_agree_with_serial_ones(retrieval_env: RetrievalEnv) -> None:
    from concurrent.futures import ThreadPoolExecutor

    queries = [GRENZWERTE, SPALTUNG, "Aufbewahrung von Kernbrennstoffen", "dose limits"] * 3
    serial = [[h.chunk.id for h in retrieval_env.searcher.search(q, ["laws", "other"])] for q in queries]
    fresh = retrieval_env.make_searcher()  # cold BM25 cache: the threads race to load it
    with ThreadPoolExecutor(max_workers=4) as pool:
        parallel = list(pool.map(lambda q: [h.chunk.id for h in fresh.search(q, ["laws", "other"])], queries))
    assert parallel == serial
    assert fresh.bm25.builds + fresh.bm25.loads == 2
