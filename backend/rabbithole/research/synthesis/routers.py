"""Pure routers of synthesis."""

from __future__ import annotations

from typing import Literal

from rabbithole.research.synthesis.state import SynthesisState

#: Synthesis calls at most: the first, and one retry when the report came back in the wrong language.
MAX_ATTEMPTS = 2


def after_synthesis(state: SynthesisState) -> list[str] | Literal["check_quality"]:
    """A report in the wrong language is written again, and the draft reviewed at the same time (its
    claims and citations are what the review judges; the retry restates them): the review decides the
    remediation without waiting for the retry."""
    if state.get("language_ok") is False and state.get("attempts", 0) < MAX_ATTEMPTS:
        return ["retry_language", "review_draft"]
    return "check_quality"


def after_review(state: SynthesisState) -> Literal["start_remediation", "check_quality"]:
    """After the retry and the draft's review: remediation when the review failed the draft, else the
    review of the report as it now stands (the retried one, whose scores the result reports)."""
    quality = state.get("quality")
    if quality is not None and not quality.passed and not state.get("remediated"):
        return "start_remediation"
    return "check_quality"


def after_quality(state: SynthesisState) -> Literal["start_remediation", "attribute"]:
    quality = state.get("quality")
    if quality is not None and not quality.passed and not state.get("remediated"):
        return "start_remediation"
    return "attribute"
