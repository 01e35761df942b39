"""Where `trace` spends its passages (rabbithole.references.allocation): seeds of distinct sections,
expansions ranked by relevance times their seed's relative search score, a cap on reached passages."""

from __future__ import annotations

from dataclasses import replace

import pytest
from tests.unit.test_reference_expansion_logic import B2, C3, chunk, ids, make, relevance

from rabbithole.core.config import ReferenceSettings
from rabbithole.core.models import Chunk, SearchHit
from rabbithole.references.allocation import distinct_sections, seed_weights, spread, within_floor
from rabbithole.references.candidates import Candidate
from rabbithole.references.expansion import ExpansionLimits, TracedPassage
from rabbithole.references.models import Reference, RefType
from rabbithole.references.resolver import ResolvedReference
from rabbithole.references.targets import Target


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
    # the compact context by default: at most 10 passages reached, seeds above 0.45 of the first of 25 hits
    assert (settings.distinct_seed_sections, settings.source_weight, settings.max_reached) == (True, 1.0, 10)
    assert (settings.seeds, settings.seed_floor) == (25, 0.45)
    limits = ExpansionLimits.from_settings(settings)
    assert (limits.source_weight, limits.max_reached) == (1.0, 10)
    compact = ExpansionLimits.from_settings(ReferenceSettings(max_reached=7))
    assert (compact.source_weight, compact.max_reached) == (1.0, 7)
    off = ExpansionLimits.from_settings(ReferenceSettings(source_weight=0.0, max_reached=0))
    assert (off.source_weight, off.max_reached) == (0.0, 0)
    assert (ExpansionLimits().source_weight, ExpansionLimits().max_reached) == (0.0, 0)  # off unless set
    # spread candidates on: the cap is spent on sections and on many mentions
    assert (settings.new_sections_first, settings.mention_lead) == (True, 2)
    assert (limits.new_sections_first, limits.mention_lead) == (True, 2)
    assert (ExpansionLimits().new_sections_first, ExpansionLimits().mention_lead) == (False, 0)


# B § 2 cited at its Absatz 3, which runs over two chunks (the opening chunk holds Absatz 1 and 2)
B2_OPENING = chunk("B.pdf", "§ 2", 0, "(1) Erster Absatz.\n(2) Zweiter Absatz.")
B2_ABSATZ = chunk("B.pdf", "§ 2", 1, "(3) Dritter Absatz, erster Teil.")
B2_MORE = chunk("B.pdf", "§ 2", 2, "Dritter Absatz, zweiter Teil.")
LIST_SOURCE = (
    "A.pdf",
    "§ 1",
    "(1) Es gelten § 2 Absatz 3 des Betagesetzes, die §§ 3, 4 und 5 der Gammaverordnung sowie § 6 der "
    "Gammaverordnung.",
)
C_LIST = [chunk("C.pdf", f"§ {n}", n, f"({n}) Text {n}.") for n in (3, 4, 5)]
C6 = chunk("C.pdf", "§ 6", 6, "(6) Text 6.")


def traced(**limits: int | float | bool) -> list[str]:
    source = seed_with_score(LIST_SOURCE, 1.0)
    expander, _ = make([source.chunk, B2_OPENING, B2_ABSATZ, B2_MORE, *C_LIST, C6], max_depth=1, **limits)
    scores = {B2_OPENING.id: 0.9, B2_ABSATZ.id: 0.85, B2_MORE.id: 0.8}
    scores |= {C_LIST[0].id: 0.7, C_LIST[1].id: 0.6, C_LIST[2].id: 0.65, C6.id: 0.3}
    return ids(expander.expand([source], relevance(scores)).passages)[1:]


def test_new_sections_first_spends_the_cap_on_sections_not_chunks() -> None:
    # by relevance the cap of 3 takes the three chunks of B § 2 (one section) ...
    assert traced(max_reached=3, source_weight=1.0) == [B2_OPENING.id, B2_ABSATZ.id, B2_MORE.id]
    # ... new sections first: one chunk of B § 2, then the Gammaverordnung's §§ 3 and 5 (most relevant)
    spread_out = traced(max_reached=3, source_weight=1.0, new_sections_first=True)
    assert spread_out == [B2_OPENING.id, C_LIST[0].id, C_LIST[2].id]
    # without a cap the order changes, not what is reached
    assert sorted(traced(new_sections_first=True)) == sorted(traced())


def test_mention_lead_lets_one_citation_list_take_only_its_first_sections_ahead() -> None:
    # "§§ 3, 4 und 5" leads with its 2 most relevant sections (§§ 3 and 5); its third (§ 4, 0.6) goes
    # after the other mentions' sections (§ 6, 0.3)
    assert traced(max_reached=4, new_sections_first=True) == [
        B2_OPENING.id,
        C_LIST[0].id,
        C_LIST[2].id,
        C_LIST[1].id,
    ]
    led = traced(max_reached=4, new_sections_first=True, mention_lead=2)
    assert led == [B2_OPENING.id, C_LIST[0].id, C_LIST[2].id, C6.id]
    # the lead alone counts chunks: B § 2's third chunk goes after § 6 as well
    alone = traced(max_reached=6, mention_lead=2)
    assert alone == [B2_OPENING.id, B2_ABSATZ.id, C_LIST[0].id, C_LIST[2].id, C6.id, B2_MORE.id]
    assert sorted(traced(mention_lead=2)) == sorted(traced())  # without a cap: the same passages


def candidate(c: Chunk, source: TracedPassage, mention_start: int) -> Candidate:
    reference = Reference(RefType.SECTION, "§ x", mention_start, mention_start + 3, 0, 3, section="x")
    resolved = ResolvedReference(reference, c.document, c.section)
    return Candidate(c, Target(resolved, reference, source, section=c.section), limited=False)


def test_spread_orders_in_three_tiers_and_keeps_each_tier_in_order() -> None:
    source, other = seed_with_score(LIST_SOURCE, 1.0), seed_with_score(WEAK, 0.5)  # A § 1 and A § 4
    present_chunk = chunk("D.pdf", "§ 9", 0, "x")
    ordered = [
        candidate(B2_OPENING, source, 0),  # lead: new section
        candidate(B2_ABSATZ, source, 0),  # again: a second chunk of B § 2
        candidate(C_LIST[0], source, 40),  # lead: the list's first section
        candidate(C_LIST[1], source, 40),  # lead: its second
        candidate(present_chunk, other, 0),  # again: D § 9 is in the result already
        candidate(C_LIST[2], source, 40),  # rest: the list's third section
        candidate(C_LIST[2], other, 7),  # again: § 5 offered above (another mention of the other seed)
    ]
    present = {("D.pdf", "§ 9")}
    tiers = spread(ordered, present, sections_first=True, mention_lead=2)
    assert [ordered.index(c) for c in tiers] == [0, 2, 3, 5, 1, 4, 6]
    assert [ordered.index(c) for c in spread(ordered, present, sections_first=True, mention_lead=0)] == [
        0, 2, 3, 5, 1, 4, 6
    ]  # fmt: skip
    # the lead alone: the list's third section after the rest, chunks of one section counted apart
    lead_only = spread(ordered, present, sections_first=False, mention_lead=2)
    assert [ordered.index(c) for c in lead_only] == [0, 1, 2, 3, 4, 6, 5]
    assert spread(ordered, present, sections_first=False, mention_lead=0) == ordered
