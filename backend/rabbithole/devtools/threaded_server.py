"""An ASGI app served by uvicorn in a daemon thread of this process, on a socket bound before it starts
(``port=0``: a free port, known at once). The fakes of Ollama and SearxNG run on it."""

from __future__ import annotations

import socket
import threading
import time
from typing import Any

import uvicorn


class ThreadedServer:
    def __init__(self, app: Any, *, host: str, port: int, name: str) -> None:
        self.app, self.host, self.name = app, host, name
        self._requested_port = port
        self.port = port
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self._socket: socket.socket | None = None

    @property
    def running(self) -> bool:
        return self._server is not None

    def start(self, timeout_s: float = 10.0) -> None:
        """Serve until ``stop``; RuntimeError when the server is not up within ``timeout_s``."""
        if self._server is not None:
            return
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((self.host, self._requested_port))
        self.port = sock.getsockname()[1]
        config = uvicorn.Config(
            self.app, log_level="warning", lifespan="off", timeout_graceful_shutdown=1, access_log=False
        )
        server = uvicorn.Server(config)
        thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True, name=self.name)
        thread.start()
        deadline = time.monotonic() + timeout_s
        while not server.started:
            if not thread.is_alive() or time.monotonic() > deadline:
                sock.close()
                raise RuntimeError(f"{self.name} did not start on http://{self.host}:{self.port}")
            time.sleep(0.005)
        self._server, self._thread, self._socket = server, thread, sock

    def stop(self) -> None:
        if self._server is None:
            return
        self._server.should_exit = True
        self._server.force_exit = True  # do not wait for idle keep-alive connections
        if self._thread is not None:
            self._thread.join(timeout=5)
        if self._socket is not None:
            self._socket.close()
        self._server = self._thread = self._socket = None
