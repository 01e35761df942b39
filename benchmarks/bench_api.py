"""The API service under load (issue 8): a real `rabbithole serve` process on 127.0.0.1, the fake Ollama in
its own process answering every model call after 100 ms, over a copy of a small shared index (the 8 smallest
PDFs of kb/sample, ``bench-data/kb-quick-8``, ingested once): the load is the API's, not the corpus's.

    python -m benchmarks.bench_api [--quick] [--runs 20] [--subscribers 5] [--contend]

1. Baseline, no load: one quick run with one SSE subscriber (its event lag), then GET /api/runs/{id}
   latency while nothing runs, and the server's RSS.
2. Load: --runs quick runs (depth 0) started at once (``research.max_running_runs`` = --runs, so they all
   execute together), each watched by --subscribers SSE clients from its creation on, while a poller reads
   GET /api/runs/{id} round-robin over the runs. Measured:
   - every subscriber receives every event of its run, numbered 1..n in order, the same as a replay of
     the run's events after it ended (fails loudly otherwise);
   - event lag: the time an event was received minus its ``created_at`` (one clock: same machine), for the
     events that were live when received (a subscriber connects after its run was created; events
     persisted before its connection are a replay, not lag). Goal p95 <= 100 ms;
   - GET /api/runs/{id} latency during the load. Goal p95 <= 50 ms;
   - the server's RSS (psutil), peak while loaded, beside the idle baseline.

--contend: during the load another connection holds the catalog database's write lock for 200 ms of every
second, as an ingestion writing documents into the same catalog does; the run events wait for it.

Delivery is a correctness goal (a miss fails the benchmark); the two latency goals are machine-dependent
(``Goal.machine_dependent``: a miss is reported beside its figure). --quick: 4 runs with 3 subscribers; the
goals are indicative then.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

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
LATENCY_MS = 100  #: fake Ollama latency per call
MAX_LAG_P95_MS = 100.0  #: goal: p95 event lag under load
MAX_GET_P95_MS = 50.0  #: goal: p95 GET /api/runs/{id} under load
POLL_PAUSE_S = 0.02  #: between two GETs of the poller


@dataclass(slots=True)
class Subscription:
    """What one SSE client received: (seq, type) in order, and the lag of the live events in seconds."""

    events: list[tuple[int, str]] = field(default_factory=list)
    lags: list[float] = field(default_factory=list)
    error: str | None = None


class Server:
    """`rabbithole serve` in its own process over ``data_dir``, answering model calls with ``llm_url``."""

    def __init__(self, data_dir: Path, llm_url: str, max_running: int, log_path: Path) -> None:
        import httpx

        port = free_port()
        self.url = f"http://127.0.0.1:{port}"
        env = {
            **os.environ,
            "RABBITHOLE_STORAGE__DATA_DIR": str(data_dir),
            "RABBITHOLE_LLM__BASE_URL": llm_url,
            "RABBITHOLE_LLM__REQUEST_TIMEOUT_S": "60",
            "RABBITHOLE_RESEARCH__MAX_RUNNING_RUNS": str(max_running),
        }
        self.log_path = log_path
        self.process = start_serve(env, port, log_path, "the server")
        self.http = httpx.Client(base_url=self.url, timeout=60)

    def rss_mb(self) -> float:
        import psutil

        return float(psutil.Process(self.process.pid).memory_info().rss) / 2**20

    def start_run(self) -> str:
        body: dict[str, object] = {
            "question": QUESTION,
            "collections": [SAMPLE_COLLECTION],
            "mode": "quick",
            "settings": {"depth": 0},
        }
        response = self.http.post("/api/runs", json=body)
        response.raise_for_status()
        return str(response.json()["run_id"])

    def replay(self, run_id: str) -> list[tuple[int, str]]:
        return subscribe(self.url, run_id).events

    def close(self) -> None:
        if hasattr(self, "http"):
            self.http.close()
        stop(self.process)


def subscribe(url: str, run_id: str) -> Subscription:
    """Read the run's events from the start until the stream ends (after done or error)."""
    import httpx

    from rabbithole.cli.sse import parse_sse

    got = Subscription()
    try:
        timeout = httpx.Timeout(30, read=300)
        with httpx.stream("GET", f"{url}/api/runs/{run_id}/events", timeout=timeout) as response:
            response.raise_for_status()
            connected = time.time()
            for message in parse_sse(response.iter_lines()):
                received = time.time()
                data = json.loads(message.data)
                got.events.append((int(data["seq"]), str(data["type"])))
                created = datetime.fromisoformat(data["created_at"]).timestamp()
                if created >= connected:  # live, not replayed
                    got.lags.append(received - created)
    except Exception as exc:  # reported as a failed subscriber, loudly
        got.error = f"{type(exc).__name__}: {exc}"
    return got


