"""`rabbithole runs` shows every run's whole id at 80 columns, and `--resume` takes a unique start of it
(an ambiguous or unknown one is a clear error with its exit code)."""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

import pytest

from fixtures.cli_runs import rabbithole
from rabbithole.cli.run_ids import pick_run_id
from rabbithole.core.errors import InvalidRequestError, RunNotFoundError
from rabbithole.runs.store import RunStore

QUESTION = (
    "Wann müssen Strahlenschutzbereiche eingerichtet werden, und wer legt ihre Grenzen im Einzelfall fest?"
)


@pytest.fixture
def runs(tmp_path: Path) -> tuple[dict[str, str], list[str]]:
    """An environment whose data dir holds 17 runs (so that two of them share their first character), the
    newest a report waiting for its outline; and their ids, newest first."""
    registry = RunStore(tmp_path / "catalog.sqlite3")
    try:
        for n in range(16):
            registry.create(f"{QUESTION} ({n})", ["sample"], "interactive")
        report = registry.create(QUESTION, ["sample"], "report")
        registry.update(report.id, status="waiting_for_input", phase="outline")
        ids = [r.id for r in registry.list(limit=100)]
    finally:
        registry.close()
    env = {**os.environ, "RABBITHOLE_STORAGE__DATA_DIR": str(tmp_path), "COLUMNS": "80"}
    return env, ids


def test_runs_shows_whole_ids_at_80_columns(runs: tuple[dict[str, str], list[str]]) -> None:
    env, ids = runs
    listed = rabbithole(["runs"], env, timeout=120)
    assert listed.returncode == 0, listed.stderr
    id_lines = [line for line in listed.stdout.splitlines() if line[:32] in ids]
    assert [line[:32] for line in id_lines] == ids
    assert all(len(line) <= 80 for line in id_lines)
    assert id_lines[0].split() == [ids[0], "waiting_for_input", "report", "outline"]
    assert f"{QUESTION} (15)" in listed.stdout  # the question whole, on its own line


def test_resume_takes_a_unique_start_of_the_id(runs: tuple[dict[str, str], list[str]]) -> None:
    env, ids = runs
    report_id = ids[0]
    prefix = next(report_id[:n] for n in range(4, 33) if sum(i.startswith(report_id[:n]) for i in ids) == 1)
    # `research --resume` found the whole id: it says that run is a report (and how to resume it)
    resumed = rabbithole(["research", "--resume", prefix], env, timeout=120)
    assert resumed.returncode == 64
    assert f"run {report_id} is a report: rabbithole report --resume {report_id}" in resumed.stderr


def test_an_ambiguous_or_unknown_start_is_an_error(runs: tuple[dict[str, str], list[str]]) -> None:
    env, ids = runs
    shared = next(c for c, n in Counter(i[0] for i in ids).items() if n > 1)
    ambiguous = rabbithole(["report", "--resume", shared], env, timeout=120)
    assert ambiguous.returncode == 64
    assert f"'{shared}' starts several runs' ids" in ambiguous.stderr

    unknown = rabbithole(["research", "--resume", "zz"], env, timeout=120)
    assert unknown.returncode == 66
    assert "research run 'zz' does not exist" in unknown.stderr


def test_pick_run_id() -> None:
    ids = ["ab12", "ab34", "cd56"]
    assert pick_run_id("c", [i for i in ids if i.startswith("c")]) == "cd56"
    assert pick_run_id("ab12", ["ab12"]) == "ab12"
    with pytest.raises(InvalidRequestError, match="ab12, ab34"):
        pick_run_id("ab", ["ab12", "ab34"])
    with pytest.raises(RunNotFoundError):
        pick_run_id("ef", [])
