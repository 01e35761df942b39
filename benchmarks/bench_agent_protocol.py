"""The Agent Protocol's overhead (issue 27): a quick research run streamed through LangGraph's Agent Protocol
(``/api/langgraph``) against the same run streamed through Rabbithole's own API (``/api``), measured in the
same benchmark against one real `rabbithole serve` process and one fake Ollama (in its own process,
answering at once, so the server's own work sets the pace), over a copy of the small shared index
(``bench-data/kb-quick-8``).

    python -m benchmarks.bench_agent_protocol [--quick] [--runs 5]

Each repetition starts the same quick run (depth 0) three ways, one after another, each after a pause of
a second (the server done with the last run):
- ``/api``: ``POST /api/runs``, then ``GET /api/runs/{id}/events``;
- Agent Protocol, ``custom``: ``POST /threads``, then ``POST /threads/{id}/runs/stream`` with
  ``stream_mode: custom`` (a frame per Rabbithole event: what ``/api`` streams);
- Agent Protocol, all modes: the same with ``values``, ``updates`` and ``custom`` (``values`` reads the
  graph state from the checkpoint at each phase).

Measured for each: the time to the first event (from the first request to the first event of the run
received: ``/api``'s first event, the Agent Protocol's first ``custom`` frame; its ``metadata`` frame comes
before it), events per second while the run executes (live: the events after the first over the time
from the first to the last), and, once the run ended, the whole stream read again (``/api`` from its start,
the Agent Protocol joined with ``Last-Event-ID: -1``): events per second of a replay, where the protocol's
own cost is all there is. Correctness goal: each Agent Protocol stream carries the run's events, all and in
order, as ``/api`` replays them. --quick: 2 repetitions.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from benchmarks.common import (
    SAMPLE_COLLECTION,
    Goal,
    Latency,
    base_parser,
    ensure_sample_index,
    machine_info,
    print_goals,
    print_table,
    quick_kb,
    remove_tree,
    scratch_dir,
)
from benchmarks.serve_process import free_port, start_serve, stop

QUESTION = "Welche Aufgaben hat das Bundesamt für Strahlenschutz?"
RUN_INPUT: dict[str, Any] = {
    "question": QUESTION,
    "collections": [SAMPLE_COLLECTION],
    "mode": "quick",
    "settings": {"depth": 0},
}
ALL_MODES = ["values", "updates", "custom"]
MAX_FIRST_EVENT_OVERHEAD_MS = 50.0  #: goal: the Agent Protocol's time to first event, over /api's (p50)
SETTLE_S = 1.0  #: the pause before each measured run, so each starts on a server done with the last one
PATHS = ("/api", "Agent Protocol (custom)", "Agent Protocol (all modes)")


@dataclass(slots=True)
class Stream:
    """One stream read: when each frame arrived (seconds after the first request), and the run's events
    among them as (seq, type)."""

    frames: list[float] = field(default_factory=list)
    events: list[tuple[int, str]] = field(default_factory=list)
    event_times: list[float] = field(default_factory=list)

    def first_event_s(self) -> float:
        return self.event_times[0] if self.event_times else float("nan")

    def live_rate(self) -> float:
        """Events per second between the first event and the last."""
        span = self.event_times[-1] - self.event_times[0] if len(self.event_times) > 1 else 0.0
        return (len(self.event_times) - 1) / span if span > 0 else float("nan")

    def replay_rate(self) -> float:
        """Events per second over the whole read (request to last event)."""
        return len(self.event_times) / self.event_times[-1] if self.event_times else float("nan")


class Server:
    """`rabbithole serve` in its own process over ``data_dir``, answering model calls with ``llm_url``."""

    def __init__(self, data_dir: Path, llm_url: str, log_path: Path) -> None:
        import httpx

        port = free_port()
        self.url = f"http://127.0.0.1:{port}"
        env = {
            **os.environ,
            "RABBITHOLE_STORAGE__DATA_DIR": str(data_dir),
            "RABBITHOLE_LLM__BASE_URL": llm_url,
            "RABBITHOLE_LLM__REQUEST_TIMEOUT_S": "60",
        }
        self.process = start_serve(env, port, log_path, "the server")
        self.http = httpx.Client(base_url=self.url, timeout=httpx.Timeout(30, read=300))

    def close(self) -> None:
        if hasattr(self, "http"):
            self.http.close()
        stop(self.process)


def _frames(response: Any) -> Iterator[tuple[str, str, str | None]]:
    from rabbithole.cli.sse import parse_sse

    for message in parse_sse(response.iter_lines()):
        yield message.event, message.data, message.id


def read_api(server: Server, run_id: str, started: float) -> Stream:
    """``GET /api/runs/{id}/events`` from the start until the stream ends."""
    got = Stream()
    with server.http.stream("GET", f"/api/runs/{run_id}/events") as response:
        response.raise_for_status()
        for _event, data, _id in _frames(response):
            now = time.perf_counter() - started
            payload = json.loads(data)
            got.frames.append(now)
            got.events.append((int(payload["seq"]), str(payload["type"])))
            got.event_times.append(now)
    return got


def read_agent(server: Server, method: str, path: str, started: float, **request: Any) -> Stream:
    """An Agent Protocol stream until its ``end`` frame; its ``custom`` frames are the run's events."""
    got = Stream()
    with server.http.stream(method, f"/api/langgraph{path}", **request) as response:
        response.raise_for_status()
        for event, data, _id in _frames(response):
            now = time.perf_counter() - started
            got.frames.append(now)
            if event == "custom":
                payload = json.loads(data)
                got.events.append((int(payload["seq"]), str(payload["type"])))
                got.event_times.append(now)
            if event == "end":
                break
    return got


