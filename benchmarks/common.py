"""Helpers shared by the benchmarks: timing, percentiles, peak memory, tables, goals and scratch data.

Benchmark data lives under ``bench-data/`` in the repository root (git-ignored; ``make clean`` removes it)
or under ``$RABBITHOLE_BENCH_DIR``:

- ``bench-data/sample-<fingerprint>/``: a Rabbithole data dir with ``kb/sample`` ingested (collection
  "sample"). Ingestion is incremental, so later runs reuse it and only re-check the files' hashes;
  bench_search and bench_quality share it, bench_ingestion hands its first run over to it.
- ``bench-data/synth-<n>-<fingerprint>/``: the generated collection of bench_search, reused while its
  fingerprint (size, generator version, vocabulary, library versions) matches.
- ``bench-data/scratch/``: fresh data dirs of single runs, removed afterwards.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

# Nothing may reach a model hub or phone home (the Makefile sets these too).
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")

ROOT = Path(__file__).resolve().parents[1]
KB_DIR = ROOT / "kb"
SAMPLE_DIR = KB_DIR / "sample"
SAMPLE_COLLECTION = "sample"
DATA_DIR = Path(__file__).resolve().parent / "data"
RETRIEVAL_DEV = DATA_DIR / "retrieval_dev.yaml"

#: bump when the layout of the shared benchmark data dirs changes (they are rebuilt)
BENCH_DATA_VERSION = "1"


# --- paths and scratch dirs ---------------------------------------------------------------------------


def bench_root() -> Path:
    """Where benchmark data lives: ``$RABBITHOLE_BENCH_DIR`` or ``<repo>/bench-data``."""
    configured = os.environ.get("RABBITHOLE_BENCH_DIR", "").strip()
    root = Path(configured).expanduser() if configured else ROOT / "bench-data"
    root.mkdir(parents=True, exist_ok=True)
    return root


def scratch_dir(prefix: str) -> Path:
    """A fresh, empty folder under ``bench-data/scratch/`` (remove it with :func:`remove_tree`)."""
    path = bench_root() / "scratch" / f"{prefix}-{os.getpid()}-{uuid.uuid4().hex[:8]}"
    path.mkdir(parents=True)
    return path


def remove_tree(path: Path) -> None:
    shutil.rmtree(path, ignore_errors=True)


def fingerprint(*parts: object) -> str:
    """A short, stable digest of JSON-able parts (used to name reusable data dirs)."""
    basis = json.dumps([BENCH_DATA_VERSION, *parts], sort_keys=True, default=str)
    return hashlib.sha1(basis.encode("utf-8")).hexdigest()[:12]


def files_digest(paths: Sequence[Path]) -> str:
    """Digest over names, sizes and modification times (cheap; a changed file changes it)."""
    entries = [(p.name, p.stat().st_size, int(p.stat().st_mtime)) for p in sorted(paths)]
    return fingerprint(entries)


def sample_pdfs(kb: Path = SAMPLE_DIR) -> list[Path]:
    return sorted(p for p in kb.glob("*.pdf") if p.is_file())


def quick_kb(count: int = 8) -> Path:
    """A small collection folder for --quick runs: the ``count`` smallest PDFs of kb/sample, copied
    (once) into ``bench-data/kb-quick-<n>/sample/``."""
    pdfs = sorted(sample_pdfs(), key=lambda p: (p.stat().st_size, p.name))[:count]
    folder = bench_root() / f"kb-quick-{count}" / SAMPLE_COLLECTION
    wanted = {p.name for p in pdfs}
    if folder.is_dir() and {p.name for p in folder.glob("*.pdf")} == wanted:
        return folder
    remove_tree(folder)
    folder.mkdir(parents=True)
    for pdf in pdfs:
        shutil.copy2(pdf, folder / pdf.name)
    return folder


# --- timing and statistics ----------------------------------------------------------------------------


@dataclass(slots=True)
class Stopwatch:
    seconds: float = 0.0


@contextmanager
def stopwatch() -> Iterator[Stopwatch]:
    """``with stopwatch() as t: ...`` then ``t.seconds``."""
    watch = Stopwatch()
    started = time.perf_counter()
    try:
        yield watch
    finally:
        watch.seconds = time.perf_counter() - started


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile (0..100), linear interpolation between closest ranks (numpy's default)."""
    if not values:
        return math.nan
    ordered = sorted(values)
    position = (len(ordered) - 1) * q / 100.0
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def median(values: Sequence[float]) -> float:
    return statistics.median(values) if values else math.nan


@dataclass(frozen=True, slots=True)
class Latency:
    """Latency figures in milliseconds."""

    n: int
    p50: float
    p95: float
    mean: float
    max: float

    @classmethod
    def of(cls, seconds: Sequence[float]) -> Latency:
        ms = [s * 1000.0 for s in seconds]
        return cls(
            n=len(ms),
            p50=percentile(ms, 50),
            p95=percentile(ms, 95),
            mean=statistics.fmean(ms) if ms else math.nan,
            max=max(ms) if ms else math.nan,
        )


