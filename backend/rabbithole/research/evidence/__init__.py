"""The evidence layer of a research run: pure logic the graph nodes call.

The model never types evidence: sentences are numbered (``sentences``, ``numbering``), quotes are cut from
the stored page text by offsets (``quotes``), and citations point at evidence ids the run retrieved
(``citations``).
"""

from rabbithole.research.evidence.sentences import SentenceSpan, split_sentences

__all__ = ["SentenceSpan", "split_sentences"]
