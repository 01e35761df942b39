"""The cost of accounts (issue 29): the same data served by two `rabbithole serve` processes in turn, one
with server.auth none and one with server.auth accounts (a personal token per request, its account's
memberships read and checked), over the 2 smallest PDFs of kb/sample ingested once into a scratch folder.

    python -m benchmarks.bench_accounts [--quick] [--requests N] [--sign-ins N]

1. GET /api/runs/{id} (a run of the account, on its collection) and GET /api/search (hybrid, the same
   query) --requests times each, one after another, on each server: p95 with and without accounts.
   Goals (machine-dependent): the p95 with accounts at most 1.5 x the p95 without plus 10 ms.
2. Sign-in timing, accounts server: --sign-ins attempts with a known name and a wrong password and as many
   with an unknown name, interleaved (each pair in a random order). An unknown name is checked against a
   dummy Argon2id hash (made at the server's start), so both take one hash's time; the two distributions
   are compared (medians, p95, and the fraction of pairs in which the unknown name's attempt was the
   slower: 0.5 when they cannot be told apart). Goal
   (machine-dependent): the medians within 25 % of each other. Rate limits are raised for the measurement.

--quick: fewer requests and sign-ins; the goals are indicative then.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

from benchmarks.common import (
    SAMPLE_COLLECTION,
    Goal,
    Latency,
    base_parser,
    bench_settings,
    machine_info,
    print_goals,
    print_table,
    quick_kb,
    remove_tree,
    scratch_dir,
)
from benchmarks.serve_process import free_port, start_serve, stop

QUERY = "Aufgaben des Bundesamtes"
PASSWORD = "a long benchmark password"
MAX_RATIO = 1.5  #: goal: p95 with accounts <= MAX_RATIO x p95 without + MAX_EXTRA_MS
MAX_EXTRA_MS = 10.0
MAX_SIGN_IN_SKEW = 0.25  #: goal: |median unknown / median known - 1| <= this


def prepare(data_dir: Path) -> tuple[str, str]:
    """Ingest the collection, add an account that is its owner with a token, and a run of that account;
    (run id, token)."""
    from rabbithole.services import Services

    settings = bench_settings(data_dir)
    with Services(settings) as services:
        report = services.ingestion_pipeline().ingest(quick_kb(2))
        if report.failed:
            raise RuntimeError(f"ingestion failed: {report.failed}")
        user = services.accounts.add_user("alice", PASSWORD)
        services.accounts.memberships.set(SAMPLE_COLLECTION, user.id, "owner")
        _, token = services.accounts.create_token("alice", "bench")
        record = services.runs.create(
            "Welche Aufgaben hat das Bundesamt?",
            [SAMPLE_COLLECTION],
            "quick",
            status="cancelled",
            created_by=user.id,
        )
    return record.id, token


def timed(call: Callable[[], int], repeat: int) -> list[float]:
    seconds = []
    for _ in range(repeat):
        started = time.perf_counter()
        status = call()
        seconds.append(time.perf_counter() - started)
        if status != 200:
            raise RuntimeError(f"a request answered {status}")
    return seconds


def serve(data_dir: Path, auth: str, log: Path) -> tuple[object, str]:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "RABBITHOLE_STORAGE__DATA_DIR": str(data_dir),
        "RABBITHOLE_SERVER__AUTH": auth,
        "RABBITHOLE_ACCOUNTS__MAX_FAILURES_PER_ACCOUNT": "1000",
        "RABBITHOLE_ACCOUNTS__MAX_FAILURES_PER_ADDRESS": "100000",
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "ANONYMIZED_TELEMETRY": "False",
    }
    if "PYTHONPATH" in os.environ:
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    port = free_port()
    return start_serve(env, port, log, f"the server (auth {auth})"), f"http://127.0.0.1:{port}"


def measure(url: str, run_id: str, token: str | None, requests: int) -> dict[str, Latency]:
    import httpx

    headers = {"Authorization": f"Bearer {token}"} if token else {}
    params = {"q": QUERY, "collection": SAMPLE_COLLECTION}
    with httpx.Client(base_url=url, headers=headers, timeout=60) as client:
        for _ in range(5):  # warm: connections, caches
            client.get(f"/api/runs/{run_id}")
            client.get("/api/search", params=params)
        run = timed(lambda: client.get(f"/api/runs/{run_id}").status_code, requests)
        search = timed(lambda: client.get("/api/search", params=params).status_code, requests)
    return {"GET /api/runs/{id}": Latency.of(run), "GET /api/search": Latency.of(search)}


def sign_in_timing(url: str, attempts: int) -> tuple[list[float], list[float]]:
    """(known name with a wrong password, unknown name) sign-in durations, interleaved in a random order."""
    import random

    import httpx

    known: list[float] = []
    unknown: list[float] = []
    with httpx.Client(base_url=url, timeout=60) as client:
        for attempt in range(attempts):
            pair = [("alice", known), (f"nobody{attempt}", unknown)]
            random.shuffle(pair)  # neither kind always second (the first of a pair finds a cold cache)
            for name, into in pair:
                started = time.perf_counter()
                status = client.post(
                    "/api/session", json={"name": name, "password": "wrong password"}
                ).status_code
                into.append(time.perf_counter() - started)
                if status != 401:
                    raise RuntimeError(f"a wrong sign-in answered {status}")
    return known, unknown


def main(argv: list[str]) -> int:
    parser = base_parser(__doc__)
    parser.add_argument("--requests", type=int, default=None, help="requests per route and server")
    parser.add_argument("--sign-ins", type=int, default=None, help="sign-ins per kind")
    args = parser.parse_args(argv)
    requests = args.requests or (60 if args.quick else 300)
    sign_ins = args.sign_ins or (6 if args.quick else 30)
    print(machine_info())
    root = scratch_dir("accounts")
    try:
        run_id, token = prepare(root / "data")
        results: dict[str, dict[str, Latency]] = {}
        for auth in ("none", "accounts"):
            process, url = serve(root / "data", auth, root / f"serve-{auth}.log")
            try:
                results[auth] = measure(url, run_id, token if auth == "accounts" else None, requests)
                if auth == "accounts":
                    known, unknown = sign_in_timing(url, sign_ins)
            finally:
                stop(process)  # type: ignore[arg-type]
    finally:
        remove_tree(root)
    rows = []
    goals = []
    for route in ("GET /api/runs/{id}", "GET /api/search"):
        without, with_ = results["none"][route], results["accounts"][route]
        rows.append([route, without.p50, without.p95, with_.p50, with_.p95])
        limit = MAX_RATIO * without.p95 + MAX_EXTRA_MS
        goals.append(
            Goal(
                f"{route} p95 with accounts <= {MAX_RATIO:g} x without + {MAX_EXTRA_MS:g} ms",
                with_.p95 <= limit,
                f"{with_.p95:.1f} ms with, {without.p95:.1f} ms without (limit {limit:.1f} ms)",
                machine_dependent=True,
            )
        )
    print_table(
        ["route (ms)", "p50 none", "p95 none", "p50 accounts", "p95 accounts"], rows, "permission check cost"
    )
    known_l, unknown_l = Latency.of(known), Latency.of(unknown)
    slower = sum(u > k for u, k in zip(unknown, known, strict=True)) / len(known)
    print_table(
        ["sign-in (ms)", "n", "p50", "p95", "mean"],
        [
            ["known name, wrong password", known_l.n, known_l.p50, known_l.p95, known_l.mean],
            ["unknown name", unknown_l.n, unknown_l.p50, unknown_l.p95, unknown_l.mean],
        ],
        f"sign-in timing (the unknown name's attempt was the slower in {slower:.0%} of pairs)",
    )
    skew = statistics.median(unknown) / statistics.median(known) - 1
    goals.append(
        Goal(
            f"sign-in medians of unknown and known names within {MAX_SIGN_IN_SKEW:.0%}",
            abs(skew) <= MAX_SIGN_IN_SKEW,
            f"unknown {unknown_l.p50:.0f} ms, known {known_l.p50:.0f} ms ({skew:+.0%})",
            machine_dependent=True,
        )
    )
    ok = print_goals(goals, "--quick: few requests" if args.quick else None)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
