"""Where `trace` spends its passages (rabbithole.references.allocation): seeds of distinct sections,
expansions ranked by relevance times their seed's relative search score, a cap on reached passages."""

from __future__ import annotations

from dataclasses import replace

import pytest
from tests.unit.test_reference_expansion_logic import B2, C3, chunk, ids, make, relevance

from rabbithole.core.config import ReferenceSettings
from rabbithole.core.models import SearchHit
from rabbithole.references.allocation import distinct_sections, seed_weights, within_floor
from rabbithole.references.expansion import ExpansionLimits, TracedPassage


def hit(document: str, section: str | None, ordinal: int, score: float) -> SearchHit:
    c = chunk(document, section or "-", ordinal, f"Text {ordinal}.")
    return SearchHit(c if section is not None else replace(c, section=None), score)


def seed_with_score(text_chunk_section: tuple[str, str, str], score: float) -> TracedPassage:
    document, section, text = text_chunk_section
    return TracedPassage(chunk(document, section, 0, text), 0, 0.9, None, score)


def test_distinct_sections_keeps_the_first_hit_of_each_section_in_order() -> None:
    hits = [
        hit("A.pdf", "§ 1", 0, 0.9),
        hit("A.pdf", "§ 1", 1, 0.8),  # a second chunk of § 1: dropped
        hit("B.pdf", "§ 1", 0, 0.7),  # the same label in another document: kept
        hit("A.pdf", None, 5, 0.6),  # no section label: kept
        hit("A.pdf", None, 6, 0.5),
        hit("A.pdf", "§ 2", 3, 0.4),
        hit("B.pdf", "§ 1", 2, 0.3),
    ]
    kept = distinct_sections(hits)
    assert [h.score for h in kept] == [0.9, 0.7, 0.6, 0.5, 0.4]
    assert distinct_sections([]) == []


def test_within_floor_keeps_the_hits_scoring_at_least_a_share_of_the_best_in_order() -> None:
    hits = [hit("A.pdf", f"§ {i}", i, score) for i, score in enumerate((0.8, 0.5, 0.2, 0.4, 0.39))]
    kept = within_floor(hits, 0.5)  # 0.5 x 0.8 = 0.4: 0.4 is kept, 0.39 and 0.2 are not
    assert [h.score for h in kept] == [0.8, 0.5, 0.4]
    assert [h.score for h in within_floor(hits, 0.0)] == [0.8, 0.5, 0.2, 0.4, 0.39]  # 0: every hit
    assert [h.score for h in within_floor(hits, 1.0)] == [0.8]
    # the first hit is always kept, even where a pinned hit scores below a later one
    pinned = [hit("A.pdf", "§ 9", 9, 0.3), hit("A.pdf", "§ 1", 1, 1.0), hit("A.pdf", "§ 2", 2, 0.2)]
    assert [h.score for h in within_floor(pinned, 0.5)] == [0.3, 1.0]
    unscored = [hit("A.pdf", "§ 1", 1, 0.0), hit("A.pdf", "§ 2", 2, 0.0)]
    assert within_floor(unscored, 0.5) == unscored
    assert within_floor([], 0.5) == []


def test_seed_weights_are_scores_relative_to_the_best_seed() -> None:
    seeds = [
        TracedPassage(chunk("A.pdf", "§ 1", i, "x"), 0, None, None, score)
        for i, score in enumerate((0.8, 0.4, None, 0.2))
    ]
    weights = seed_weights(seeds)
    assert [weights[s.id] for s in seeds] == pytest.approx([1.0, 0.5, 1.0, 0.25])
    unscored = [TracedPassage(chunk("A.pdf", "§ 1", 0, "x"), 0, None, None, 0.0)]
    assert seed_weights(unscored) == {unscored[0].id: 1.0}


STRONG = ("A.pdf", "§ 1", "(1) Nach § 2 des Betagesetzes.")  # -> B2 -> C3
WEAK = ("A.pdf", "§ 4", "(1) Nach § 6 des Betagesetzes.")  # -> D6 -> E7
D6 = chunk("B.pdf", "§ 6", 0, "(1) Siehe § 7 der Gammaverordnung.")
E7 = chunk("C.pdf", "§ 7", 0, "(1) Ein Satz ohne Verweis.")


@pytest.mark.parametrize(("source_weight", "third"), [(0.0, E7.id), (1.0, C3.id)])
def test_a_passage_reached_later_carries_its_seeds_weight(source_weight: float, third: str) -> None:
    strong, weak = seed_with_score(STRONG, 1.0), seed_with_score(WEAK, 0.5)
    expander, _ = make([strong.chunk, weak.chunk, B2, C3, D6, E7], source_weight=source_weight, max_reached=3)
    scores = {B2.id: 0.5, D6.id: 0.5, C3.id: 0.5, E7.id: 0.8}
    result = expander.expand([strong, weak], relevance(scores))
    # depth 2: C3 (0.5 x 1.0 from the strong seed) against E7 (0.8 x 0.5 from the weak one)
    assert ids(result.passages) == [strong.id, weak.id, B2.id, D6.id, third]
    assert result.stats.over_budget == 1  # the other one: over max_reached


def test_source_weight_prefers_what_the_best_hit_cites() -> None:
    strong = seed_with_score(("A.pdf", "§ 1", "(1) Nach § 2 des Betagesetzes."), 1.0)
    weak = seed_with_score(("A.pdf", "§ 4", "(1) Nach § 3 der Gammaverordnung."), 0.2)
    scores = {B2.id: 0.4, C3.id: 0.8}
    by_relevance, _ = make([strong.chunk, weak.chunk, B2, C3], max_reached=1, max_depth=1)
    assert ids(by_relevance.expand([strong, weak], relevance(scores)).passages)[2:] == [C3.id]
    weighted, _ = make([strong.chunk, weak.chunk, B2, C3], max_reached=1, max_depth=1, source_weight=1.0)
    assert ids(weighted.expand([strong, weak], relevance(scores)).passages)[2:] == [B2.id]  # 0.4 > 0.16


def test_max_reached_counts_every_hop_and_zero_means_no_cap() -> None:
    source = seed_with_score(STRONG, 1.0)
    capped, _ = make([source.chunk, B2, C3], max_reached=1)
    assert ids(capped.expand([source], relevance({})).passages) == [source.id, B2.id]
    free, _ = make([source.chunk, B2, C3], max_reached=0)
    assert ids(free.expand([source], relevance({})).passages) == [source.id, B2.id, C3.id]


def test_allocation_settings_and_their_defaults() -> None:
    settings = ReferenceSettings()
    # no cap by default: the compact allocation (max_reached 7) loses recall on held-out questions
    assert (settings.distinct_seed_sections, settings.source_weight, settings.max_reached) == (True, 1.0, 0)
    limits = ExpansionLimits.from_settings(settings)
    assert (limits.source_weight, limits.max_reached) == (1.0, 0)
    compact = ExpansionLimits.from_settings(ReferenceSettings(max_reached=7))
    assert (compact.source_weight, compact.max_reached) == (1.0, 7)
    off = ExpansionLimits.from_settings(ReferenceSettings(source_weight=0.0, max_reached=0))
    assert (off.source_weight, off.max_reached) == (0.0, 0)
    assert (ExpansionLimits().source_weight, ExpansionLimits().max_reached) == (0.0, 0)  # off unless set