def time_calls(call: Callable[[], object], repeat: int) -> list[float]:
    """Seconds per call, ``repeat`` calls."""
    out = []
    for _ in range(repeat):
        started = time.perf_counter()
        call()
        out.append(time.perf_counter() - started)
    return out


# --- memory -------------------------------------------------------------------------------------------


def peak_rss_mb() -> float:
    """This process's peak resident set size (high-water mark) in MB.

    ``resource.getrusage`` where available (Linux: KiB, macOS: bytes); else the peak working set psutil
    reports on Windows, else the current RSS.
    """
    try:
        import resource

        return _maxrss_mb(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
    except ImportError:  # pragma: no cover - Windows
        import psutil

        info = psutil.Process().memory_info()
        return float(getattr(info, "peak_wset", info.rss)) / (1024 * 1024)


def cpu_seconds() -> float:
    """User + system CPU time of this process so far, and of its child processes that have ended (an
    ingestion's embedding process, stopped at the end of the run)."""
    times = os.times()
    return times.user + times.system + times.children_user + times.children_system


def peak_child_rss_mb() -> float:
    """The largest peak resident set size among this process's ended child processes, in MB (0 where
    ``resource`` is missing)."""
    try:
        import resource
    except ImportError:  # pragma: no cover - Windows
        return 0.0
    return _maxrss_mb(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)


def _maxrss_mb(maxrss: int) -> float:
    """``ru_maxrss`` in MB: KiB on Linux, bytes on macOS."""
    return maxrss / (1024 * 1024) if sys.platform == "darwin" else maxrss / 1024


# --- settings and the shared sample index -------------------------------------------------------------


def bench_settings(data_dir: Path, **overrides: Any) -> Any:
    """Rabbithole settings (environment and .env applied, as for a user) with ``data_dir`` as data dir."""
    from rabbithole.core.config import load_settings

    storage = dict(overrides.pop("storage", {}))
    storage["data_dir"] = data_dir
    return load_settings(storage=storage, **overrides)


def sample_index_dir(kb: Path = SAMPLE_DIR) -> Path:
    """The shared data dir holding ``kb`` ingested as collection "sample" with the configured settings."""
    settings = bench_settings(Path("unused"))
    key = fingerprint(
        str(kb.resolve()),
        settings.ingestion.model_dump(),
        settings.embeddings.model_dump(exclude={"threads", "batch_size"}),
    )
    return bench_root() / f"sample-{key}"


def ensure_sample_index(kb: Path = SAMPLE_DIR, *, log: Callable[[str], None] = print) -> Path:
    """Ingest ``kb`` into the shared sample data dir (a no-op but for hashing when it is up to date) and
    return that data dir."""
    from rabbithole.services import Services

    data_dir = sample_index_dir(kb)
    fresh = not (data_dir / "catalog.sqlite3").exists()
    if fresh:
        log(f"ingesting {rel(kb)} into {rel(data_dir)} (once; later runs reuse it) ...")
    with stopwatch() as watch, Services(bench_settings(data_dir)) as services:
        report = services.ingestion_pipeline().ingest(kb, collection=SAMPLE_COLLECTION)
    collection = report.collections[0]
    if collection.changed:
        log(
            f"  ingested {collection.pages} pages, {collection.chunks} chunks in {watch.seconds:.1f} s "
            f"(embedding {collection.embed_seconds:.1f} s)"
        )
    return data_dir


def rel(path: Path) -> str:
    """A path relative to the repository root when it is inside it."""
    try:
        return str(path.resolve().relative_to(ROOT))
    except ValueError:
        return str(path)


# --- the retrieval dev set ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DevQuestion:
    id: str
    lang: str
    style: str
    question: str
    gold: tuple[tuple[str, str], ...]  # (document, section label)
    held_out: bool = False  # written after the glossary was fixed (see benchmarks/data/README.md)
    fresh: bool = False  # r51-r71: written before the recall round's tuning, never analysed for it
    english_holdout: bool = False  # r72-r95: English, written before the English round, never analysed for it


def load_dev_questions(path: Path = RETRIEVAL_DEV) -> list[DevQuestion]:
    import yaml

    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    return [
        DevQuestion(
            id=str(q["id"]),
            lang=str(q.get("lang", "")),
            style=str(q.get("style", "")),
            question=str(q["question"]),
            gold=tuple((str(g["document"]), str(g["section"])) for g in q["gold"]),
            held_out=bool(q.get("held_out", False)),
            fresh=bool(q.get("fresh", False)),
            english_holdout=bool(q.get("english_holdout", False)),
        )
        for q in data["questions"]
    ]


# --- output -------------------------------------------------------------------------------------------


def print_table(headers: Sequence[str], rows: Sequence[Sequence[object]], title: str | None = None) -> None:
    """A plain-text table; numbers are right-aligned, text left-aligned."""
    cells = [[_cell(v) for v in row] for row in rows]
    widths = [len(h) for h in headers]
    for row in cells:
        for i, value in enumerate(row):
            widths[i] = max(widths[i], len(value))
    numeric = [
        all(_is_number(row[i]) for row in rows if i < len(row) and row[i] not in (None, ""))
        for i in range(len(headers))
    ]

    def line(values: Sequence[str]) -> str:
        parts = [
            v.rjust(widths[i]) if numeric[i] and i > 0 else v.ljust(widths[i]) for i, v in enumerate(values)
        ]
        return "  ".join(parts).rstrip()

    if title:
        print(title)
    print(line(list(headers)))
    print("  ".join("-" * w for w in widths))
    for row in cells:
        print(line(row))


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _cell(value: object) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        if math.isnan(value):
            return "-"
        magnitude = abs(value)
        if magnitude >= 1000:
            return f"{value:,.0f}"
        if magnitude >= 100:
            return f"{value:.1f}"
        if magnitude >= 1:
            return f"{value:.2f}"
        return f"{value:.3f}"
    return str(value)


@dataclass(frozen=True, slots=True)
class Goal:
    """A benchmark's goal. A correctness goal (the default: events lost or out of order, a quote not
    verbatim, a deterministic quality figure) fails the benchmark when it is missed. A ``machine_dependent``
    one (a speed ratio against a baseline, a latency percentile: figures that move with the machine's load)
    is reported beside its goal when missed, and does not fail the run."""

    name: str
    passed: bool
    detail: str
    machine_dependent: bool = False
    #: an open issue's target the code does not reach yet (the issue stays open, its note says what is
    #: left): reported as [OPEN] with the issue, and does not fail the run
    open_issue: int | None = None

    @property
    def verdict(self) -> str:
        if self.passed:
            return "PASS"
        if self.open_issue is not None:
            return "OPEN"
        return "MISS" if self.machine_dependent else "FAIL"

    @property
    def fails_run(self) -> bool:
        return not self.passed and not self.machine_dependent and self.open_issue is None


#: what a missed machine-dependent goal's line says
MISSED_ON_LOAD = "not met on this machine's load: reported, not a failure"


def print_goals(goals: Sequence[Goal], indicative: str | None = None) -> bool:
    """Print one line per goal ([PASS], [FAIL], [MISS] for a machine-dependent goal missed on this
    machine's load, [OPEN] for an open issue's target not reached yet); True when no correctness goal
    failed. ``indicative``: why the goals are only indicative
    in this run (e.g. --quick on smaller data); printed with them."""
    print(f"goals (indicative only: {indicative}):" if indicative else "goals:")
    for goal in goals:
        note = f" ({MISSED_ON_LOAD})" if goal.verdict == "MISS" else ""
        if goal.verdict == "OPEN":
            note = f" (issue {goal.open_issue}'s target, not reached yet: the issue stays open)"
        print(f"  [{goal.verdict}] {goal.name}: {goal.detail}{note}")
    return not any(g.fails_run for g in goals)


def print_figures(figures: Sequence[tuple[str, str]]) -> None:
    """Figures reported beside the goals that are not goals themselves (a withdrawn goal's ratio)."""
    print("figures (reported, not goals):")
    for name, detail in figures:
        print(f"  {name}: {detail}")


def machine_info() -> str:
    """One line: date, CPU, cores, memory, load, Python."""
    cpu = platform.processor() or platform.machine()
    try:
        for text_line in Path("/proc/cpuinfo").read_text().splitlines():
            if text_line.startswith("model name"):
                cpu = text_line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        import psutil

        memory = f"{psutil.virtual_memory().total / 2**30:.0f} GiB RAM"
    except ImportError:  # pragma: no cover
        memory = "? GiB RAM"
    try:
        load = "load {:.1f}/{:.1f}/{:.1f}".format(*os.getloadavg())
    except OSError:  # pragma: no cover
        load = "load ?"
    return (
        f"{datetime.now():%Y-%m-%d %H:%M}  {cpu}, {os.cpu_count()} cores, {memory}, {load}, "
        f"Python {platform.python_version()}"
    )


def base_parser(description: str | None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        description=description, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="smaller data and fewer repetitions")
    return parser


def run_worker(
    module: str,
    kind: str,
    options: Mapping[str, object],
    env: Mapping[str, str] | None = None,
    timeout_s: float = 3600,
) -> dict[str, Any]:
    """Run ``python -m module --worker kind --out FILE --option value ...`` in a fresh interpreter (its own
    imports, its own peak RSS) from the repository root and return the JSON it wrote to FILE. Options that
    are None are left out; a failed worker's output goes to stderr and raises RuntimeError."""
    with tempfile.TemporaryDirectory(prefix="rh-bench-") as tmp:
        out = Path(tmp) / "result.json"
        command = [sys.executable, "-m", module, "--worker", kind, "--out", str(out)]
        for key, value in options.items():
            if value is not None:
                command += [f"--{key.replace('_', '-')}", str(value)]
        completed = subprocess.run(
            command,
            cwd=ROOT,
            env={**os.environ, **(env or {})},
            timeout=timeout_s,
            capture_output=True,
            text=True,
        )
        if completed.returncode != 0 or not out.exists():
            sys.stderr.write(completed.stdout + completed.stderr)
            raise RuntimeError(f"{module} worker '{kind}' failed (exit {completed.returncode})")
        result: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
        return result
