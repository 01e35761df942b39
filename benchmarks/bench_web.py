"""The web app: what a browser downloads, and how soon a run's progress shows.

    python -m benchmarks.bench_web          (needs the built app, frontend/dist: `make web`)

- Bundle size: the gzip size (level 9) of every JavaScript, CSS and HTML file of the build, the pdf.js
  worker excluded (it loads only with the PDF viewer, in its own thread); goal: at most 300 kB. Beside it,
  the raw size, the part index.html loads at once (its own scripts and styles), and the worker on its own.
- SSE event -> DOM update: frontend/e2e/latency.measure.ts drives Debian's Chromium against the real server
  and the fake Ollama (the e2e stack) through a quick run, and stamps with performance.now() each event the
  page's EventSource delivers on the run's stream and each DOM mutation. The latency of an event is the
  time to the first DOM mutation after it when that comes before the next event (the change is the event's
  own); beside it an upper bound pairing every event with the first change after it within 1 s. Goal: p95
  under 100 ms in the app. Baseline, same run, same browser: a page without React whose EventSource handler
  appends the event to the DOM itself. Beside it, where each page's main thread spent its time (Chromium's
  counters: scripts, style, layout, all tasks) and its long tasks.
- Served compressed: frontend/e2e/flow.measure.ts opens the app cold at its New run page; the bytes the
  browser transferred for the app's own files (resource timing) and the Content-Encoding of each. Goal:
  every JS/CSS/HTML file arrives gzip- or brotli-encoded. Beside it, what the server spends per request on
  the largest script: the build's precompressed copy against compressing each answer (GZipMiddleware).
- Start research -> first visible progress (a phase shown in the run page's timeline), -> the first
  streamed report text (`[data-testid="draft-text"]`), -> the finished report, in Chromium on the fake
  Ollama at 300 ms per call (a quick run started from the New run page). Goal: the streamed text shows
  before the finished report; "not seen" when the page never showed it (a MISS, never a made-up figure).
"""

from __future__ import annotations

import gzip
import json
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.common import Goal, Latency, base_parser, print_goals, print_table
from benchmarks.web_flow import Flow, read_flow, shown
from benchmarks.web_latency import applied_latencies, slowest_first_changes
from benchmarks.web_serving import serving_cost

ROOT = Path(__file__).resolve().parents[1]
FRONTEND = ROOT / "frontend"
DIST = FRONTEND / "dist"
WORKER = re.compile(r"pdf\.worker", re.IGNORECASE)
COUNTED = (".js", ".mjs", ".css", ".html")
#: An event whose first DOM change comes later than this shows nothing.
PAIRING_WINDOW_MS = 1000.0
BUNDLE_GOAL_KB = 300.0
LATENCY_GOAL_MS = 100.0


@dataclass(frozen=True)
class BundleSize:
    gzip_kb: float
    raw_kb: float
    initial_gzip_kb: float
    worker_gzip_kb: float
    files: int


def _gzip_kb(path: Path) -> float:
    return len(gzip.compress(path.read_bytes(), compresslevel=9)) / 1000


def bundle_size(dist: Path = DIST) -> BundleSize:
    """The build's sizes (kB = 1000 bytes)."""
    files = [p for p in dist.rglob("*") if p.is_file() and p.suffix in COUNTED]
    worker = [p for p in files if WORKER.search(p.name)]
    counted = [p for p in files if p not in worker]
    index = (dist / "index.html").read_text(encoding="utf-8")
    loaded = {dist / "index.html"} | {
        (dist / ref).resolve() for ref in re.findall(r'(?:src|href)="\.?/?([^":]+\.(?:js|css))"', index)
    }
    return BundleSize(
        gzip_kb=sum(_gzip_kb(p) for p in counted),
        raw_kb=sum(p.stat().st_size for p in counted) / 1000,
        initial_gzip_kb=sum(_gzip_kb(p) for p in counted if p.resolve() in loaded),
        worker_gzip_kb=sum(_gzip_kb(p) for p in worker),
        files=len(counted),
    )


@dataclass(frozen=True)
class Pairing:
    """Event -> DOM latencies (ms). ``own``: events whose first DOM change came before the next event
    arrived (the change is theirs); ``upper``: every event paired with the first change after it within
    PAIRING_WINDOW_MS (an event that shows nothing, or whose render is batched with the next one's, gets a
    later change: an upper bound); ``unseen``: events with no change within the window."""

    own: list[float]
    upper: list[float]
    unseen: int


