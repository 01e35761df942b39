"""The synthesis subgraph.

validate -> synthesize -> check_quality
         -> [start_remediation -> synthesize -> check_quality] (once, below the threshold) -> attribute

A first report in the wrong language: retry_language (synthesize again) and review_draft (check_quality of
the first draft) side by side -> reviewed -> start_remediation (the draft failed) or check_quality.
"""

from __future__ import annotations

from typing import Any

from langgraph.graph import END, START, StateGraph

from rabbithole.research.context import ResearchContext
from rabbithole.research.synthesis import nodes, routers
from rabbithole.research.synthesis.state import SynthesisInput, SynthesisOutput, SynthesisState


def build_synthesis_graph() -> Any:
    builder = StateGraph(
        SynthesisState,
        context_schema=ResearchContext,
        input_schema=SynthesisInput,
        output_schema=SynthesisOutput,
    )
    builder.add_node("validate", nodes.validate)
    builder.add_node("synthesize", nodes.synthesize)
    builder.add_node("check_quality", nodes.check_quality)
    builder.add_node("retry_language", nodes.synthesize)
    builder.add_node("review_draft", nodes.check_quality)
    builder.add_node("reviewed", nodes.reviewed)
    builder.add_node("start_remediation", nodes.start_remediation)
    builder.add_node("attribute", nodes.attribute)
    builder.add_edge(START, "validate")
    builder.add_edge("validate", "synthesize")
    builder.add_conditional_edges(
        "synthesize", routers.after_synthesis, ["retry_language", "review_draft", "check_quality"]
    )
    builder.add_edge(["retry_language", "review_draft"], "reviewed")
    builder.add_conditional_edges("reviewed", routers.after_review, ["start_remediation", "check_quality"])
    builder.add_conditional_edges("check_quality", routers.after_quality, ["start_remediation", "attribute"])
    builder.add_edge("start_remediation", "synthesize")
    builder.add_edge("attribute", END)
    return builder.compile()
