"""The collaborators of web research, built once by ``Services.web_searcher`` (None while
``web_research.searxng_url`` is unset): the SearxNG client, the page fetcher, the embedder that scores
passages."""

from __future__ import annotations

from rabbithole.core.config import WebSettings
from rabbithole.core.errors import ConfigurationError
from rabbithole.embeddings.base import Embedder
from rabbithole.web.fetch import PageFetcher
from rabbithole.web.searxng import SearxngClient


class WebSearcher:
    def __init__(self, settings: WebSettings, embedder: Embedder) -> None:
        if not settings.searxng_url:
            raise ConfigurationError(
                "web research needs web_research.searxng_url (RABBITHOLE_WEB_RESEARCH__SEARXNG_URL)"
            )
        self.settings = settings
        self.embedder = embedder
        self.client = SearxngClient(
            settings.searxng_url, timeout_s=settings.search_timeout_s, user_agent=settings.user_agent
        )
        self.fetcher = PageFetcher(settings)
