"""`rabbithole serve` in a process of its own, as the benchmarks that load a real server start it (bench_api,
bench_team), and a free loopback port for any server a benchmark starts."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path

#: How long a server may take to answer /health with ready: true (it loads the embedder and the indexes).
START_TIMEOUT_S = 300.0


def free_port() -> int:
    """A loopback port nobody listens on now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_serve(env: Mapping[str, str], port: int, log_path: Path, what: str) -> subprocess.Popen[bytes]:
    """`rabbithole serve --port port` with ``env``, its output in ``log_path``, once its /health says
    ready; a server that exits or is not ready in time is stopped and raises with its log (``what`` names
    it: "the server", "a worker")."""
    import httpx

    with log_path.open("w") as log:
        command = [sys.executable, "-m", "rabbithole", "serve", "--port", str(port)]
        process = subprocess.Popen(command, env=dict(env), stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + START_TIMEOUT_S
    while True:
        if process.poll() is not None or time.monotonic() > deadline:
            stop(process)
            raise RuntimeError(f"{what} did not start:\n{log_path.read_text()}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/health", timeout=5).json().get("ready") is True:
                return process
        except httpx.HTTPError:
            pass
        time.sleep(0.2)


def stop(process: subprocess.Popen[bytes]) -> None:
    """Terminate the process; killed when it does not exit within 30 s."""
    process.terminate()
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
