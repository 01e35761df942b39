"""A team's server (issue 25): several API workers over one PostgreSQL and one Chroma server.

    python -m benchmarks.bench_team [--quick] [--runs 30] [--latency-ms 300]

A throwaway PostgreSQL cluster (``devtools/postgres_cluster.py``), a `chroma run` server
(``devtools/chroma_server.py``) and the fake Ollama in its own process (every model call answered after
--latency-ms); the 3 smallest PDFs of kb/sample ingested into each backend. Three loads, one after the other,
each --runs quick runs (depth 0) submitted at once, round robin over the workers, each run watched from its
creation by one SSE client on another worker than the one that created (and executes) it where there are
several; a load ends when every client has its run's ``done``. Each `rabbithole serve` worker keeps the
default ``research.max_running_runs`` (2): a worker executes two runs at once, three workers six.

1. embedded, 1 worker (SQLite, embedded Chroma): the baseline of the backend ratio;
2. server, 1 worker (PostgreSQL, Chroma server): runs per minute, against 1 (printed: server / embedded);
3. server, 3 workers: runs per minute against 2 (goal: at least 2.5x), and the SSE delivery across workers:
   every client receives every event of its run, numbered 1..n in order, as a replay of the run reads them
   (a correctness goal: a miss fails the benchmark), each run executed once (one ``running`` status), and
   the lag of the live events across workers: each run is also watched by a client of the worker that
   executes it, which receives an event once its transaction committed; the lag is the event's arrival at
   the client on another worker minus its arrival there (goal: p95 at most 100 ms). Printed beside it: the
   lag from the event's ``created_at`` (emitted, before its write and commit) to the other worker's client.

The speed-up and the lag are machine-dependent goals (``Goal.machine_dependent``): three workers, PostgreSQL,
the Chroma server, the fake Ollama and the clients share this machine's cores; the machine's load is printed
before and after each load, with the share of its CPU time that was busy during it and the workers' CPU
seconds per run. --quick: 9 runs; the goals are indicative then.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from benchmarks.common import (
    SAMPLE_COLLECTION,
    Goal,
    Latency,
    base_parser,
    machine_info,
    print_goals,
    print_table,
    quick_kb,
    remove_tree,
    scratch_dir,
)
from benchmarks.serve_process import free_port, start_serve, stop

QUESTION = "Welche Aufgaben hat das Bundesamt für Strahlenschutz?"
RUNS = 30
LATENCY_MS = 300
WORKERS = 3
MIN_SPEEDUP = 2.5  #: goal: runs per minute of three workers against one
MAX_LAG_P95_MS = 100.0  #: goal: p95 lag of an event at a client on another worker
KB_FILES = 3


@dataclass(slots=True)
class Watched:
    """One run as its client saw it: (seq, type, status) in order, the lag of its live events (s)."""

    run_id: str
    creator: int
    events: list[tuple[int, str, str]] = field(default_factory=list)
    lags: list[float] = field(default_factory=list)
    arrivals: dict[int, float] = field(default_factory=dict)  #: seq -> when a live event arrived
    error: str | None = None
    #: the same run watched on its own worker (several workers only): its live events arrive there once
    #: committed, so the difference is the way from one worker to another
    local: Watched | None = None

    def relay_lags(self) -> list[float]:
        if self.local is None:
            return []
        local = self.local.arrivals
        return [at - local[seq] for seq, at in self.arrivals.items() if seq in local]


@dataclass(slots=True)
class Load:
    name: str
    workers: int
    seconds: float
    watched: list[Watched]
    problems: list[str]
    load_before: float
    load_after: float
    busy: float  #: the machine's CPUs busy during the load (0..1; every process, not only these)
    worker_cpu_s: float  #: CPU seconds the workers used during the load

    @property
    def runs_per_minute(self) -> float:
        return len(self.watched) / self.seconds * 60

    @property
    def lag(self) -> Latency:
        return Latency.of([lag for run in self.watched for lag in run.lags])

    @property
    def relay_lag(self) -> Latency | None:
        lags = [lag for run in self.watched for lag in run.relay_lags()]
        return Latency.of(lags) if lags else None


class Worker:
    """`rabbithole serve` in its own process with ``env``."""

    def __init__(self, env: dict[str, str], log_path: Path) -> None:

        port = free_port()
        self.url = f"http://127.0.0.1:{port}"
        self.process = start_serve(env, port, log_path, "a worker")

    def cpu_s(self) -> float:
        import psutil

        times = psutil.Process(self.process.pid).cpu_times()
        return float(times.user + times.system)

    def create_run(self) -> str:
        import httpx

        body = {"question": QUESTION, "collections": [SAMPLE_COLLECTION], "mode": "quick"}
        response = httpx.post(f"{self.url}/api/runs", json={**body, "settings": {"depth": 0}}, timeout=60)
        response.raise_for_status()
        return str(response.json()["run_id"])

    def close(self) -> None:
        stop(self.process)


def follow(url: str, run: Watched) -> Watched:
    """Read the run's events from the start until the stream ends (after done or error)."""
    import httpx

    from rabbithole.cli.sse import parse_sse

    try:
        timeout = httpx.Timeout(30, read=600)
        with httpx.stream("GET", f"{url}/api/runs/{run.run_id}/events", timeout=timeout) as response:
            response.raise_for_status()
            connected = time.time()
            for message in parse_sse(response.iter_lines()):
                received = time.time()
                data = json.loads(message.data)
                run.events.append((int(data["seq"]), str(data["type"]), str(data.get("status", ""))))
                created = datetime.fromisoformat(data["created_at"]).timestamp()
                if created >= connected:  # live, not replayed
                    run.lags.append(received - created)
                    run.arrivals[int(data["seq"])] = received
    except Exception as exc:  # reported as a problem, loudly
        run.error = f"{type(exc).__name__}: {exc}"
    return run


