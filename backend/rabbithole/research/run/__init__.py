"""The research run graph: start -> clarify (interactive) or anchor (quick) -> assess -> plan (approval) ->
dig (tasks in parallel) -> synthesis -> finish."""

from rabbithole.research.run.graph import build_research_graph

__all__ = ["build_research_graph"]
