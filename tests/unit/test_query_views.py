"""The two views of a cross-lingual question (pure parts): combining them, the one vector of views or a
plain vector, and fusing the translation's ranking as a third retriever."""

from __future__ import annotations

import numpy as np

from rabbithole.core.config import RetrievalSettings
from rabbithole.retrieval.query_views import combine, combined_vector
from rabbithole.retrieval.score_fusion import ScoreFusion


def unit(*values: float) -> np.ndarray:
    vector = np.asarray(values, dtype=np.float32)
    return vector / np.linalg.norm(vector)


def test_combine_sums_the_unit_views_with_the_translations_weight() -> None:
    views = combine(np.array([2.0, 0.0, 0.0]), np.array([0.0, 3.0, 0.0]), 1.0)
    np.testing.assert_allclose(views.question, [1.0, 0.0, 0.0])
    np.testing.assert_allclose(views.translation, [0.0, 1.0, 0.0])  # type: ignore[arg-type]
    np.testing.assert_allclose(views.combined, unit(1.0, 1.0, 0.0), atol=1e-6)
    half = combine(np.array([1.0, 0.0, 0.0]), np.array([0.0, 1.0, 0.0]), 0.5)
    np.testing.assert_allclose(half.combined, unit(1.0, 0.5, 0.0), atol=1e-6)


def test_without_translation_or_weight_the_question_is_the_combined_vector() -> None:
    for views in (combine(np.array([0.0, 2.0]), None, 1.0), combine(np.array([0.0, 2.0]), np.ones(2), 0.0)):
        assert views.translation is None
        np.testing.assert_allclose(views.combined, [0.0, 1.0])
        np.testing.assert_allclose(views.question, [0.0, 1.0])


def test_the_one_vector_of_views_is_their_combination_and_a_plain_vector_is_itself() -> None:
    views = combine(unit(1.0, 0.0, 0.0), unit(0.0, 1.0, 0.0), 1.0)
    np.testing.assert_allclose(combined_vector(views), unit(1.0, 1.0, 0.0), atol=1e-6)
    plain = combined_vector(np.array([[0.0, 2.0, 0.0]]))  # as given: neither normalized nor combined
    assert plain.dtype == np.float32 and plain.shape == (3,)
    np.testing.assert_allclose(plain, [0.0, 2.0, 0.0])


def test_score_fusion_weighs_the_translation_beside_vector_and_bm25() -> None:
    a, b, c = ("x", "a"), ("x", "b"), ("x", "c")
    settings = RetrievalSettings(bm25_weight=0.6, translation_weight=0.2, heading_weight=0.0)
    fused = ScoreFusion().fuse(
        {"vector": [(a, 0.9), (b, 0.5)], "translation": [(c, 0.8), (a, 0.4)], "bm25": [(b, 4.0), (c, 2.0)]},
        None,
        10,
        settings,
    )
    score = {f.key: f.rrf for f in fused}
    total = 0.4 + 0.2 + 0.6  # the weights of the retrievers that ran, rescaled to sum to 1
    np.testing.assert_allclose(score[a], 0.4 / total * 1.0 + 0.2 / total * 0.0, atol=1e-9)
    np.testing.assert_allclose(score[b], 0.4 / total * 0.0 + 0.6 / total * 1.0, atol=1e-9)
    np.testing.assert_allclose(score[c], 0.2 / total * 1.0 + 0.6 / total * 0.5, atol=1e-9)
    assert fused[0].key == b and fused[0].ranks == {"vector": 2, "bm25": 1}
    assert {f.key: f.ranks for f in fused}[c] == {"translation": 1, "bm25": 2}
    # without a translation ranking the two retrievers keep their weights
    two = ScoreFusion().fuse({"vector": [(a, 0.9), (b, 0.5)], "bm25": [(b, 4.0)]}, None, 10, settings)
    np.testing.assert_allclose({f.key: f.rrf for f in two}[b], 0.6, atol=1e-9)


def test_a_cross_lingual_search_weighs_bm25_by_its_own_weight() -> None:
    a, b = ("x", "a"), ("x", "b")
    settings = RetrievalSettings(
        bm25_weight=0.6, cross_lingual_bm25_weight=0.8, translation_weight=0.0, heading_weight=0.0
    )
    lists = {"vector": [(a, 0.9), (b, 0.5)], "bm25": [(b, 4.0), (a, 2.0)]}
    plain = {f.key: f.rrf for f in ScoreFusion().fuse(lists, None, 10, settings)}
    crossed = {f.key: f.rrf for f in ScoreFusion().fuse(lists, None, 10, settings, cross_lingual=True)}
    np.testing.assert_allclose(plain[a], 0.4 * 1.0 + 0.6 * 0.5, atol=1e-9)
    np.testing.assert_allclose(crossed[a], 0.2 * 1.0 + 0.8 * 0.5, atol=1e-9)
    np.testing.assert_allclose(crossed[b], 0.8 * 1.0, atol=1e-9)
