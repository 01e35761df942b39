"""Run the fake SearxNG in a background thread of this process and control it from Python."""

from __future__ import annotations

from typing import Any

from rabbithole.core.config import WebSettings
from rabbithole.devtools.fake_searxng.server import FakeSearxngState, SearchFaults, create_app
from rabbithole.devtools.threaded_server import ThreadedServer


class FakeSearxng:
    """A fake SearxNG in a daemon thread; a context manager, or ``start()``/``stop()``. ``port=0``: a free
    port."""

    def __init__(self, *, host: str = "127.0.0.1", port: int = 0) -> None:
        self.state = FakeSearxngState()
        self.app = create_app(self.state)
        self.host = host
        self._served = ThreadedServer(self.app, host=host, port=port, name="fake searxng")

    @property
    def port(self) -> int:
        return self._served.port

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def page_url(self, path: str) -> str:
        """The address of one of its pages: ``page_url("/pages/sourdough.html")``, ``page_url("/binary")``."""
        return f"{self.url}{path}"

    def settings(self, **overrides: Any) -> WebSettings:
        """``WebSettings`` pointing at this server; its pages are on 127.0.0.1, so private addresses are
        allowed (short timeouts for tests)."""
        values: dict[str, Any] = {
            "searxng_url": self.url,
            "allow_private_addresses": True,
            "search_timeout_s": 5.0,
            "fetch_timeout_s": 5.0,
            **overrides,
        }
        return WebSettings(**values)

    def start(self, timeout_s: float = 10.0) -> FakeSearxng:
        self._served.start(timeout_s)
        return self

    def stop(self) -> None:
        self._served.stop()

    def __enter__(self) -> FakeSearxng:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- control ---------------------------------------------------------------------------

    def fail_search(self, *, status: int | None = None, delay_s: float = 0.0, not_json: bool = False) -> None:
        """Make ``/search`` answer ``status``, answer after ``delay_s`` seconds, or answer HTML."""
        self.state.faults = SearchFaults(status, delay_s, not_json)

    def pin(self, url: str, title: str = "Pinned result", content: str = "", *, only: bool = False) -> None:
        """List ``url`` (``{base}`` stands for this server) before the fixture pages in every search;
        ``only``: list the pinned results alone."""
        self.state.pinned.append({"url": url, "title": title, "content": content})
        self.state.only_pinned = self.state.only_pinned or only

    @property
    def requests(self) -> list[str]:
        """Path and query of every request, in order."""
        return list(self.state.requests)

    def reset(self) -> None:
        self.state.reset()
