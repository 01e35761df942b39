"""A one-shot `rabbithole search` as a user runs it: a new process per query, loading included.

Each run is a subprocess (``rabbithole search QUESTION -c sample --json``, run as ``python -m rabbithole``
runs it, interpreter start-up included); its wall time and its own peak RSS (VmHWM, read as it exits) are
measured. Beside it, alternating with it, ``rabbithole --help``: the start-up every command pays
(interpreter, typer, the CLI's imports), the baseline from the same run.
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


#: runs the CLI as `python -m rabbithole` does and, at exit, writes the process's own peak RSS (VmHWM of
#: /proc/self/status: ``ru_maxrss`` of a child also counts the parent's size when it was forked)
_WRAPPER = (
    "import atexit, runpy, sys\n"
    "out = sys.argv.pop(1)\n"
    "def peak():\n"
    "    lines = open('/proc/self/status').read().splitlines()\n"
    "    kb = next(line.split()[1] for line in lines if line.startswith('VmHWM:'))\n"
    "    open(out, 'w').write(kb)\n"
    "atexit.register(peak)\n"
    "sys.argv[0] = 'rabbithole'\n"
    "runpy.run_module('rabbithole', run_name='__main__', alter_sys=True)\n"
)


def _run(arguments: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall seconds and peak RSS (MB) of one CLI process."""
    with tempfile.TemporaryDirectory() as scratch:
        peak_file = Path(scratch) / "peak"
        errors_file = Path(scratch) / "errors"
        with errors_file.open("wb") as errors:
            started = time.perf_counter()
            completed = subprocess.run(
                [sys.executable, "-c", _WRAPPER, str(peak_file), *arguments],
                cwd=ROOT,
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=errors,
                check=False,
            )
            seconds = time.perf_counter() - started
        if completed.returncode != 0:
            message = errors_file.read_text(encoding="utf-8", errors="replace")
            raise RuntimeError(f"rabbithole {arguments[0]} failed (exit {completed.returncode}): {message}")
        return seconds, int(peak_file.read_text()) / 1024  # kB


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
