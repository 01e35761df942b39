"""A one-shot `rabbithole search` as a user runs it: a new process per query, loading included.

Each run is a subprocess (``rabbithole search QUESTION -c sample --json``, interpreter start-up included);
its wall time and its own peak RSS (``os.wait4``'s ``ru_maxrss``) are measured. Beside it, alternating with
it, ``rabbithole --help``: the start-up every command pays (interpreter, typer, the CLI's imports), the
baseline from the same run.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from benchmarks.common import ROOT


@dataclass(frozen=True, slots=True)
class ProcessFigures:
    label: str
    wall_s: list[float]
    peak_rss_mb: list[float]

    @property
    def median_s(self) -> float:
        return statistics.median(self.wall_s)

    @property
    def peak_mb(self) -> float:
        return max(self.peak_rss_mb)


def _command() -> list[str]:
    script = Path(sys.executable).parent / "rabbithole"
    return [str(script)] if script.exists() else [sys.executable, "-m", "rabbithole"]


def _run(arguments: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall seconds and peak RSS (MB) of one CLI process."""
    with tempfile.TemporaryFile() as errors:
        started = time.perf_counter()
        process = subprocess.Popen(
            [*_command(), *arguments], cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=errors
        )
        _, status, usage = os.wait4(process.pid, 0)
        seconds = time.perf_counter() - started
        process.returncode = os.waitstatus_to_exitcode(status)
        if process.returncode != 0:
            errors.seek(0)
            message = errors.read().decode("utf-8", "replace")
            raise RuntimeError(f"rabbithole {arguments[0]} failed (exit {process.returncode}): {message}")
    return seconds, usage.ru_maxrss / 1024  # Linux: KiB


def one_shot_search(data_dir: Path, collection: str, question: str, repeat: int) -> list[ProcessFigures]:
    """``repeat`` one-shot searches and ``rabbithole --help`` runs, alternating."""
    env = {**os.environ, "RABBITHOLE_STORAGE__DATA_DIR": str(data_dir)}
    runs = {
        "one-shot `rabbithole search` (query embedding included)": [
            "search",
            question,
            "-c",
            collection,
            "--json",
        ],
        "baseline: `rabbithole --help`": ["--help"],
    }
    figures: dict[str, tuple[list[float], list[float]]] = {label: ([], []) for label in runs}
    _run(runs["baseline: `rabbithole --help`"], env)  # warm the file cache once
    for _ in range(repeat):
        for label, arguments in runs.items():
            seconds, peak = _run(arguments, env)
            figures[label][0].append(seconds)
            figures[label][1].append(peak)
    return [ProcessFigures(label, wall, rss) for label, (wall, rss) in figures.items()]
