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
  appends the event to the DOM itself.
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

from benchmarks.common import Goal, Latency, base_parser, print_goals, print_table

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


def measure_latency() -> dict[str, dict[str, list[float]]]:
    """Runs frontend/e2e/latency.measure.ts; the app's and the baseline page's timings."""
    with tempfile.TemporaryDirectory(prefix="rabbithole-web-bench-") as scratch:
        out = Path(scratch) / "latency.json"
        done = subprocess.run(
            ["npx", "vitest", "run", "--config", "e2e/measure.config.ts"],
            cwd=FRONTEND,
            env={**os.environ, "RABBITHOLE_WEB_BENCH_OUT": str(out)},
            capture_output=True,
            text=True,
            timeout=600,
        )
        if done.returncode != 0 or not out.exists():
            raise RuntimeError(
                f"the browser measurement failed:\n{done.stdout[-4000:]}\n{done.stderr[-4000:]}"
            )
        result: dict[str, dict[str, list[float]]] = json.loads(out.read_text(encoding="utf-8"))
        return result


def _latency(milliseconds: list[float]) -> Latency:
    return Latency.of([ms / 1000 for ms in milliseconds])


def _ms(latency: Latency) -> list[float]:
    return [latency.p50, latency.p95, latency.max]


def main(argv: list[str] | None = None) -> int:
    base_parser(__doc__).parse_known_args(argv)
    if not (DIST / "index.html").is_file():
        print("frontend/dist is missing: build the web app first (`make web`)", file=sys.stderr)
        return 1
    size = bundle_size()
    print_table(
        ["build (kB)", "gzip", "raw"],
        [
            [f"all {size.files} JS/CSS/HTML files, pdf.js worker excluded", size.gzip_kb, size.raw_kb],
            ["loaded at once by index.html", size.initial_gzip_kb, ""],
            ["pdf.js worker (with the PDF viewer)", size.worker_gzip_kb, ""],
        ],
        title="web app bundle",
    )
    timings = measure_latency()
    app = pair_latencies(timings["app"]["events"], timings["app"]["mutations"])
    raw = pair_latencies(timings["raw"]["events"], timings["raw"]["mutations"])
    app_own, raw_own = _latency(app.own), _latency(raw.own)
    app_upper, raw_upper = _latency(app.upper), _latency(raw.upper)
    print_table(
        ["page", "events", "own change", "p50 ms", "p95 ms", "max ms", "upper p95 ms", "no change"],
        [
            [
                "the app (React)",
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
    goals = [
        Goal(
            "bundle size",
            size.gzip_kb <= BUNDLE_GOAL_KB,
            f"{size.gzip_kb:.1f} kB gzip (goal <= {BUNDLE_GOAL_KB:.0f}), pdf.js worker excluded",
        ),
        Goal(
            "SSE events change the DOM",
            bool(app.own),
            f"{len(app.own)} events with their own DOM change, {app.unseen} never seen",
        ),
        Goal(
            "SSE event to DOM",
            bool(app.own) and app_own.p95 < LATENCY_GOAL_MS,
            f"p95 {app_own.p95:.1f} ms over {len(app.own)} events with their own DOM change "
            f"(goal < {LATENCY_GOAL_MS:.0f}; upper bound over all {app_upper.p95:.1f} ms); "
            f"baseline p95 {raw_own.p95:.1f} ms",
            machine_dependent=True,
        ),
    ]
    return 0 if print_goals(goals) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
