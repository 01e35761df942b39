"""Run events over a real socket: `uvicorn` serving the app in a subprocess on 127.0.0.1 (a free port),
the fake Ollama answering every model call after 100 ms, httpx reading the SSE streams. Replay from
Last-Event-ID and ?after, a reconnect mid-run, two clients on one run, the run-list stream, and a server
killed with SIGKILL mid-run whose successor completes the run with event numbers that continue. The
replay and reconnect test runs on both backends (``on_both_backends``: SQLite and embedded Chroma, then
PostgreSQL and a Chroma server)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest

from fixtures.backends import on_both_backends
from fixtures.run_kb import RUN_COLLECTION, ingested_kb
from rabbithole.core.config import Settings
from rabbithole.devtools.fake_ollama import FakeOllama

pytestmark = pytest.mark.timeout(300)

QUICK: dict[str, Any] = {
    "question": "Welche Grenzwerte gelten für beruflich exponierte Personen?",
    "collections": [RUN_COLLECTION],
    "mode": "quick",
    "settings": {"depth": 0},
}
Event = tuple[int, str, dict[str, Any]]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def slow_ollama() -> Iterator[FakeOllama]:
    with FakeOllama(latency_ms=100) as fake:
        yield fake


class Server:
    """`uvicorn rabbithole.api.main:create_app --factory` in a subprocess over the small KB."""

    def __init__(self, settings: Settings, ollama: FakeOllama) -> None:
        self.env = dict(os.environ)
        self.env["RABBITHOLE_STORAGE__DATA_DIR"] = str(settings.storage.data_dir)
        self.env["RABBITHOLE_LLM__BASE_URL"] = ollama.url
        self.env["RABBITHOLE_LLM__REQUEST_TIMEOUT_S"] = "20"
        self.env["RABBITHOLE_RESEARCH__RUN_LEASE_S"] = "2"  # a killed server's runs are taken over in 2 s
        if settings.database.url:  # the server backend
            self.env["RABBITHOLE_DATABASE__URL"] = settings.database.url
            self.env["RABBITHOLE_VECTORS__URL"] = settings.vectors.url
            self.env["RABBITHOLE_VECTORS__DATABASE"] = settings.vectors.database
        self.process: subprocess.Popen[bytes] | None = None
        self.url = ""

    def start(self) -> Server:
        port = _free_port()
        self.url = f"http://127.0.0.1:{port}"
        command = [sys.executable, "-m", "uvicorn", "rabbithole.api.main:create_app", "--factory"]
        command += ["--host", "127.0.0.1", "--port", str(port), "--log-level", "warning"]
        self.process = subprocess.Popen(command, env=self.env)
        while True:  # the test's timeout guards a server that never comes up
            assert self.process.poll() is None, "the server exited"
            try:
                if httpx.get(f"{self.url}/api/runs", params={"limit": 1}).status_code == 200:
                    return self
            except httpx.TransportError:
                time.sleep(0.2)

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()  # SIGKILL: no shutdown, no cleanup
            self.process.wait()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=30)


@pytest.fixture
def server_factory(run_backend: Settings, slow_ollama: FakeOllama) -> Iterator[Callable[[], Server]]:
    """Servers over the small KB, on the backend ``run_backend`` gives."""
    started: list[Server] = []

    def factory() -> Server:
        server = Server(run_backend, slow_ollama).start()
        started.append(server)
        return server

    yield factory
    for server in started:
        server.stop()


def read_events(
    url: str,
    *,
    headers: dict[str, str] | None = None,
    params: dict[str, Any] | None = None,
    until: Callable[[list[Event]], bool] = lambda _events: False,
) -> list[Event]:
    """Read an SSE stream until the server closes it or ``until(events)`` holds: (id, type, data)."""
    events: list[Event] = []
    timeout = httpx.Timeout(10, read=120)
    with httpx.stream("GET", url, headers=headers, params=params, timeout=timeout) as response:
        assert response.status_code == 200, response.read()
        assert response.headers["content-type"].startswith("text/event-stream")
        fields: dict[str, str] = {}
        for line in response.iter_lines():
            if line.startswith(":"):  # a heartbeat
                continue
            if line:
                key, _, value = line.partition(":")
                fields[key] = value.removeprefix(" ")
                continue
            if "data" in fields:
                events.append((int(fields.get("id", "0")), fields["event"], json.loads(fields["data"])))
                if until(events):
                    break
            fields = {}
    return events


def assert_numbered(events: list[Event], run_id: str) -> None:
    assert [seq for seq, _, _ in events] == list(range(1, len(events) + 1))
    assert all(data["seq"] == seq and data["run_id"] == run_id for seq, _, data in events)
    assert all(data["type"] == kind for _, kind, data in events)


@on_both_backends("run_backend")
def test_two_clients_replay_and_reconnect(server_factory: Callable[[], Server]) -> None:
    server = server_factory()
    with ThreadPoolExecutor(4) as pool:
        subscribed = threading.Event()

        def run_done(seen: list[Event]) -> bool:
            if seen[-1][1] == "ready":
                subscribed.set()
            return any(d["status"] == "done" for _, kind, d in seen if kind == "status")

        changes = pool.submit(read_events, f"{server.url}/api/runs/events", until=run_done)
        subscribed.wait()
        run_id = httpx.post(f"{server.url}/api/runs", json=QUICK).json()["run_id"]
        stream = f"{server.url}/api/runs/{run_id}/events"
        first = pool.submit(read_events, stream)
        second = pool.submit(read_events, stream)
        partial = pool.submit(read_events, stream, until=lambda seen: len(seen) == 3)
        head = partial.result()
        rest = read_events(stream, headers={"Last-Event-ID": str(head[-1][0])})
        a, b = first.result(), second.result()
        listed = changes.result()

    assert a == b, "two clients of one run saw different events"
    assert_numbered(a, run_id)
    assert a[-1][1] == "done" and a[-2][1:] == ("status", {**a[-2][2], "status": "done"})
    assert {"phase", "todo", "task_progress", "report"} <= {kind for _, kind, _ in a}
    assert head + rest == a, "a reconnect lost or repeated events"

    assert read_events(stream, params={"after": 5}) == a[5:]
    assert read_events(stream, headers={"Last-Event-ID": str(len(a) - 2)}) == a[-2:]
    assert read_events(stream, headers={"Last-Event-ID": str(len(a))}) == []

    assert listed[0][1] == "ready"
    ours = [d for _, kind, d in listed[1:] if d["run_id"] == run_id and kind == "status"]
    assert [d["status"] for d in ours] == ["queued", "running", "done"]
    numbers = [seq for seq, _, _ in listed[1:]]
    assert numbers == sorted(numbers)
    bad = httpx.get(stream, headers={"Last-Event-ID": "x"})
    assert bad.status_code == 422


@pytest.fixture
def own_kb_servers(
    tmp_path_factory: pytest.TempPathFactory, slow_ollama: FakeOllama
) -> Iterator[Callable[[], Server]]:
    """Servers over a small KB of their own: the run killed is the only one there (the shared KB holds runs
    other tests left waiting or running, which a restarted server would resume beside it)."""
    settings = ingested_kb(tmp_path_factory.mktemp("kill-kb"))
    started: list[Server] = []

    def factory() -> Server:
        server = Server(settings, slow_ollama).start()
        started.append(server)
        return server

    yield factory
    for server in started:
        server.stop()


def test_a_killed_server_resumes_the_run_on_restart(own_kb_servers: Callable[[], Server]) -> None:
    server_factory = own_kb_servers
    server = server_factory()
    run_id = httpx.post(f"{server.url}/api/runs", json=QUICK).json()["run_id"]
    stream = f"{server.url}/api/runs/{run_id}/events"
    before = read_events(stream, until=lambda seen: seen[-1][1] == "task_progress")
    server.kill()

    restarted = server_factory()
    stream = f"{restarted.url}/api/runs/{run_id}/events"
    after = read_events(stream, headers={"Last-Event-ID": str(before[-1][0])})
    everything = read_events(stream)
    assert_numbered(everything, run_id)
    assert before + after == everything, "events were lost or repeated across the restart"
    assert everything[-1][1] == "done", everything[-1]
    resumed = [d["status"] for _, kind, d in after if kind == "status"]
    assert resumed[0] == "running" and resumed[-1] == "done"
    report = httpx.get(f"{restarted.url}/api/runs/{run_id}/report")
    assert report.status_code == 200 and report.json()["status"] == "done"
