"""Report mode: a long multi-section report from an approved outline. Sections are researched in parallel
with the dig machinery of the research run (search, reference following, extraction by sentence number),
written with citations by evidence id, graded (searching again on a fail), refined after a review, framed
(introduction, conclusion, sections without research) and compiled with one global citation numbering."""

from rabbithole.research.report.graph import build_report_graph

__all__ = ["build_report_graph"]
