from __future__ import annotations

import pytest

from rabbithole.research.evidence.tiering import TierWeights, entity_match, tier_of

TEXT = (
    "Die zuständigen Behörden prüfen, ob die Strahlenschutzbeauftragten die erforderliche Fachkunde "
    "im Strahlenschutz besitzen; § 80 Absatz 1 gilt für beruflich exponierte Personen. Café-Regel."
)


@pytest.mark.parametrize(
    ("entity", "found"),
    [
        ("Behörde", True),  # inflected: Behörden
        ("zuständige Behörde", True),  # phrase, both words inflected
        ("Strahlenschutzbeauftragter", True),
        ("Strahlenschutz", True),
        ("STRAHLENSCHUTZ", True),
        ("Strahlenschütz", False),
        ("Strahlenschutzgesetz", False),
        ("§ 80", True),
        ("§80", True),
        ("§ 8", False),
        ("beruflich exponierte Personen", True),
        ("exponierte beruflich Personen", False),  # order matters
        ("Behörde Fachkunde", False),  # words must be adjacent
        ("cafe", True),  # accents folded
        ("Fach", False),  # a prefix of a word is not the word
        ("AtG", False),
    ],
)
def test_entity_found(entity: str, found: bool) -> None:
    assert entity_match(TEXT, [entity]) == (1.0 if found else 0.0)


def test_entity_share() -> None:
    assert entity_match(TEXT, ["Behörde", "Atomgesetz", "Fachkunde", "Endlager"]) == 0.5
    assert entity_match("Über die Änderung", ["Ueber", "Aenderung"]) == 1.0
    assert entity_match(TEXT, []) == 1.0
    assert entity_match(TEXT, ["", "  ", "§"]) == 1.0
    assert entity_match("", ["Behörde"]) == 0.0


def test_short_words_match_exactly() -> None:
    assert entity_match("Das AtG gilt.", ["AtG"]) == 1.0
    assert entity_match("Die AtGV gilt.", ["AtG"]) == 0.0


def test_tier_score_formula() -> None:
    tier, score = tier_of(relevance=0.8, entity_match=0.5, depth=0, is_search_hit=True, answers=True)
    assert score == pytest.approx(0.45 * 0.8 + 0.25 * 0.5 + 0.15 * 1.0 + 0.15 * 1.0)
    assert tier == "primary"
    tier, score = tier_of(relevance=0.4, entity_match=0.0, depth=2, is_search_hit=False, answers=True)
    assert score == pytest.approx(0.45 * 0.4 + 0.15 / 3 + 0.15 * 0.7)
    assert tier == "tertiary"


def middling(
    primary: float = 0.6, secondary: float = 0.4, weights: TierWeights | None = None
) -> tuple[str, float]:
    return tier_of(
        relevance=0.5,
        entity_match=0.5,
        depth=1,
        is_search_hit=True,
        answers=True,
        weights=weights or TierWeights(),
        primary=primary,
        secondary=secondary,
    )


def test_thresholds_and_weights_are_configurable() -> None:
    tier, score = middling()
    assert tier == "secondary"
    assert middling(primary=score)[0] == "primary"
    assert middling(primary=0.9, secondary=0.9)[0] == "tertiary"
    only_relevance = TierWeights(relevance=1.0, entity=0.0, depth=0.0, source=0.0)
    assert middling(weights=only_relevance)[1] == pytest.approx(0.5)
    doubled = TierWeights(relevance=0.9, entity=0.5, depth=0.3, source=0.3)
    assert middling(weights=doubled)[1] == pytest.approx(score)
    with pytest.raises(ValueError):
        middling(primary=0.3, secondary=0.5)
    with pytest.raises(ValueError):
        TierWeights(relevance=-1.0)
    with pytest.raises(ValueError):
        TierWeights(0.0, 0.0, 0.0, 0.0)


def test_deeper_and_referenced_findings_score_lower() -> None:
    def score(depth: int, hit: bool) -> float:
        return tier_of(relevance=0.6, entity_match=0.5, depth=depth, is_search_hit=hit, answers=True)[1]

    assert score(0, True) > score(1, True) > score(3, True)
    assert score(1, True) > score(1, False)


def test_non_answering_finding_is_at_most_secondary() -> None:
    def strong(answers: bool) -> tuple[str, float]:
        return tier_of(relevance=1.0, entity_match=1.0, depth=0, is_search_hit=True, answers=answers)

    assert strong(True) == ("primary", 1.0)
    assert strong(False) == ("secondary", 1.0)
    weak = tier_of(relevance=0.0, entity_match=0.0, depth=5, is_search_hit=False, answers=False)
    assert weak[0] == "tertiary"


def test_inputs_are_clamped() -> None:
    tier, score = tier_of(relevance=1.7, entity_match=3.0, depth=-2, is_search_hit=True, answers=True)
    assert (tier, score) == ("primary", 1.0)
    _, low = tier_of(relevance=-0.5, entity_match=-1.0, depth=10_000, is_search_hit=False, answers=True)
    assert 0.0 <= low < 0.2
