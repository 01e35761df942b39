"""Run every benchmark in turn (`make bench` / `python -m benchmarks [--quick]`)."""

from __future__ import annotations

import importlib
import sys
import time

MODULES = (
    "benchmarks.bench_components",
    "benchmarks.bench_grammar",
    "benchmarks.bench_reference_parsing",
    "benchmarks.bench_ingestion",
    "benchmarks.bench_ingestion_cores",
    "benchmarks.bench_search",
    "benchmarks.bench_quality",
    "benchmarks.bench_references",
    "benchmarks.bench_research",
    "benchmarks.bench_web",
    "benchmarks.bench_api",
    "benchmarks.bench_report",
)


def main(argv: list[str]) -> int:
    failures = 0
    for name in MODULES:
        print(f"\n=== {name} ===", flush=True)
        started = time.perf_counter()
        module = importlib.import_module(name)
        result = module.main(argv)
        failures += 1 if isinstance(result, int) and result != 0 else 0
        print(f"({name} took {time.perf_counter() - started:.1f} s)", flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
