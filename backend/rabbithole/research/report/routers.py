"""Pure routers of the report graph and its section subgraph (the Sends carry what each part reads)."""

from __future__ import annotations

from typing import Literal

from langgraph.types import Send

from rabbithole.research.dig import routers as dig_routers
from rabbithole.research.report.models import SectionResult, SectionSpec
from rabbithole.research.report.state import ReportState, SectionState


def _section_send(
    state: ReportState,
    section: SectionSpec,
    *,
    refinement: int = 0,
    instructions: str = "",
    queries: list[str] | None = None,
    previous: SectionResult | None = None,
) -> Send:
    return Send(
        "section",
        {
            "section": section,
            "anchor": state["anchor"],
            "topic": state["question"],
            "guidance": state["guidance"],
            "language": state["language"],
            "corpus_language": state["corpus_language"],
            "collections": state["collections"],
            "refinement": refinement,
            "instructions": instructions,
            "queries": list(queries or []),
            "previous": previous,
        },
    )


def framing(state: ReportState) -> list[Send] | Literal["compile"]:
    """One Send per section without research (written from the finished ones, in parallel); none: compile."""
    outline = state["outline"]
    done = state.get("sections_done", {})
    researched = [done[s.id] for s in outline if s.research and s.id in done]
    sends = [
        Send(
            "frame",
            {
                "section": s,
                "topic": state["question"],
                "guidance": state["guidance"],
                "language": state["language"],
                "outline": outline,
                "researched": researched,
            },
        )
        for s in outline
        if not s.research
    ]
    return sends or "compile"


def after_outline(state: ReportState) -> list[Send] | Literal["outline_search", "compile"]:
    """Feedback: plan again. Approved: every research section in parallel; none: the framing sections."""
    if state.get("replan"):
        return "outline_search"
    sends = [_section_send(state, s) for s in state["outline"] if s.research]
    return sends or framing(state)


def after_sections(state: ReportState) -> list[Send] | Literal["review", "compile"]:
    """Another review round while rounds are left and there is something researched to review."""
    if state.get("refinement_round", 0) < state["refinement_rounds"] and any(
        s.research for s in state["outline"]
    ):
        return "review"
    return framing(state)


def after_review(state: ReportState) -> list[Send] | Literal["compile"]:
    """Only the sections the reviewer named are researched and written again; the others are kept."""
    done = state.get("sections_done", {})
    sends = [
        _section_send(
            state,
            done[t.section_id].section,
            refinement=state.get("refinement_round", 1),
            instructions=t.instructions,
            queries=t.queries,
            previous=done[t.section_id],
        )
        for t in state.get("review", [])
        if t.section_id in done
    ]
    return sends or framing(state)


# -- the section subgraph ------------------------------------------------------------------------------


def section_start(state: SectionState) -> Literal["make_queries", "search"]:
    """A round without queries (or without queries in the documents' language) asks the model first."""
    return dig_routers.start(state)  # type: ignore[arg-type]


def to_extraction(state: SectionState) -> list[Send] | Literal["write"]:
    """The dig subgraph's extraction fan-out (a Send per batch); no batches: write from what there is."""
    routed = dig_routers.to_extraction(state)  # type: ignore[arg-type]
    return "write" if routed == "summarize" else routed


def after_grade(state: SectionState) -> Literal["plan_round", "finish_section"]:
    """Search again with the follow-up queries when the grade failed and the depth allows (the grade node
    leaves follow-up queries only then)."""
    return "plan_round" if state.get("next_queries") else "finish_section"
