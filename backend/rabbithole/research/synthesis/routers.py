"""Pure routers of synthesis."""

from __future__ import annotations

from typing import Literal

from rabbithole.research.synthesis.state import SynthesisState

#: Synthesis calls at most: the first, and one retry when the report came back in the wrong language.
MAX_ATTEMPTS = 2


def after_synthesis(state: SynthesisState) -> Literal["synthesize", "check_quality"]:
    if state.get("language_ok") is False and state.get("attempts", 0) < MAX_ATTEMPTS:
        return "synthesize"
    return "check_quality"


def after_quality(state: SynthesisState) -> Literal["start_remediation", "attribute"]:
    quality = state.get("quality")
    if quality is not None and not quality.passed and not state.get("remediated"):
        return "start_remediation"
    return "attribute"
