"""The evidence layer of a research run: pure logic the graph nodes call.

The model never types evidence: sentences are numbered (``sentences``, ``numbering``), quotes are cut from
the stored page text by offsets (``quotes``), and citations point at evidence ids the run retrieved
(``citations``). Around them: the support check of cited claims (``support``), tiers (``tiering``), drift
validation against the query anchor (``drift``) and packing the synthesis prompt (``packing``). No I/O, no
model: the embedder is passed in where similarity is needed.
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
from rabbithole.research.evidence.drift import DriftResult, validate_drift
from rabbithole.research.evidence.numbering import (
    NumberedSentence,
    group_runs,
    number_passages,
    render_numbered,
    sentence_text,
)
from rabbithole.research.evidence.packing import PackItem, PackResult, pack
from rabbithole.research.evidence.quotes import (
    PageQuote,
    normalize_with_map,
    quote_from_run,
    quotes_from_run,
    verify_quote,
)
from rabbithole.research.evidence.sentences import SentenceSpan, split_sentences
from rabbithole.research.evidence.support import SupportChecker, content_tokens, token_overlap
from rabbithole.research.evidence.tiering import TierWeights, entity_match, tier_of

__all__ = [
    "DraftClaim",
    "DraftSection",
    "DriftResult",
    "NumberedSentence",
    "PackItem",
    "PackResult",
    "PageQuote",
    "RenderedClaim",
    "RenderedReport",
    "SentenceSpan",
    "SupportChecker",
    "TierWeights",
    "content_tokens",
    "entity_match",
    "group_runs",
    "normalize_with_map",
    "number_passages",
    "pack",
    "quote_from_run",
    "quotes_from_run",
    "render_numbered",
    "render_report",
    "render_sources",
    "sentence_text",
    "split_sentences",
    "strip_markers",
    "tier_of",
    "token_overlap",
    "validate_drift",
    "verify_quote",
]