def check(workers: list[Worker], watched: list[Watched]) -> list[str]:
    """Problems: a client that failed, missed, repeated or reordered an event; a run executed twice."""
    problems: list[str] = []
    for n, run in enumerate(watched):
        replay = follow(workers[n % len(workers)].url, Watched(run.run_id, run.creator))
        seqs = [seq for seq, _, _ in replay.events]
        ended = bool(seqs) and replay.events[-1][1] == "done"
        if replay.error or seqs != list(range(1, len(seqs) + 1)) or not ended:
            problems.append(f"run {run.run_id}: its replay is not 1..n ending in done: {replay.events[-3:]}")
        if run.error is not None:
            problems.append(f"run {run.run_id}: its client failed: {run.error}")
        elif run.events != replay.events:
            problems.append(
                f"run {run.run_id}: its client got {len(run.events)} events, the replay {len(replay.events)}"
            )
        if run.local is not None and run.local.events != replay.events:
            problems.append(f"run {run.run_id}: its own worker's client got {len(run.local.events)} events")
        starts = sum(1 for _, kind, status in replay.events if kind == "status" and status == "running")
        if starts != 1:
            problems.append(f"run {run.run_id}: executed {starts} times")
    return problems


def measure(name: str, env: dict[str, str], count: int, runs: int, logs: Path) -> Load:
    """``runs`` quick runs at once over ``count`` workers, each watched from another worker."""
    import psutil

    with ThreadPoolExecutor(count) as pool:
        workers = list(pool.map(lambda n: Worker(env, logs / f"{name}-{n}.log"), range(count)))
    try:
        load_before = os.getloadavg()[0]
        cpu_before = psutil.cpu_times()
        workers_before = sum(worker.cpu_s() for worker in workers)
        started = time.perf_counter()
        with ThreadPoolExecutor(runs * 3) as pool:

            def submit(n: int) -> Watched:
                run = Watched(workers[n % count].create_run(), n % count)
                if count > 1:  # its own worker's client too, in a thread of its own
                    run.local = Watched(run.run_id, n % count)
                    pool.submit(follow, workers[n % count].url, run.local)
                return follow(workers[(n + 1) % count].url, run)  # another worker where there are several

            watched = list(pool.map(submit, range(runs)))
        seconds = time.perf_counter() - started
        load_after = os.getloadavg()[0]
        worker_cpu_s = sum(worker.cpu_s() for worker in workers) - workers_before
        busy = _busy(cpu_before, psutil.cpu_times())
        problems = check(workers, watched)
    finally:
        for worker in workers:
            worker.close()
    return Load(name, count, seconds, watched, problems, load_before, load_after, busy, worker_cpu_s)


def _busy(before: Any, after: Any) -> float:
    """The share of the machine's CPU time that was not idle between two ``psutil.cpu_times()``."""
    total = sum(after) - sum(before)
    idle = (after.idle + getattr(after, "iowait", 0.0)) - (before.idle + getattr(before, "iowait", 0.0))
    return 1.0 - idle / total if total > 0 else 0.0


def ingest(settings_env: dict[str, str], folder: Path) -> None:
    """Ingest ``folder`` with the settings of ``settings_env`` (a `rabbithole ingest` process)."""
    done = subprocess.run(
        [sys.executable, "-m", "rabbithole", "ingest", str(folder)],
        env=settings_env,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"ingesting {folder} failed ({done.returncode}):\n{done.stderr[-2000:]}")


