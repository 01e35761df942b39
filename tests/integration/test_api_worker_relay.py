"""Two API workers over one PostgreSQL and one Chroma server (each a real uvicorn on its own port, in this
process): a run created through worker A and executed there streams through worker B, live, every event once
and in order, and B's run-list stream shows A's changes. The stream's look at the log of a run executed
elsewhere is set to an hour, so nothing but the LISTEN/NOTIFY relay can deliver the events in time."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from fixtures.api_server import serving, wait_ready
from fixtures.run_http import QUICK
from fixtures.sse import Sse, assert_every_event_once, read_stream, running_starts
from fixtures.team import TeamBackend
from rabbithole.api.main import create_app
from rabbithole.api.runs import stream
from rabbithole.devtools.fake_ollama import FakeOllama

pytestmark = pytest.mark.timeout(420)


def test_a_run_streams_live_through_another_worker(
    team: TeamBackend, fake_ollama: FakeOllama, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(stream, "ELSEWHERE_POLL_S", 3600.0)  # no look at the log as the delivery path
    fake_ollama.set_latency(50)
    settings = team.settings(fake_ollama)
    app_a, app_b = create_app(settings), create_app(settings)
    with serving(app_a) as a, serving(app_b) as b, ThreadPoolExecutor(2) as pool:
        wait_ready(a)
        wait_ready(b)
        subscribed = threading.Event()
        run: dict[str, str] = {}

        def changes_until_done(seen: list[Sse]) -> bool:
            last = seen[-1].data
            return last.get("run_id") == run.get("id") and last.get("status") == "done"

        def on_change(event: Sse) -> None:
            if event.type == "ready":
                subscribed.set()

        changes = pool.submit(
            read_stream, f"{b}/api/runs/events", until=changes_until_done, on_event=on_change
        )
        assert subscribed.wait(60)
        created = httpx.post(f"{a}/api/runs", json=QUICK, timeout=60)
        assert created.status_code == 201, created.text
        run["id"] = run_id = created.json()["run_id"]
        through_b = read_stream(f"{b}/api/runs/{run_id}/events")

        assert_every_event_once(through_b, run_id)
        assert running_starts(through_b) == 1
        replayed_on_a = read_stream(f"{a}/api/runs/{run_id}/events")
        assert [(e.id, e.type, e.data) for e in replayed_on_a] == [(e.id, e.type, e.data) for e in through_b]
        statuses = [e.data["status"] for e in changes.result(timeout=120) if e.data.get("run_id") == run_id]
        assert statuses[-1] == "done" and "running" in statuses, statuses
        assert httpx.get(f"{b}/api/runs/{run_id}", timeout=30).json()["result"]["sources"]
