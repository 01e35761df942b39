from __future__ import annotations

import pytest

from rabbithole.retrieval.fusion import (
    Fused,
    dedup_overlapping,
    max_rrf,
    pin_first_ranks,
    reciprocal_rank_fusion,
)


def test_rrf_sums_reciprocal_ranks() -> None:
    fused = reciprocal_rank_fusion({"vector": ["a", "b", "c"], "bm25": ["b", "d"]}, k=60)
    by_key = {f.key: f for f in fused}
    assert by_key["b"].rrf == pytest.approx(1 / 62 + 1 / 61)
    assert by_key["a"].rrf == pytest.approx(1 / 61)
    assert by_key["d"].rrf == pytest.approx(1 / 62)
    assert [f.key for f in fused] == ["b", "a", "d", "c"]
    assert by_key["b"].ranks == {"vector": 2, "bm25": 1}
    assert by_key["c"].ranks == {"vector": 3}


def test_normalized_score_is_one_only_when_first_everywhere() -> None:
    fused = reciprocal_rank_fusion({"vector": ["a", "b"], "bm25": ["a", "b"]}, k=60)
    assert fused[0].key == "a"
    assert fused[0].score == pytest.approx(1.0)
    assert 0 < fused[1].score < 1
    single = reciprocal_rank_fusion({"vector": ["x"], "bm25": ["y"]}, k=60)
    assert all(f.score == pytest.approx(0.5) for f in single)


def test_normalization_counts_retrievers_that_found_nothing() -> None:
    fused = reciprocal_rank_fusion({"vector": ["a"], "bm25": []}, k=60)
    assert fused[0].score == pytest.approx(0.5)
    one = reciprocal_rank_fusion({"vector": ["a"]}, k=60)
    assert one[0].score == pytest.approx(1.0)
    three = reciprocal_rank_fusion({"vector": ["a"]}, k=60, n_retrievers=3)
    assert three[0].score == pytest.approx(1 / 3)


def test_scores_are_in_unit_interval_and_monotone() -> None:
    fused = reciprocal_rank_fusion(
        {"vector": [str(i) for i in range(50)], "bm25": [str(i) for i in range(49, -1, -1)]}, k=10
    )
    scores = [f.score for f in fused]
    assert all(0 <= s <= 1 for s in scores)
    assert scores == sorted(scores, reverse=True)


def test_ties_prefer_the_better_single_rank_then_first_seen() -> None:
    fused = reciprocal_rank_fusion({"vector": ["a", "b"], "bm25": ["b", "a"]}, k=60)
    assert fused[0].rrf == pytest.approx(fused[1].rrf)
    assert [f.key for f in fused] == ["a", "b"]


def test_duplicate_keys_in_one_ranking_count_once() -> None:
    fused = reciprocal_rank_fusion({"vector": ["a", "a", "b"]}, k=60)
    assert fused[0].rrf == pytest.approx(1 / 61)
    assert fused[1].ranks == {"vector": 3}


def test_max_rrf_and_invalid_k() -> None:
    assert max_rrf(2, 60) == pytest.approx(2 / 61)
    with pytest.raises(ValueError):
        reciprocal_rank_fusion({"v": ["a"]}, k=0)


def _span(item: tuple[str, str, int, int]) -> tuple[str, int, int]:
    return item[1], item[2], item[3]


def test_dedup_drops_overlapping_spans_of_one_document_keeping_the_first() -> None:
    items = [
        ("best", "doc", 100, 200),
        ("overlaps-best", "doc", 150, 250),
        ("adjacent", "doc", 200, 300),  # [200, 300) touches [100, 200) without overlapping
        ("other-doc", "other", 100, 200),
        ("inside", "doc", 120, 130),
    ]
    kept = dedup_overlapping(items, _span)
    assert [i[0] for i in kept] == ["best", "adjacent", "other-doc"]


def test_dedup_min_overlap_keeps_slightly_overlapping_neighbours() -> None:
    items = [("a", "doc", 0, 1000), ("b", "doc", 850, 1850), ("c", "doc", 100, 900)]
    assert [i[0] for i in dedup_overlapping(items, _span, min_overlap=0.5)] == ["a", "b"]
    assert [i[0] for i in dedup_overlapping(items, _span)] == ["a"]


def test_dedup_of_empty_input() -> None:
    assert dedup_overlapping([], _span) == []


