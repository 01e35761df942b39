"""Pure routers of the run graph."""

from __future__ import annotations

from typing import Literal

from rabbithole.research.run.state import RunState


def by_mode(state: RunState) -> Literal["clarify", "anchor"]:
    return "clarify" if state["mode"] == "interactive" else "anchor"


def after_assessment(state: RunState) -> Literal["approve_plan", "decline"]:
    return "approve_plan" if state["assessment"].answerable else "decline"