@dataclass(slots=True)
class Repetition:
    live: Stream
    replay: Stream
    run_id: str


def through_api(server: Server) -> Repetition:
    started = time.perf_counter()
    response = server.http.post("/api/runs", json=RUN_INPUT)
    response.raise_for_status()
    run_id = str(response.json()["run_id"])
    live = read_api(server, run_id, started)
    replay = read_api(server, run_id, time.perf_counter())
    return Repetition(live, replay, run_id)


def through_agent_protocol(server: Server, modes: list[str]) -> Repetition:
    started = time.perf_counter()
    created = server.http.post("/api/langgraph/threads", json={})
    created.raise_for_status()
    thread_id = str(created.json()["thread_id"])
    body = {"assistant_id": "research", "input": RUN_INPUT, "stream_mode": modes}
    live = read_agent(server, "POST", f"/threads/{thread_id}/runs/stream", started, json=body)
    (run,) = server.http.get(f"/api/langgraph/threads/{thread_id}/runs").json()
    replay = read_agent(
        server,
        "GET",
        f"/threads/{thread_id}/runs/{run['run_id']}/stream",
        time.perf_counter(),
        params={"stream_mode": modes},
        headers={"Last-Event-ID": "-1"},
    )
    return Repetition(live, replay, thread_id)


MEASURES: dict[str, Callable[[Server], Repetition]] = {
    PATHS[0]: through_api,
    PATHS[1]: partial(through_agent_protocol, modes=["custom"]),
    PATHS[2]: partial(through_agent_protocol, modes=ALL_MODES),
}


def check(server: Server, path: str, rep: Repetition) -> list[str]:
    """Problems: a stream (live or replayed) that does not carry the run's events as ``/api`` replays them."""
    expected = read_api(server, rep.run_id, time.perf_counter()).events
    problems: list[str] = []
    if not expected or expected[-1][1] != "done":
        problems.append(f"{path}, run {rep.run_id}: it did not end with done: {expected[-3:]}")
    for what, stream in (("live", rep.live), ("replay", rep.replay)):
        if stream.events != expected:
            problems.append(
                f"{path}, run {rep.run_id} ({what}): {len(stream.events)} events, expected {len(expected)}"
            )
    return problems


