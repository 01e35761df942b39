"""Run the fake SearxNG in a background thread of this process and control it from Python."""

from __future__ import annotations

import socket
import threading
import time
from typing import Any

import uvicorn

from rabbithole.core.config import WebSettings
from rabbithole.devtools.fake_searxng.server import FakeSearxngState, SearchFaults, create_app


class FakeSearxng:
    """A fake SearxNG in a daemon thread; a context manager, or ``start()``/``stop()``. ``port=0``: a free
    port."""

    def __init__(self, *, host: str = "127.0.0.1", port: int = 0) -> None:
        self.state = FakeSearxngState()
        self.app = create_app(self.state)
        self.host = host
        self._requested_port = port
        self.port = port
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self._socket: socket.socket | None = None

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
        if self._server is not None:
            return self
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((self.host, self._requested_port))
        self.port = sock.getsockname()[1]
        config = uvicorn.Config(
            self.app, log_level="warning", lifespan="off", timeout_graceful_shutdown=1, access_log=False
        )
        server = uvicorn.Server(config)
        thread = threading.Thread(
            target=server.run, kwargs={"sockets": [sock]}, daemon=True, name="fake-searxng"
        )
        thread.start()
        deadline = time.monotonic() + timeout_s
        while not server.started:
            if not thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"fake searxng did not start on {self.url}")
            time.sleep(0.005)
        self._server, self._thread, self._socket = server, thread, sock
        return self

    def stop(self) -> None:
        if self._server is None:
            return
        self._server.should_exit = True
        self._server.force_exit = True
        if self._thread is not None:
            self._thread.join(timeout=5)
        if self._socket is not None:
            self._socket.close()
        self._server = self._thread = self._socket = None

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
