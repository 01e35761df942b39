"""The synthesis subgraph.

validate -> synthesize (-> synthesize: one retry in the wrong language) -> check_quality
         -> [start_remediation -> synthesize -> check_quality] (once, below the threshold) -> attribute
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
    builder.add_node("start_remediation", nodes.start_remediation)
    builder.add_node("attribute", nodes.attribute)
    builder.add_edge(START, "validate")
    builder.add_edge("validate", "synthesize")
    builder.add_conditional_edges("synthesize", routers.after_synthesis, ["synthesize", "check_quality"])
    builder.add_conditional_edges("check_quality", routers.after_quality, ["start_remediation", "attribute"])
    builder.add_edge("start_remediation", "synthesize")
    builder.add_edge("attribute", END)
    return builder.compile()
