"""Pure routers of synthesis."""

from __future__ import annotations

from typing import Literal

from langgraph.types import Send

from rabbithole.research.synthesis.state import SectionJob, SynthesisState


def to_sections(state: SynthesisState) -> list[Send] | Literal["assemble"]:
    """One ``write_section`` per pending section, side by side; none pending: straight to assembly."""
    planned = {s.index: s for s in state.get("sections_planned", [])}
    drafts = state.get("drafts", {})
    feedback = state.get("feedback", {})
    sends: list[Send] = []
    for index in state.get("pending", []):
        previous = drafts.get(index)
        job: SectionJob = {
            "section": planned[index],
            "anchor": state["anchor"],
            "language": state["language"],
            "clarification_summary": state.get("clarification_summary", ""),
            "feedback": feedback.get(index, []),
            "wrong_language": previous is not None and not previous.language_ok,
            "passes": (previous.passes if previous is not None else 0) + 1,
        }
        sends.append(Send("write_section", job))
    return sends or "assemble"


def needs_remediation(state: SynthesisState) -> bool:
    """One remediation pass when the measured checks or the model's grades failed the report."""
    if state.get("remediated") or not state.get("sections_planned"):
        return False
    checks = state.get("checks")
    quality = state.get("quality")
    return (checks is not None and not checks.passed) or (quality is not None and not quality.passed)


def after_quality(state: SynthesisState) -> Literal["start_remediation", "attribute"]:
    return "start_remediation" if needs_remediation(state) else "attribute"
