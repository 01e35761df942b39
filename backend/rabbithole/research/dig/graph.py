"""The dig subgraph, one per task (a Send from the run graph).

[make_queries] -> search -> pin -> follow_references -> extract x batches (Send, in parallel)
               -> pinned_evidence -> measure_drift -> summarize
"""

from __future__ import annotations

from typing import Any

from langgraph.graph import END, START, StateGraph

from rabbithole.research.context import ResearchContext
from rabbithole.research.dig import nodes, routers
from rabbithole.research.dig.pinning import pin, pinned_evidence
from rabbithole.research.dig.state import DigInput, DigOutput, DigState


def build_dig_graph() -> Any:
    builder = StateGraph(
        DigState, context_schema=ResearchContext, input_schema=DigInput, output_schema=DigOutput
    )
    builder.add_node("make_queries", nodes.make_queries)
    builder.add_node("search", nodes.search)
    builder.add_node("pin", pin)
    builder.add_node("follow_references", nodes.follow_references)
    builder.add_node("extract", nodes.extract)
    builder.add_node("pinned_evidence", pinned_evidence)
    builder.add_node("measure_drift", nodes.measure_drift)
    builder.add_node("summarize", nodes.summarize)
    builder.add_conditional_edges(START, routers.start, ["make_queries", "search"])
    builder.add_edge("make_queries", "search")
    builder.add_edge("search", "pin")
    builder.add_edge("pin", "follow_references")
    builder.add_conditional_edges("follow_references", routers.to_extraction, ["extract", "summarize"])
    builder.add_edge("extract", "pinned_evidence")
    builder.add_edge("pinned_evidence", "measure_drift")
    builder.add_edge("measure_drift", "summarize")
    builder.add_edge("summarize", END)
    return builder.compile()
