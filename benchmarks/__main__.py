"""Run every benchmark in turn (`make bench` / `python -m benchmarks [--quick]`).

Exit status 1 when a benchmark crashed or one of its correctness goals failed; a machine-dependent goal
missed on this machine's load (benchmarks/common.py, ``Goal.machine_dependent``) is reported, not a failure.
"""

from __future__ import annotations

import importlib
import sys
import time
import traceback
from collections.abc import Sequence

MODULES = (
    "benchmarks.bench_components",
    "benchmarks.bench_grammar",
    "benchmarks.bench_reference_parsing",
    "benchmarks.bench_salvage",
    "benchmarks.bench_ingestion",
    "benchmarks.bench_ingestion_cores",
    "benchmarks.bench_ocr",
    "benchmarks.bench_search",
    "benchmarks.bench_quality",
    "benchmarks.bench_support",
    "benchmarks.bench_references",
    "benchmarks.bench_formats",
    "benchmarks.bench_research",
    "benchmarks.bench_pinned",
    "benchmarks.bench_web",
    "benchmarks.bench_api",
    "benchmarks.bench_agent_protocol",
    "benchmarks.bench_accounts",
    "benchmarks.bench_team",
    "benchmarks.bench_report",
)


def run_one(name: str, argv: list[str]) -> int:
    """One benchmark's exit status: what its ``main`` returned (or exited with), 1 when it crashed."""
    try:
        result = importlib.import_module(name).main(argv)
    except SystemExit as exc:
        result = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        if not isinstance(exc.code, int | None):
            print(exc.code, file=sys.stderr)
    except Exception:  # a crashed benchmark fails the run, and the others still run
        traceback.print_exc()
        return 1
    return result if isinstance(result, int) else 0


def main(argv: list[str], modules: Sequence[str] = MODULES) -> int:
    failed: list[str] = []
    for name in modules:
        print(f"\n=== {name} ===", flush=True)
        started = time.perf_counter()
        status = run_one(name, argv)
        if status != 0:
            failed.append(f"{name} (exit {status})")
        print(f"({name} took {time.perf_counter() - started:.1f} s)", flush=True)
    done = "every benchmark ran and met its correctness goals"
    print(f"\nfailed: {', '.join(failed)}" if failed else f"\n{done}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
