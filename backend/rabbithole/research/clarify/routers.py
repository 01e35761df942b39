"""Pure routers of clarification."""

from __future__ import annotations

from typing import Literal

from rabbithole.core.config import ResearchSettings
from rabbithole.research.clarify.state import ClarifyState


def converged(state: ClarifyState, settings: ResearchSettings) -> bool:
    current = state.get("current")
    if current is None:
        return False
    return (
        current.coverage >= settings.converge_coverage
        and current.dedup_ratio >= settings.converge_dedup
        and len(current.gaps) <= settings.converge_max_gaps
    )


def after_analysis(state: ClarifyState, settings: ResearchSettings) -> Literal["ask_user", "record_round"]:
    """Ask, unless converged, out of rounds, or there is nothing to ask."""
    current = state.get("current")
    if current is None or not current.questions:
        return "record_round"
    if converged(state, settings) or current.round >= settings.max_clarify_rounds:
        return "record_round"
    return "ask_user"


def after_answer(state: ClarifyState, settings: ResearchSettings) -> Literal["make_queries", "make_anchor"]:
    if state.get("ended") or len(state.get("rounds", [])) >= settings.max_clarify_rounds:
        return "make_anchor"
    return "make_queries"