def pair_latencies(events: list[float], mutations: list[float]) -> Pairing:
    ordered_events = sorted(events)
    ordered = sorted(mutations)
    own: list[float] = []
    upper: list[float] = []
    unseen = 0
    index = 0
    for position, event in enumerate(ordered_events):
        while index < len(ordered) and ordered[index] < event:
            index += 1
        if index >= len(ordered) or ordered[index] - event > PAIRING_WINDOW_MS:
            unseen += 1
            continue
        upper.append(ordered[index] - event)
        following = ordered_events[position + 1] if position + 1 < len(ordered_events) else None
        if following is None or ordered[index] <= following:
            own.append(ordered[index] - event)
    return Pairing(own=own, upper=upper, unseen=unseen)


@dataclass(frozen=True)
class BrowserMeasurements:
    """What the *.measure.ts files wrote: the pages' SSE/DOM stamps and main-thread counters, the flow."""

    latency: dict[str, dict[str, Any]]
    flow: Flow


def measure_in_browser() -> BrowserMeasurements:
    """Runs frontend/e2e/*.measure.ts (one stack for both files)."""
    with tempfile.TemporaryDirectory(prefix="rabbithole-web-bench-") as scratch:
        done = subprocess.run(
            ["npx", "vitest", "run", "--config", "e2e/measure.config.ts"],
            cwd=FRONTEND,
            env={**os.environ, "RABBITHOLE_WEB_BENCH_DIR": scratch},
            capture_output=True,
            text=True,
            timeout=900,
        )
        latency, flow = Path(scratch) / "latency.json", Path(scratch) / "flow.json"
        if done.returncode != 0 or not latency.exists() or not flow.exists():
            raise RuntimeError(
                f"the browser measurement failed:\n{done.stdout[-4000:]}\n{done.stderr[-4000:]}"
            )
        return BrowserMeasurements(
            latency=json.loads(latency.read_text(encoding="utf-8")),
            flow=read_flow(json.loads(flow.read_text(encoding="utf-8"))),
        )


def _latency(milliseconds: list[float]) -> Latency:
    return Latency.of([ms / 1000 for ms in milliseconds])


def _or_blank(ms: float | None) -> float | str:
    return "" if ms is None else ms


def _ms(latency: Latency) -> list[float]:
    return [latency.p50, latency.p95, latency.max]


def _print_bundle(size: BundleSize) -> None:
    print_table(
        ["build (kB)", "gzip", "raw"],
        [
            [f"all {size.files} JS/CSS/HTML files, pdf.js worker excluded", size.gzip_kb, size.raw_kb],
            ["loaded at once by index.html", size.initial_gzip_kb, ""],
            ["pdf.js worker (with the PDF viewer)", size.worker_gzip_kb, ""],
        ],
        title="web app bundle",
    )


def _print_serving(flow: Flow) -> None:
    load = flow.first_load
    print_table(
        ["file", "encoding", "transferred kB", "decoded kB"],
        [
            *[[f.path, f.encoding or "none", f.transferred / 1000, f.decoded / 1000] for f in load.files],
            ["all of the first load", "", load.transferred_kb, load.decoded_kb],
        ],
        title="first load of the app (Chromium, cold, the New run page; resource timing)",
    )
    cost = serving_cost(DIST)
    print_table(
        ["gzip-encoded answer of " + cost.file, "ms per request (median of 30)", "bytes sent"],
        [
            ["the build's precompressed copy (served)", cost.precompressed_ms, cost.precompressed_bytes],
            ["compressed per request (GZipMiddleware)", cost.per_request_ms, cost.per_request_bytes],
        ],
        title="server cost per request (in-process)",
    )


def _print_flow(flow: Flow) -> None:
    print_table(
        ["from the click on 'Start research' to", "time"],
        [
            ["  the run page shown (the server created the run)", shown(flow.to_run_page_ms)],
            ["  the first phase event on its stream", shown(flow.to_first_phase_event_ms)],
            ["the first phase shown (first visible progress)", shown(flow.to_progress_ms)],
            ["the first streamed report text", shown(flow.to_draft_text_ms)],
            ["the finished report", shown(flow.to_report_ms)],
        ],
        title="a quick run, fake Ollama at 300 ms per call (Chromium)",
    )


def _print_main_thread(latency: dict[str, dict[str, Any]]) -> None:
    rows = []
    for name, page in (("the app (React)", latency["app"]), ("baseline", latency["raw"])):
        thread: dict[str, float] = page["mainThread"]
        long_tasks: list[list[float]] = page["longTasks"]
        rows.append(
            [
                name,
                thread["taskMs"],
                thread["scriptMs"],
                thread["styleMs"],
                thread["layoutMs"],
                len(long_tasks),
                sum(duration for _, duration in long_tasks),
                max((duration for _, duration in long_tasks), default=0.0),
            ]
        )
    print_table(
        ["page", "tasks ms", "script ms", "style ms", "layout ms", "long tasks", "their ms", "longest ms"],
        rows,
        title="main thread during the run (Chromium's counters, page load included)",
    )