def _median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def main(argv: list[str]) -> int:
    parser = base_parser(__doc__)
    parser.add_argument("--runs", type=int, default=5, help="repetitions of each path")
    args = parser.parse_args(argv)
    runs = 2 if args.quick else args.runs
    print(machine_info())

    from benchmarks.bench_research import FakeServer

    shared = ensure_sample_index(quick_kb())
    work = scratch_dir("agent-protocol")
    fake = FakeServer()
    server: Server | None = None
    measured: dict[str, list[Repetition]] = {path: [] for path in PATHS}
    problems: list[str] = []
    try:
        data_dir = work / "data"
        shutil.copytree(shared, data_dir)  # runs and checkpoints stay out of the shared index
        fake.set_latency(0)
        server = Server(data_dir, fake.url, work / "server.log")
        through_api(server)  # warm-up (first model calls, first checkpoint): not measured
        for _ in range(runs):  # interleaved, so the machine's load weighs on the three alike
            for path, measure in MEASURES.items():
                time.sleep(SETTLE_S)
                rep = measure(server)
                measured[path].append(rep)
                problems += check(server, path, rep)
    finally:
        if server is not None:
            server.close()
        fake.close()
        remove_tree(work)

    first = {path: Latency.of([r.live.first_event_s() for r in reps]) for path, reps in measured.items()}
    live = {path: _median([r.live.live_rate() for r in reps]) for path, reps in measured.items()}
    replay = {path: _median([r.replay.replay_rate() for r in reps]) for path, reps in measured.items()}
    replay_first = {
        path: Latency.of([r.replay.first_event_s() for r in reps]) for path, reps in measured.items()
    }
    events = {path: _median([float(len(r.live.events)) for r in reps]) for path, reps in measured.items()}
    frames = {path: _median([float(len(r.live.frames)) for r in reps]) for path, reps in measured.items()}
    print(
        f"\nfake Ollama answering at once; {runs} quick runs (depth 0) through each path, interleaved, "
        "one server; medians over the runs unless named"
    )
    rows: list[list[object]] = [
        ["time to first event p50 (ms)", *(first[p].p50 for p in PATHS)],
        ["time to first event max (ms)", *(first[p].max for p in PATHS)],
        ["live: events per second", *(live[p] for p in PATHS)],
        ["events per run", *(events[p] for p in PATHS)],
        ["frames per run", *(frames[p] for p in PATHS)],
        ["replay: time to first event p50 (ms)", *(replay_first[p].p50 for p in PATHS)],
        ["replay: events per second", *(replay[p] for p in PATHS)],
    ]
    print_table(["", *PATHS], rows, title="A run streamed through /api and through the Agent Protocol")
    api, agent = PATHS[0], PATHS[1]
    overhead = first[agent].p50 - first[api].p50
    print(
        f"Agent Protocol (custom) against /api: time to first event {overhead:+.1f} ms (p50), "
        f"live events/s x{live[agent] / live[api]:.2f}, replay events/s x{replay[agent] / replay[api]:.2f}"
    )
    for problem in problems:
        print(f"  PROBLEM: {problem}")
    goals = [
        Goal(
            "each Agent Protocol stream carries the run's events, all and in order, as /api replays them",
            not problems,
            f"{2 * runs} runs, live and replayed, {len(problems)} problems",
        ),
        Goal(
            f"time to first event through the Agent Protocol within {MAX_FIRST_EVENT_OVERHEAD_MS:.0f} ms of "
            "/api's (p50)",
            overhead <= MAX_FIRST_EVENT_OVERHEAD_MS,
            f"{first[agent].p50:.1f} ms against {first[api].p50:.1f} ms",
            machine_dependent=True,
        ),
    ]
    passed = print_goals(goals, f"--quick: {runs} runs" if args.quick else None)
    if problems:
        raise SystemExit(f"bench_agent_protocol: {len(problems)} streams did not carry the run's events")
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