def main(argv: list[str]) -> int:
    parser = base_parser(__doc__)
    parser.add_argument("--runs", type=int, default=RUNS, help="quick runs submitted at once per load")
    parser.add_argument("--latency-ms", type=int, default=LATENCY_MS, help="fake Ollama latency per call")
    args = parser.parse_args(argv)
    runs = 9 if args.quick else args.runs
    print(machine_info())

    from benchmarks.bench_research import FakeServer
    from rabbithole.devtools.chroma_server import ChromaServerProcess
    from rabbithole.devtools.postgres_cluster import PostgresCluster

    work = scratch_dir("team")
    kb = work / "kb" / SAMPLE_COLLECTION
    shutil.copytree(quick_kb(KB_FILES), kb)
    fake = FakeServer()
    chroma = ChromaServerProcess(work / "chroma", free_port(), work / "chroma.log")
    try:
        fake.set_latency(args.latency_ms)
        base = {
            **os.environ,
            "RABBITHOLE_LLM__BASE_URL": fake.url,
            "RABBITHOLE_LLM__REQUEST_TIMEOUT_S": "120",
        }
        embedded = {**base, "RABBITHOLE_STORAGE__DATA_DIR": str(work / "embedded")}
        with PostgresCluster.start() as cluster:
            chroma.start()
            vectors = chroma.vectors()
            server = {
                **base,
                "RABBITHOLE_STORAGE__DATA_DIR": str(work / "server"),
                "RABBITHOLE_DATABASE__URL": cluster.create_database(),
                "RABBITHOLE_VECTORS__URL": vectors.url,
                "RABBITHOLE_VECTORS__DATABASE": vectors.database,
            }
            ingest(embedded, kb)
            ingest(server, kb)
            loads = [
                measure("embedded-1", embedded, 1, runs, work),
                measure("server-1", server, 1, runs, work),
                measure(f"server-{WORKERS}", server, WORKERS, runs, work),
            ]
    finally:
        chroma.stop()
        fake.close()
        remove_tree(work)
    return report(loads, runs, args.latency_ms, args.quick)


def report(loads: list[Load], runs: int, latency_ms: int, quick: bool) -> int:
    embedded, one, team = loads
    print(
        f"\n{runs} quick runs (depth 0) submitted at once per load, fake Ollama at {latency_ms} ms per call, "
        "each run watched by one SSE client (on another worker than its own where there are several); "
        "research.max_running_runs 2 per worker"
    )
    rows: list[list[object]] = [
        [
            load.name,
            load.workers,
            f"{load.seconds:.1f}",
            f"{load.runs_per_minute:.1f}",
            load.lag.n,
            f"{load.lag.p50:.1f}",
            f"{load.lag.p95:.1f}",
            f"{load.lag.max:.1f}",
            f"{load.load_before:.1f} / {load.load_after:.1f}",
            f"{load.busy * 100:.0f}%",
            f"{load.worker_cpu_s / len(load.watched):.2f}",
        ]
        for load in loads
    ]
    headers = ["backend", "workers", "wall (s)", "runs/min", "live events", "lag p50", "p95", "max (ms)"]
    extra = ["load before / after", "CPUs busy", "worker CPU s/run"]
    print_table([*headers, *extra], rows, title="A team's server")
    speedup = team.runs_per_minute / one.runs_per_minute
    backend_ratio = one.runs_per_minute / embedded.runs_per_minute
    relay = team.relay_lag
    assert relay is not None  # several workers: each run is watched on its own worker too
    print(
        f"SSE across workers, from the arrival at a client of the executing worker (once committed) to the "
        f"arrival at the client of another: p50 {relay.p50:.1f} ms, p95 {relay.p95:.1f} ms, max "
        f"{relay.max:.1f} ms over {relay.n} events"
    )
    print(f"three workers against one (server backend): {speedup:.2f}x the runs per minute")
    print(f"server backend against embedded, one worker: {backend_ratio:.2f}x the runs per minute")
    problems = [problem for load in loads for problem in load.problems]
    for problem in problems:
        print(f"  PROBLEM: {problem}")
    goals = [
        Goal(
            "every client receives every event of its run once, in order; each run executed once",
            not problems,
            f"{sum(len(load.watched) for load in loads)} runs, {len(problems)} problems",
        ),
        Goal(
            f"three workers: at least {MIN_SPEEDUP}x the runs per minute of one",
            speedup >= MIN_SPEEDUP,
            f"{speedup:.2f}x ({team.runs_per_minute:.1f} against {one.runs_per_minute:.1f} runs/min; "
            f"load {team.load_before:.1f}-{team.load_after:.1f} on {os.cpu_count()} cores, "
            f"{team.busy * 100:.0f}% of them busy)",
            machine_dependent=True,
        ),
        Goal(
            f"SSE across workers: lag p95 from the commit at most {MAX_LAG_P95_MS:.0f} ms",
            relay.p95 <= MAX_LAG_P95_MS,
            f"p95 {relay.p95:.1f} ms over {relay.n} events (from created_at, the write included: "
            f"{team.lag.p95:.1f} ms)",
            machine_dependent=True,
        ),
    ]
    passed = print_goals(goals, indicative=f"--quick, {runs} runs" if quick else None)
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
