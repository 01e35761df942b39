"""Fetching result pages: bounded in time (one deadline for the whole page), size (the body is read in
pieces and abandoned past the limit), redirects and media type; addresses in the local network are refused
unless allowed (a search result must not make Rabbithole call services on this machine or its network)."""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from dataclasses import dataclass
from datetime import UTC, datetime

import httpx

from rabbithole.core.config import WebSettings
from rabbithole.web.errors import PageSkippedError


@dataclass(frozen=True, slots=True)
class FetchedPage:
    """A page as it came: the address asked for, the one answered after redirects, its body."""

    url: str
    final_url: str
    content_type: str
    charset: str | None
    body: bytes
    fetched_at: datetime


class PageFetcher:
    def __init__(self, settings: WebSettings) -> None:
        self.settings = settings

    async def fetch(self, url: str) -> FetchedPage:
        """The page at ``url``; PageSkippedError saying why it was not read."""
        timeout = self.settings.fetch_timeout_s
        try:
            async with asyncio.timeout(timeout):
                return await self._fetch(url)
        except TimeoutError:
            raise PageSkippedError(f"{url}: no complete answer within {timeout:g} s") from None
        except httpx.TooManyRedirects:
            raise PageSkippedError(f"{url}: more than {self.settings.max_redirects} redirects") from None
        except httpx.HTTPError as exc:
            raise PageSkippedError(f"{url}: not reachable ({type(exc).__name__}: {exc})") from None

    async def _fetch(self, url: str) -> FetchedPage:
        settings = self.settings
        hooks = {} if settings.allow_private_addresses else {"request": [_refuse_local_network]}
        async with (
            httpx.AsyncClient(
                timeout=settings.fetch_timeout_s,
                follow_redirects=True,
                max_redirects=settings.max_redirects,
                headers={"User-Agent": settings.user_agent, "Accept": ", ".join(settings.content_types)},
                event_hooks=hooks,
            ) as client,
            client.stream("GET", url) as response,
        ):
            if response.status_code != 200:
                raise PageSkippedError(f"{url}: HTTP {response.status_code}")
            media_type = response.headers.get("content-type", "").split(";")[0].strip().lower()
            if media_type not in settings.content_types:
                shown = media_type or "no content type"
                raise PageSkippedError(f"{url}: {shown} is not a web page this reads")
            limit = settings.max_page_bytes
            declared = response.headers.get("content-length", "")
            if declared.isdigit() and int(declared) > limit:
                raise PageSkippedError(f"{url}: {int(declared)} bytes, more than the limit of {limit}")
            body = bytearray()
            async for piece in response.aiter_bytes():  # decoded: a compressed bomb counts as its size
                body += piece
                if len(body) > limit:
                    raise PageSkippedError(f"{url}: more than the limit of {limit} bytes")
            return FetchedPage(
                url=url,
                final_url=str(response.url),
                content_type=media_type,
                charset=response.charset_encoding,
                body=bytes(body),
                fetched_at=datetime.now(UTC),
            )


async def _refuse_local_network(request: httpx.Request) -> None:
    """Event hook on every request (redirects included): its host must have only public addresses."""
    host = request.url.host
    try:
        addresses = [ipaddress.ip_address(host)]
    except ValueError:
        try:
            infos = await asyncio.get_running_loop().getaddrinfo(host, None, type=socket.SOCK_STREAM)
        except OSError as exc:
            raise PageSkippedError(f"{request.url}: {host} does not resolve ({exc})") from None
        addresses = [ipaddress.ip_address(str(info[4][0]).split("%")[0]) for info in infos]
    local = [str(a) for a in addresses if not a.is_global]
    if local:
        raise PageSkippedError(
            f"{request.url}: {host} is in the local network ({local[0]}); "
            "set web_research.allow_private_addresses to fetch such pages"
        )
