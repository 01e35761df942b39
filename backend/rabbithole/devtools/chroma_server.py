"""A Chroma server process for tests and benchmarks: `chroma run` (shipped in the chromadb package, beside
this Python) over a folder, on a loopback port, started once its heartbeat answers.

    server = ChromaServerProcess(folder / "data", port, folder / "chroma.log")
    server.start()                  # ChromaServerUnavailable (with the end of its log) if it does not come up
    settings = server.vectors()     # vectors.url of this server, in a database of its own
    server.stop()                   # the folder stays: start() again serves the same data
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from pathlib import Path
from types import TracebackType

import httpx

from rabbithole.core.config import VectorSettings

#: the longest a start may take until the heartbeat answers
START_TIMEOUT_S = 60.0


class ChromaServerUnavailable(RuntimeError):
    """The server could not be started (the command is missing, it ended, or its heartbeat never came)."""


class ChromaServerProcess:
    """One `chroma run` process over ``path`` on ``port`` (loopback), logging to ``log``."""

    def __init__(self, path: Path, port: int, log: Path) -> None:
        self.path = path
        self.port = port
        self.log = log
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def start(self, timeout_s: float = START_TIMEOUT_S) -> None:
        """Start the server (a no-op while it runs) and wait for its heartbeat."""
        if self.running:
            return
        chroma = Path(sys.executable).parent / "chroma"
        if not chroma.exists():
            raise ChromaServerUnavailable(
                f"the chroma command ships with the chromadb dependency, and {chroma} is missing"
            )
        self.log.parent.mkdir(parents=True, exist_ok=True)
        address = ["--host", "127.0.0.1", "--port", str(self.port)]
        command = [str(chroma), "run", "--path", str(self.path), *address]
        env = {**os.environ, "ANONYMIZED_TELEMETRY": "False"}
        with self.log.open("ab") as log:
            self._process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env)
        deadline = time.monotonic() + timeout_s
        last = "no answer yet"
        while time.monotonic() < deadline:
            code = self._process.poll()
            if code is not None:
                raise ChromaServerUnavailable(
                    f"the Chroma server ended with exit code {code} at start:\n{self.log_tail()}"
                )
            try:
                response = httpx.get(f"{self.url}/api/v2/heartbeat", timeout=2.0)
                if response.status_code == 200:
                    return
                last = f"HTTP {response.status_code}"
            except httpx.HTTPError as exc:
                last = f"{type(exc).__name__}: {exc}"
            time.sleep(0.1)
        self.stop()
        raise ChromaServerUnavailable(
            f"the Chroma server on port {self.port} did not answer its heartbeat within {timeout_s:g} s "
            f"({last}):\n{self.log_tail()}"
        )

    def stop(self) -> None:
        """Stop the server (SIGTERM, then SIGKILL after 20 s); its folder stays for the next start."""
        process, self._process = self._process, None
        if process is None or process.poll() is not None:
            return
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=20)

    def vectors(self, database: str | None = None) -> VectorSettings:
        """``vectors`` settings of this server, in ``database`` (a new one when not given; the store creates
        it at its first connection)."""
        return VectorSettings(url=self.url, database=database or f"rh-{uuid.uuid4().hex[:16]}")

    def log_tail(self, lines: int = 30) -> str:
        try:
            text = self.log.read_text(encoding="utf-8", errors="replace")
        except OSError as exc:
            return f"(its log {self.log} could not be read: {exc})"
        return "\n".join(text.splitlines()[-lines:])

    def __enter__(self) -> ChromaServerProcess:
        self.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.stop()
