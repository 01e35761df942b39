"""The synthesis subgraph.

validate -> write_section (one per section with verified evidence, side by side) -> assemble -> check_quality
         -> [start_remediation -> write_section (the sections to rewrite) -> assemble -> check_quality] (once,
            when the measured checks or the model's grades failed it) -> attribute

``assemble`` guards the sections together and, after the remediation pass, puts a section assembled from the
verified findings where the model's text is still unusable.
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
    builder.add_node("write_section", nodes.write_section)
    builder.add_node("assemble", nodes.assemble)
    builder.add_node("check_quality", nodes.check_quality)
    builder.add_node("start_remediation", nodes.start_remediation)
    builder.add_node("attribute", nodes.attribute)
    builder.add_edge(START, "validate")
    builder.add_conditional_edges("validate", routers.to_sections, ["write_section", "assemble"])
    builder.add_edge("write_section", "assemble")
    builder.add_edge("assemble", "check_quality")
    builder.add_conditional_edges("check_quality", routers.after_quality, ["start_remediation", "attribute"])
    builder.add_conditional_edges("start_remediation", routers.to_sections, ["write_section", "assemble"])
    builder.add_edge("attribute", END)
    return builder.compile()
