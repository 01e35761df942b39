"""Tiers of evidence (primary, secondary, tertiary) from how and where a finding was found.

The tier score is a weighted mean of four factors in [0, 1]:

* relevance: the cosine similarity of the passage to the query that found it (clamped to [0, 1]);
* entity match: the share of the query anchor's key entities the passage names (``entity_match``);
* depth: ``1 / (1 + depth)`` (a search hit is depth 0; each followed reference adds one);
* source: 1.0 for a search hit, 0.7 for a passage reached by reference.

Score >= ``primary`` (0.6) is primary, >= ``secondary`` (0.4) secondary, else tertiary. Rule for related
findings: a finding that does not answer its task is never primary; its tier is capped at secondary and its
score is kept as computed, so it still ranks among the secondary findings by its merits.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from rabbithole.research.models import Tier
from rabbithole.retrieval.tokenizer import raw_tokens

__all__ = ["REFERENCE_SOURCE_FACTOR", "TierWeights", "entity_match", "tier_of"]

REFERENCE_SOURCE_FACTOR = 0.7
_INFLECTIONS = ("ern", "en", "er", "es", "em", "e", "n", "s")
_MIN_STEM = 4
_MAX_ENDING = 3


@dataclass(frozen=True)
class TierWeights:
    """Weights of the tier score's factors; any non-negative values with a positive sum (the score is
    divided by the sum)."""

    relevance: float = 0.45
    entity: float = 0.25
    depth: float = 0.15
    source: float = 0.15

    def __post_init__(self) -> None:
        values = (self.relevance, self.entity, self.depth, self.source)
        if any(v < 0 for v in values) or sum(values) <= 0:
            raise ValueError("tier weights must be non-negative with a positive sum")

    @property
    def total(self) -> float:
        return self.relevance + self.entity + self.depth + self.source


def _tokens(text: str) -> list[str]:
    """Case-, umlaut- and accent-folded tokens ("§ 80" -> "§80")."""
    folded = (unicodedata.normalize("NFKD", t) for t in raw_tokens(text))
    return ["".join(c for c in t if not unicodedata.combining(c)) for t in folded]


def _stem(token: str) -> str:
    for ending in _INFLECTIONS:
        if token.endswith(ending) and len(token) - len(ending) >= _MIN_STEM:
            return token[: -len(ending)]
    return token


def _token_matches(wanted: str, token: str) -> bool:
    if wanted == token:
        return True
    if len(wanted) < _MIN_STEM or not wanted.isalpha():
        return False  # numbers, § citations and short words ("AtG", "EU") match exactly
    stem = _stem(wanted)
    return token.startswith(stem) and len(token) - len(stem) <= _MAX_ENDING


def _contains_phrase(tokens: Sequence[str], phrase: Sequence[str]) -> bool:
    width = len(phrase)
    return any(
        all(_token_matches(w, t) for w, t in zip(phrase, tokens[i : i + width], strict=True))
        for i in range(len(tokens) - width + 1)
    )


def entity_match(text: str, entities: Sequence[str]) -> float:
    """Share of ``entities`` named in ``text``: case-, umlaut- and accent-insensitive, a multi-word entity
    as a phrase (its words in order, adjacent), each word also in an inflected form ("Behörde" finds
    "Behörden", "Strahlenschutzbeauftragter" finds "Strahlenschutzbeauftragten"; compounds do not count).
    Entities without words are ignored; with no entities left the share is 1.0 (nothing is missing)."""
    phrases = [p for p in (_tokens(e) for e in entities) if p]
    if not phrases:
        return 1.0
    tokens = _tokens(text)
    return sum(_contains_phrase(tokens, p) for p in phrases) / len(phrases)


def tier_of(
    *,
    relevance: float,
    entity_match: float,
    depth: int,
    is_search_hit: bool,
    answers: bool,
    weights: TierWeights = TierWeights(),
    primary: float = 0.6,
    secondary: float = 0.4,
) -> tuple[Tier, float]:
    """The tier and the tier score in [0, 1] of a finding (see the module docstring for the rule)."""
    if secondary > primary:
        raise ValueError("the secondary threshold must not exceed the primary one")
    factors = (
        (weights.relevance, _unit(relevance)),
        (weights.entity, _unit(entity_match)),
        (weights.depth, 1.0 / (1.0 + max(0, depth))),
        (weights.source, 1.0 if is_search_hit else REFERENCE_SOURCE_FACTOR),
    )
    score = _unit(sum(w * f for w, f in factors) / weights.total)
    tier: Tier
    if score >= primary and answers:
        tier = "primary"
    elif score >= secondary:
        tier = "secondary"
    else:
        tier = "tertiary"
    return tier, score


def _unit(value: float) -> float:
    return min(1.0, max(0.0, value))