def _draft_goal(flow: Flow) -> Goal:
    draft, report = flow.to_draft_text_ms, flow.to_report_ms
    if draft is None:
        detail = 'not seen: no [data-testid="draft-text"] with text on the page before the run ended'
    else:
        detail = f"first streamed text after {shown(draft)}, the finished report after {shown(report)}"
    return Goal(
        "streamed report text before the finished report",
        draft is not None and (report is None or draft < report),
        detail,
        machine_dependent=True,
    )


def main(argv: list[str] | None = None) -> int:
    base_parser(__doc__).parse_known_args(argv)
    if not (DIST / "index.html").is_file():
        print("frontend/dist is missing: build the web app first (`make web`)", file=sys.stderr)
        return 1
    size = bundle_size()
    _print_bundle(size)
    measured = measure_in_browser()
    _print_serving(measured.flow)
    _print_flow(measured.flow)
    timings = measured.latency
    app = pair_latencies(timings["app"]["events"], timings["app"]["mutations"])
    raw = pair_latencies(timings["raw"]["events"], timings["raw"]["mutations"])
    applied = applied_latencies(timings["app"]["events"], timings["app"]["seqs"], timings["app"]["applied"])
    app_applied, app_own, raw_own = _latency(applied.latencies), _latency(app.own), _latency(raw.own)
    app_upper, raw_upper = _latency(app.upper), _latency(raw.upper)
    print_table(
        ["page", "events", "counted", "p50 ms", "p95 ms", "max ms", "upper p95 ms", "not seen"],
        [
            [
                "the app: event in the DOM (its commit mark)",
                len(applied.latencies) + applied.unapplied,
                len(applied.latencies),
                *_ms(app_applied),
                "",
                applied.unapplied,
            ],
            [
                "the app: first DOM change (own change)",
                len(app.upper) + app.unseen,
                len(app.own),
                *_ms(app_own),
                app_upper.p95,
                app.unseen,
            ],
            [
                "baseline: EventSource handler writes the DOM",
                len(raw.upper) + raw.unseen,
                len(raw.own),
                *_ms(raw_own),
                raw_upper.p95,
                raw.unseen,
            ],
        ],
        title="SSE event -> DOM update (Chromium, one quick run on the fake Ollama)",
    )
    print_table(
        ["event", "first DOM change ms", "in the DOM ms", "what changed first"],
        [
            [
                slow.type,
                slow.first_change_ms,
                slow.applied_ms if slow.applied_ms is not None else "",
                slow.changed,
            ]
            for slow in slowest_first_changes(timings["app"])
        ],
        title="the app's slowest first DOM changes (an event that shows nothing is charged the next change)",
    )
    _print_main_thread(timings)
    uncompressed = measured.flow.first_load.uncompressed_text
    compression = "every text file compressed"
    if uncompressed:
        compression = f"not compressed: {', '.join(uncompressed)}"
    goals = [
        Goal(
            "bundle size",
            size.gzip_kb <= BUNDLE_GOAL_KB,
            f"{size.gzip_kb:.1f} kB gzip (goal <= {BUNDLE_GOAL_KB:.0f}), pdf.js worker excluded",
        ),
        Goal(
            "served compressed",
            not uncompressed and bool(measured.flow.first_load.files),
            f"first load {measured.flow.first_load.transferred_kb:.1f} kB transferred "
            f"({measured.flow.first_load.decoded_kb:.1f} kB decoded); " + compression,
        ),
        Goal(
            "SSE events change the DOM",
            bool(app.own),
            f"{len(app.own)} events with their own DOM change, {app.unseen} never seen",
        ),
        Goal(
            "SSE event to DOM",
            bool(applied.latencies) and app_applied.p95 < LATENCY_GOAL_MS and applied.unapplied == 0,
            f"p95 {app_applied.p95:.1f} ms over all {len(applied.latencies)} events (the app's commit marks, "
            f"{applied.unapplied} never applied; goal < {LATENCY_GOAL_MS:.0f}); first DOM change p95 "
            f"{app_own.p95:.1f} ms over {len(app.own)} events with their own change (upper bound "
            f"{app_upper.p95:.1f} ms); baseline p95 {raw_own.p95:.1f} ms",
            machine_dependent=True,
        ),
        _draft_goal(measured.flow),
    ]
    return 0 if print_goals(goals) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