def poll(server: Server, run_ids: list[str], stop: threading.Event) -> list[float]:
    """GET /api/runs/{id} round-robin until ``stop``: seconds per request."""
    seconds: list[float] = []
    n = 0
    while not stop.is_set():
        started = time.perf_counter()
        response = server.http.get(f"/api/runs/{run_ids[n % len(run_ids)]}")
        seconds.append(time.perf_counter() - started)
        response.raise_for_status()
        n += 1
        time.sleep(POLL_PAUSE_S)
    return seconds


def sample_rss(server: Server, stop: threading.Event, into: list[float]) -> None:
    while not stop.is_set():
        into.append(server.rss_mb())
        stop.wait(0.25)


def check(server: Server, run_id: str, subscriptions: list[Subscription]) -> list[str]:
    """Problems: a subscriber that failed, missed, repeated or reordered an event of the run."""
    problems: list[str] = []
    expected = server.replay(run_id)
    if [seq for seq, _ in expected] != list(range(1, len(expected) + 1)) or not expected:
        problems.append(f"run {run_id}: the replay is not numbered 1..n: {[s for s, _ in expected]}")
    if not expected or expected[-1][1] != "done":
        problems.append(f"run {run_id}: it did not end with done: {expected[-3:]}")
    for n, sub in enumerate(subscriptions):
        if sub.error is not None:
            problems.append(f"run {run_id}, subscriber {n}: {sub.error}")
        elif sub.events != expected:
            differ = [i for i, (a, b) in enumerate(zip(sub.events, expected, strict=False)) if a != b]
            at = differ[0] if differ else min(len(sub.events), len(expected))
            problems.append(
                f"run {run_id}, subscriber {n}: got {len(sub.events)} events, expected {len(expected)}; "
                f"first difference at position {at}"
            )
    return problems


@dataclass(frozen=True, slots=True)
class Measured:
    lag: Latency
    get: Latency
    rss_mb: float
    events: int
    seconds: float
    problems: list[str]


def baseline(server: Server) -> Measured:
    """One run, one subscriber; then GETs while nothing runs."""
    started = time.perf_counter()
    run_id = server.start_run()
    sub = subscribe(server.url, run_id)
    seconds = time.perf_counter() - started
    problems = check(server, run_id, [sub])
    idle: list[float] = []
    for _ in range(100):
        begun = time.perf_counter()
        server.http.get(f"/api/runs/{run_id}").raise_for_status()
        idle.append(time.perf_counter() - begun)
        time.sleep(POLL_PAUSE_S)
    return Measured(
        Latency.of(sub.lags), Latency.of(idle), server.rss_mb(), len(sub.events), seconds, problems
    )


HOLD_S, EVERY_S = 0.2, 1.0  #: --contend: the write lock held this long, this often


def contend(catalog: Path, stop: threading.Event) -> int:
    """Hold the catalog's write lock HOLD_S of every EVERY_S until ``stop``: how many times."""
    import sqlite3

    held = 0
    conn = sqlite3.connect(catalog, timeout=30, isolation_level=None)
    try:
        while not stop.is_set():
            conn.execute("BEGIN IMMEDIATE")
            time.sleep(HOLD_S)
            conn.execute("COMMIT")
            held += 1
            stop.wait(EVERY_S - HOLD_S)
    finally:
        conn.close()
    return held


def load(server: Server, runs: int, subscribers: int, catalog: Path | None = None) -> Measured:
    """``catalog``: contend for its write lock during the load (--contend)."""
    stop = threading.Event()
    rss: list[float] = []
    started = time.perf_counter()
    with ThreadPoolExecutor(runs * subscribers + 3) as pool:
        contender = pool.submit(contend, catalog, stop) if catalog is not None else None
        run_ids = list(pool.map(lambda _n: server.start_run(), range(runs)))
        streams = {
            run_id: [pool.submit(subscribe, server.url, run_id) for _ in range(subscribers)]
            for run_id in run_ids
        }
        poller = pool.submit(poll, server, run_ids, stop)
        sampler = pool.submit(sample_rss, server, stop, rss)
        received = {run_id: [f.result() for f in futures] for run_id, futures in streams.items()}
        seconds = time.perf_counter() - started
        stop.set()
        get_seconds = poller.result()
        sampler.result()
        if contender is not None:
            print(f"the catalog's write lock was held {contender.result()} times for {HOLD_S * 1000:.0f} ms")
    problems = [p for run_id, subs in received.items() for p in check(server, run_id, subs)]
    lags = [lag for subs in received.values() for sub in subs for lag in sub.lags]
    events = sum(len(sub.events) for subs in received.values() for sub in subs)
    return Measured(Latency.of(lags), Latency.of(get_seconds), max(rss), events, seconds, problems)


