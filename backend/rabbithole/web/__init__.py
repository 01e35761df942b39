"""Optional web research (off by default: Rabbithole is local first). With ``web_research.searxng_url`` set,
``Services.web_searcher`` builds a ``WebSearcher`` and ``web_research(questions, language,
searcher=...)`` returns ``WebFindings``: verbatim passages of fetched pages with their address, title and
fetch time, and warnings for everything that failed. See docs/research.md ("Web research")."""

from rabbithole.web.errors import PageSkippedError, SearchUnavailableError, WebError
from rabbithole.web.models import WEB_COLLECTION, WebFindings, WebPage, WebPassage, web_evidence
from rabbithole.web.research import EvidenceSearch, web_evidence_search, web_research
from rabbithole.web.searcher import WebSearcher

__all__ = [
    "WEB_COLLECTION",
    "EvidenceSearch",
    "PageSkippedError",
    "SearchUnavailableError",
    "WebError",
    "WebFindings",
    "WebPage",
    "WebPassage",
    "WebSearcher",
    "web_evidence",
    "web_evidence_search",
    "web_research",
]