# --- weighted score fusion --------------------------------------------------------------------------


def test_score_fusion_weights_normalized_scores() -> None:
    from rabbithole.retrieval.fusion import weighted_score_fusion

    fused = weighted_score_fusion(
        {"vector": {"a": 1.0, "b": 0.5}, "bm25": {"b": 1.0, "c": 0.2}}, {"vector": 0.4, "bm25": 0.6}
    )
    by_key = {f.key: f for f in fused}
    assert [f.key for f in fused] == ["b", "a", "c"]
    assert by_key["b"].score == pytest.approx(0.4 * 0.5 + 0.6 * 1.0)
    assert by_key["a"].score == pytest.approx(0.4)
    assert by_key["c"].ranks == {"bm25": 2}


def test_score_fusion_keeps_what_one_retriever_ranks_first_by_far() -> None:
    """A BM25 top hit the vector side missed is not buried under hits both rank middling (RRF would)."""
    from rabbithole.retrieval.fusion import weighted_score_fusion

    vector = {f"v{i}": 1.0 - i / 50 for i in range(50)}
    bm25 = {"exact": 1.0, **{f"v{i}": 0.3 for i in range(1, 50)}}
    fused = weighted_score_fusion({"vector": vector, "bm25": bm25}, {"vector": 0.4, "bm25": 0.6})
    assert fused[0].key == "exact"
    rrf = reciprocal_rank_fusion({"vector": list(vector), "bm25": list(bm25)}, k=60)
    assert [f.key for f in rrf].index("exact") > 0


def test_score_fusion_single_retriever_and_bonus() -> None:
    from rabbithole.retrieval.fusion import weighted_score_fusion

    alone = weighted_score_fusion({"vector": {"a": 1.0, "b": 0.0}}, {"vector": 0.4, "bm25": 0.6})
    assert alone[0].score == pytest.approx(1.0)  # the only retriever that ran weighs 1
    lifted = weighted_score_fusion(
        {"vector": {"a": 1.0, "b": 0.9}}, {"vector": 1.0}, bonus={"b": 1.0}, bonus_weight=0.2
    )
    assert [f.key for f in lifted] == ["b", "a"]
    assert lifted[0].score == pytest.approx(1.0)  # capped


def test_normalizations() -> None:
    from rabbithole.retrieval.fusion import max_normalized, minmax_normalized

    assert minmax_normalized([("a", 0.8), ("b", 0.6), ("c", 0.4)]) == pytest.approx(
        {"a": 1.0, "b": 0.5, "c": 0.0}
    )
    assert minmax_normalized([("a", 0.3), ("b", 0.3)]) == {"a": 1.0, "b": 1.0}
    assert max_normalized([("a", 8.0), ("b", 2.0)]) == pytest.approx({"a": 1.0, "b": 0.25})
    assert max_normalized([("a", 0.0)]) == {"a": 0.0}
    assert minmax_normalized([]) == {} and max_normalized([]) == {}


def _fused(*ranks: dict[str, int]) -> list[Fused[str]]:
    return [Fused(f"c{i}", 1.0 - i / 100, 0.0, dict(r)) for i, r in enumerate(ranks)]


def test_pin_first_moves_each_retrievers_best_into_the_head_and_keeps_the_rest_in_order() -> None:
    fused = _fused(
        {"vector": 3, "bm25": 4},
        {"vector": 4},
        {"bm25": 3},
        {"vector": 5, "bm25": 6},
        {"vector": 6},
        {"vector": 7},
        {"bm25": 1},  # c6: BM25's first, fused 7th
        {"vector": 1},  # c7: the vector search's first, fused 8th
        {"vector": 2, "bm25": 2},  # c8
    )
    pinned = [f.key for f in pin_first_ranks(fused, 1, 5)]
    assert pinned == ["c0", "c1", "c2", "c6", "c7", "c3", "c4", "c5", "c8"]
    two = [f.key for f in pin_first_ranks(fused, 2, 5)]
    assert two[:5] == ["c0", "c1", "c6", "c7", "c8"]
    assert two[5:] == ["c2", "c3", "c4", "c5"]  # the others keep their order
    assert pin_first_ranks(fused, 0, 5) == fused
    head = _fused({"vector": 1}, {"bm25": 1}, {"vector": 2})
    assert pin_first_ranks(head, 1, 5) == head  # already in the head: nothing moves
