"""Why a web search or a page could not be used. Web research turns these into warnings: a failure never
becomes content."""

from __future__ import annotations

from rabbithole.core.errors import RabbitholeError


class WebError(RabbitholeError):
    """A web search or a page fetch failed; the message says which address and why."""


class SearchUnavailableError(WebError):
    """SearxNG did not answer, answered with an error, or answered something that is not its JSON."""


class PageSkippedError(WebError):
    """A result page was not read: unreachable, too slow, too large, not a web page, or refused."""