def main(argv: list[str]) -> int:
    parser = base_parser(__doc__)
    parser.add_argument("--runs", type=int, default=20, help="concurrent quick runs")
    parser.add_argument("--subscribers", type=int, default=5, help="SSE clients per run")
    parser.add_argument(
        "--contend", action="store_true", help="hold the catalog's write lock 200 ms a second under load"
    )
    args = parser.parse_args(argv)
    runs, subscribers = (4, 3) if args.quick else (args.runs, args.subscribers)
    print(machine_info())

    from benchmarks.bench_research import FakeServer

    shared = ensure_sample_index(quick_kb())
    work = scratch_dir("api")
    fake = FakeServer()
    server: Server | None = None
    try:
        data_dir = work / "data"
        shutil.copytree(shared, data_dir)  # runs and checkpoints stay out of the shared index
        fake.set_latency(LATENCY_MS)
        server = Server(data_dir, fake.url, runs, work / "server.log")
        idle_rss = server.rss_mb()
        base = baseline(server)
        loaded = load(server, runs, subscribers, data_dir / "catalog.sqlite3" if args.contend else None)
    finally:
        if server is not None:
            server.close()
        fake.close()
        remove_tree(work)

    print(
        f"\nfake Ollama at {LATENCY_MS} ms per call; baseline: 1 quick run, 1 subscriber, then GETs idle; "
        f"load: {runs} quick runs at once x {subscribers} SSE subscribers + a GET poller"
        + (f", the catalog's write lock held {HOLD_S * 1000:.0f} ms of every second" if args.contend else "")
    )
    rows: list[list[object]] = [
        ["event lag p50 (ms)", base.lag.p50, loaded.lag.p50],
        ["event lag p95 (ms)", base.lag.p95, loaded.lag.p95],
        ["event lag max (ms)", base.lag.max, loaded.lag.max],
        ["live events measured", base.lag.n, loaded.lag.n],
        ["GET /api/runs/{id} p50 (ms)", base.get.p50, loaded.get.p50],
        ["GET /api/runs/{id} p95 (ms)", base.get.p95, loaded.get.p95],
        ["GET /api/runs/{id} max (ms)", base.get.max, loaded.get.max],
        ["GET requests", base.get.n, loaded.get.n],
        ["events received", base.events, loaded.events],
        ["wall time (s)", base.seconds, loaded.seconds],
        [
            "server RSS (MB, idle / after / peak)",
            f"{idle_rss:.0f} / {base.rss_mb:.0f}",
            f"{loaded.rss_mb:.0f}",
        ],
    ]
    print_table(["", "baseline", "under load"], rows, title="API service")
    problems = base.problems + loaded.problems
    for problem in problems:
        print(f"  PROBLEM: {problem}")
    goals = [
        Goal(
            "every subscriber receives every event, in order",
            not problems,
            f"{runs * subscribers} subscribers, {loaded.events} events, {len(problems)} problems",
        ),
        Goal(
            "event lag p95 under load <= 100 ms",
            loaded.lag.p95 <= MAX_LAG_P95_MS,
            f"{loaded.lag.p95:.1f} ms (baseline {base.lag.p95:.1f} ms)",
            machine_dependent=True,
        ),
        Goal(
            "GET /api/runs/{id} p95 under load <= 50 ms",
            loaded.get.p95 <= MAX_GET_P95_MS,
            f"{loaded.get.p95:.1f} ms (baseline {base.get.p95:.1f} ms)",
            machine_dependent=True,
        ),
    ]
    indicative = f"--quick: {runs} runs x {subscribers} subscribers" if args.quick else None
    passed = print_goals(goals, indicative)
    if problems:
        raise SystemExit(f"bench_api: {len(problems)} subscribers did not receive every event in order")
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
