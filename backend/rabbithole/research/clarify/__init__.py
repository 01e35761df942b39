"""Clarification: rounds of search, coverage analysis and grounded follow-up questions (an interrupt per
round) until the user ends it, the rounds run out or the analysis converges; then the query anchor."""

from rabbithole.research.clarify.graph import build_clarify_graph

__all__ = ["build_clarify_graph"]
