"""The report graph, compiled with the SQLite checkpointer by the runner. It shares its nodes with the
research run: ``start`` (languages) and ``anchor`` from the run and clarification, and the dig subgraph's
``make_queries``, ``search``, ``follow_references`` and ``extract`` inside each section.

start -> anchor (beside the outline: the sections need it, the outline does not)
outline_search (beside start) -> propose_outline -> approve_outline (interrupt)
      -> outline_search (feedback: plan again)
      -> section x N (Send, subgraph) -> sections_done -> review -> section x named -> sections_done ...
      -> frame x M (Send) -> compile -> finish

section: plan_round -> [make_queries] -> search -> web_search (optional) -> widen -> follow_references
         -> extract x batches -> write -> grade (and embed_claims beside it, for compile's support check)
         -> plan_round (fail, follow-up queries, depth left) | finish_section
"""

from __future__ import annotations

from typing import Any

from langgraph.graph import END, START, StateGraph

from rabbithole.research.clarify.nodes import make_anchor
from rabbithole.research.context import ResearchContext
from rabbithole.research.dig import nodes as dig_nodes
from rabbithole.research.report import compile as compiling
from rabbithole.research.report import nodes, routers, section_nodes
from rabbithole.research.report.state import (
    ReportInput,
    ReportState,
    SectionInput,
    SectionOutput,
    SectionState,
)
from rabbithole.research.run import nodes as run_nodes


def build_section_graph() -> Any:
    builder = StateGraph(
        SectionState, context_schema=ResearchContext, input_schema=SectionInput, output_schema=SectionOutput
    )
    builder.add_node("plan_round", section_nodes.plan_round)
    builder.add_node("make_queries", dig_nodes.make_queries)
    builder.add_node("search", dig_nodes.search)
    builder.add_node("web_search", section_nodes.web_search)
    builder.add_node("widen", section_nodes.widen)
    builder.add_node("follow_references", dig_nodes.follow_references)
    builder.add_node("extract", dig_nodes.extract)
    builder.add_node("write", section_nodes.write)
    builder.add_node("grade", section_nodes.grade)
    builder.add_node("embed_claims", section_nodes.embed_claims)
    builder.add_node("finish_section", section_nodes.finish_section)
    builder.add_edge(START, "plan_round")
    builder.add_conditional_edges("plan_round", routers.section_start, ["make_queries", "search"])
    builder.add_edge("make_queries", "search")
    builder.add_edge("search", "web_search")
    builder.add_edge("web_search", "widen")
    builder.add_edge("widen", "follow_references")
    builder.add_conditional_edges("follow_references", routers.to_extraction, ["extract", "write"])
    builder.add_edge("extract", "write")
    builder.add_edge("write", "grade")
    builder.add_edge("write", "embed_claims")  # beside the grade; the vectors go to the run's cache
    builder.add_edge("embed_claims", END)
    builder.add_conditional_edges("grade", routers.after_grade, ["plan_round", "finish_section"])
    builder.add_edge("finish_section", END)
    return builder.compile()


def report_graph_builder() -> StateGraph[Any, Any, Any, Any]:
    builder: StateGraph[Any, Any, Any, Any] = StateGraph(
        ReportState, context_schema=ResearchContext, input_schema=ReportInput
    )
    builder.add_node("start", run_nodes.start)
    builder.add_node("anchor", make_anchor)
    builder.add_node("outline_search", nodes.outline_search)
    builder.add_node("propose_outline", nodes.propose_outline)
    builder.add_node("approve_outline", nodes.approve_outline)
    builder.add_node("section", build_section_graph())
    builder.add_node("sections_done", nodes.sections_done)
    builder.add_node("review", nodes.review)
    builder.add_node("frame", nodes.frame)
    builder.add_node("compile", compiling.compile_report)
    builder.add_node("finish", compiling.finish)
    # the planner searches while the languages are detected (it does not need them); then the anchor is
    # made while the outline is proposed and approved (the sections need it, the outline does not)
    builder.add_edge(START, "start")
    builder.add_edge(START, "outline_search")
    builder.add_edge("start", "anchor")
    builder.add_edge("anchor", END)
    builder.add_edge("outline_search", "propose_outline")
    builder.add_edge("propose_outline", "approve_outline")
    builder.add_conditional_edges(
        "approve_outline", routers.after_outline, ["outline_search", "section", "frame", "compile"]
    )
    builder.add_edge("section", "sections_done")
    builder.add_conditional_edges("sections_done", routers.after_sections, ["review", "frame", "compile"])
    builder.add_conditional_edges("review", routers.after_review, ["section", "frame", "compile"])
    builder.add_edge("frame", "compile")
    builder.add_edge("compile", "finish")
    builder.add_edge("finish", END)
    return builder


def build_report_graph(checkpointer: Any = None) -> Any:
    return report_graph_builder().compile(checkpointer=checkpointer)
