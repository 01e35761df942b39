"""The evidence layer of a research run: pure logic the graph nodes call.

The model never types evidence: sentences are numbered (``sentences``, ``numbering``), quotes are cut from
the stored page text by offsets (``quotes``), and citations point at evidence ids the run retrieved
(``citations``).
"""

from rabbithole.research.evidence.citations import (
    DraftClaim,
    DraftSection,
    RenderedClaim,
    RenderedReport,
    render_report,
    render_sources,
    strip_markers,
)
from rabbithole.research.evidence.numbering import (
    NumberedSentence,
    group_runs,
    number_passages,
    render_numbered,
    sentence_text,
)
from rabbithole.research.evidence.quotes import PageQuote, normalize_with_map, quote_from_run, verify_quote
from rabbithole.research.evidence.sentences import SentenceSpan, split_sentences
from rabbithole.research.evidence.support import SupportChecker, content_tokens, token_overlap

__all__ = [
    "DraftClaim",
    "DraftSection",
    "NumberedSentence",
    "PageQuote",
    "RenderedClaim",
    "RenderedReport",
    "SentenceSpan",
    "SupportChecker",
    "content_tokens",
    "group_runs",
    "normalize_with_map",
    "number_passages",
    "quote_from_run",
    "render_numbered",
    "render_report",
    "render_sources",
    "sentence_text",
    "split_sentences",
    "strip_markers",
    "token_overlap",
    "verify_quote",
]
