"""The evidence layer of a research run: pure logic the graph nodes call.

The model never types evidence: sentences are numbered (``sentences``, ``numbering``), quotes are cut from
the stored page text by offsets (``quotes``), and citations point at evidence ids the run retrieved
(``citations``).
"""

from rabbithole.research.evidence.numbering import (
    NumberedSentence,
    group_runs,
    number_passages,
    render_numbered,
    sentence_text,
)
from rabbithole.research.evidence.quotes import PageQuote, normalize_with_map, quote_from_run, verify_quote
from rabbithole.research.evidence.sentences import SentenceSpan, split_sentences

__all__ = [
    "NumberedSentence",
    "PageQuote",
    "SentenceSpan",
    "group_runs",
    "normalize_with_map",
    "number_passages",
    "quote_from_run",
    "render_numbered",
    "sentence_text",
    "split_sentences",
    "verify_quote",
]
