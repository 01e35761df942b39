"""The research run graph, compiled with the SQLite checkpointer by the runner.

start -> clarify (subgraph, interrupts) | anchor (quick) -> assess_search -> assess + plan (in parallel)
      -> checked -> decline -> finish                        (the corpus cannot answer it)
      -> checked -> approve_plan (interrupt) -> dig x N (Send, subgraph) -> synthesis (subgraph) -> finish

The plan is proposed while the assessment runs (one model call less on the path the user waits on; a
declined question costs that one plan call).
"""

from __future__ import annotations

from typing import Any

from langgraph.graph import END, START, StateGraph

from rabbithole.research.clarify import build_clarify_graph
from rabbithole.research.clarify.nodes import make_anchor
from rabbithole.research.context import ResearchContext
from rabbithole.research.dig import build_dig_graph
from rabbithole.research.run import nodes, routers
from rabbithole.research.run.state import RunInput, RunState
from rabbithole.research.synthesis import build_synthesis_graph


def research_graph_builder() -> StateGraph[Any, Any, Any, Any]:
    builder: StateGraph[Any, Any, Any, Any] = StateGraph(
        RunState, context_schema=ResearchContext, input_schema=RunInput
    )
    builder.add_node("start", nodes.start)
    builder.add_node("clarify", build_clarify_graph())
    builder.add_node("anchor", make_anchor)
    builder.add_node("assess_search", nodes.assess_search)
    builder.add_node("assess", nodes.assess)
    builder.add_node("decline", nodes.decline)
    builder.add_node("plan", nodes.plan)
    builder.add_node("checked", nodes.checked)
    builder.add_node("approve_plan", nodes.approve_plan)
    builder.add_node("dig", build_dig_graph())
    builder.add_node("synthesis", build_synthesis_graph())
    builder.add_node("finish", nodes.finish)
    builder.add_edge(START, "start")
    builder.add_conditional_edges("start", routers.by_mode, ["clarify", "anchor"])
    builder.add_edge("clarify", "assess_search")
    builder.add_edge("anchor", "assess_search")
    builder.add_edge("assess_search", "assess")
    builder.add_edge("assess_search", "plan")
    builder.add_edge(["assess", "plan"], "checked")
    builder.add_conditional_edges("checked", routers.after_assessment, ["approve_plan", "decline"])
    builder.add_edge("decline", "finish")
    builder.add_conditional_edges("approve_plan", nodes.dispatch, ["dig"])
    builder.add_edge("dig", "synthesis")
    builder.add_edge("synthesis", "finish")
    builder.add_edge("finish", END)
    return builder


def build_research_graph(checkpointer: Any = None) -> Any:
    return research_graph_builder().compile(checkpointer=checkpointer)
