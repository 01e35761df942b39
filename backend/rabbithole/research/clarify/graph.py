r"""The clarification subgraph.

make_queries -> search -> analyze -> ask_user (interrupt) -> make_queries ...   (answer)
                                  \-> record_round -> make_anchor               (converged, max rounds)
                                      ask_user -> make_anchor                   (/end, max rounds)
"""

from __future__ import annotations

from typing import Any

from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime

from rabbithole.research.clarify import nodes, routers
from rabbithole.research.clarify.state import ClarifyInput, ClarifyOutput, ClarifyState
from rabbithole.research.context import ResearchContext


def _after_analysis(state: ClarifyState, runtime: Runtime[ResearchContext]) -> str:
    return routers.after_analysis(state, runtime.context.settings)


def _after_answer(state: ClarifyState, runtime: Runtime[ResearchContext]) -> str:
    return routers.after_answer(state, runtime.context.settings)


def build_clarify_graph() -> Any:
    builder = StateGraph(
        ClarifyState, context_schema=ResearchContext, input_schema=ClarifyInput, output_schema=ClarifyOutput
    )
    builder.add_node("make_queries", nodes.make_queries)
    builder.add_node("search", nodes.search)
    builder.add_node("analyze", nodes.analyze)
    builder.add_node("ask_user", nodes.ask_user)
    builder.add_node("record_round", nodes.record_round)
    builder.add_node("make_anchor", nodes.make_anchor)
    builder.add_edge(START, "make_queries")
    builder.add_edge("make_queries", "search")
    builder.add_edge("search", "analyze")
    builder.add_conditional_edges("analyze", _after_analysis, ["ask_user", "record_round"])
    builder.add_conditional_edges("ask_user", _after_answer, ["make_queries", "make_anchor"])
    builder.add_edge("record_round", "make_anchor")
    builder.add_edge("make_anchor", END)
    return builder.compile()
