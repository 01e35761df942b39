"""Can the corpus answer it? Retrieval decides where it is clear; the model in between."""

from __future__ import annotations

import pytest

from rabbithole.core.config import ResearchSettings
from rabbithole.research.run.assessment import decide
from rabbithole.research.run.schemas import AssessJudgement

SETTINGS = ResearchSettings(assess_floor=0.25, assess_clear=0.5)


def judgement(answerable: bool = True, live: bool = False) -> AssessJudgement:
    return AssessJudgement(answerable=answerable, needs_live_data=live, reason="r", corpus_covers=["x"])


@pytest.mark.parametrize("model", [judgement(False), judgement(True, live=True), None])
def test_clear_coverage_is_never_rejected(model: AssessJudgement | None) -> None:
    assert decide(model, 0.62, 1.0, SETTINGS).answerable


@pytest.mark.parametrize("model", [judgement(True), None])
def test_nothing_found_is_declined_whatever_the_model_says(model: AssessJudgement | None) -> None:
    a = decide(model, 0.1, 0.0, SETTINGS)
    assert not a.answerable and a.reason == ""


def test_in_between_the_model_decides() -> None:
    assert decide(judgement(True), 0.4, 0.5, SETTINGS).answerable
    assert not decide(judgement(False), 0.4, 0.5, SETTINGS).answerable
    live = decide(judgement(True, live=True), 0.4, 0.5, SETTINGS)
    assert not live.answerable and live.model_verdict == "live_data"


def test_invalid_judgement_in_between_goes_on() -> None:
    a = decide(None, 0.4, 0.5, SETTINGS)
    assert a.answerable and a.model_verdict == "invalid"


@pytest.mark.parametrize("model", [judgement(True), None])
def test_candidates_of_another_view_keep_a_low_similarity_from_declining(
    model: AssessJudgement | None,
) -> None:
    # an English question over German documents: the best similarity is low, a German view found passages
    a = decide(model, 0.14, 0.0, SETTINGS, candidates=3)
    assert a.answerable and a.max_similarity == 0.14


def test_candidates_leave_the_decision_to_the_model() -> None:
    a = decide(judgement(False), 0.14, 0.0, SETTINGS, candidates=3)
    assert not a.answerable and a.reason == "r" and a.model_verdict == "unanswerable"
    assert not decide(judgement(True, live=True), 0.14, 0.0, SETTINGS, candidates=3).answerable
