"""The SearxNG client: its JSON API (``GET /search?q=...&format=json``), one query at a time.

SearxNG answers the JSON format only when the instance enables it (``search.formats: [html, json]`` in its
settings.yml); otherwise it answers 403, reported as such.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import httpx

from rabbithole.web.errors import SearchUnavailableError


@dataclass(frozen=True, slots=True)
class SearchHit:
    """One search result: where it is, what SearxNG calls it, and its snippet (never cited)."""

    url: str
    title: str
    snippet: str
    query: str
    rank: int


class SearxngClient:
    """Searches one SearxNG instance."""

    def __init__(self, base_url: str, *, timeout_s: float, user_agent: str) -> None:
        self.base_url = base_url.rstrip("/")
        self.timeout_s = timeout_s
        self.user_agent = user_agent

    async def search(self, query: str, language: str, *, limit: int) -> list[SearchHit]:
        """The first ``limit`` http(s) results of ``query`` (best first, one per address);
        SearchUnavailableError saying why there are none."""
        params = {"q": query, "format": "json", "language": language, "safesearch": "1"}
        try:
            async with httpx.AsyncClient(
                timeout=self.timeout_s, headers={"User-Agent": self.user_agent}
            ) as client:
                response = await client.get(f"{self.base_url}/search", params=params)
        except httpx.TimeoutException:
            raise SearchUnavailableError(
                f"SearxNG at {self.base_url} did not answer within {self.timeout_s:g} s"
            ) from None
        except httpx.HTTPError as exc:
            raise SearchUnavailableError(f"SearxNG at {self.base_url} is not reachable ({exc})") from None
        if response.status_code == 403:
            raise SearchUnavailableError(
                f"SearxNG at {self.base_url} refused the JSON format (403): enable it with "
                "`search.formats: [html, json]` in its settings.yml"
            )
        if response.status_code != 200:
            raise SearchUnavailableError(f"SearxNG at {self.base_url} answered HTTP {response.status_code}")
        try:
            data = response.json()
        except ValueError:
            raise SearchUnavailableError(f"SearxNG at {self.base_url} did not answer JSON") from None
        return _hits(data, query, limit, self.base_url)


def _hits(data: Any, query: str, limit: int, base_url: str) -> list[SearchHit]:
    results = data.get("results") if isinstance(data, dict) else None
    if not isinstance(results, list):
        raise SearchUnavailableError(f"SearxNG at {base_url} answered JSON without a result list")
    hits: list[SearchHit] = []
    seen: set[str] = set()
    for item in results:
        if not isinstance(item, dict):
            continue
        url = item.get("url")
        if not isinstance(url, str) or not url.startswith(("http://", "https://")) or url in seen:
            continue
        seen.add(url)
        title = item.get("title")
        snippet = item.get("content")
        hits.append(
            SearchHit(
                url=url,
                title=title.strip() if isinstance(title, str) else "",
                snippet=snippet.strip() if isinstance(snippet, str) else "",
                query=query,
                rank=len(hits) + 1,
            )
        )
        if len(hits) >= limit:
            break
    return hits
