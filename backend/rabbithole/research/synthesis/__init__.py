"""From tiered evidence to a cited report: validate (drift), synthesize (claims citing evidence ids), check
the language, score the quality against the evidence (one remediation at most), attribute (sources,
support check, citation statistics)."""

from rabbithole.research.synthesis.graph import build_synthesis_graph

__all__ = ["build_synthesis_graph"]
