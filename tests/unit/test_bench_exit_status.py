"""`make bench`'s exit status: a machine-dependent goal missed on a loaded machine is reported beside its
goal, not a failure; a correctness goal that fails, or a benchmark that crashes, fails the run (and the other
benchmarks still run). bench_references' goals are those of the configured settings only."""

from __future__ import annotations

import sys
import types
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.__main__ import main as run_benchmarks  # noqa: E402
from benchmarks.bench_references import SetFigures, current_goals  # noqa: E402
from benchmarks.common import Goal, print_goals  # noqa: E402


def test_a_machine_dependent_goal_missed_is_reported_not_failed(capsys: pytest.CaptureFixture[str]) -> None:
    goals = [
        Goal("events in order", True, "50/50"),
        Goal("faster than the baseline", False, "0.72x", machine_dependent=True),
    ]
    assert print_goals(goals) is True
    out = capsys.readouterr().out
    assert "[PASS] events in order: 50/50" in out
    assert "[MISS] faster than the baseline: 0.72x (not met on this machine's load" in out
    assert "FAIL" not in out


def test_a_correctness_goal_that_fails_fails(capsys: pytest.CaptureFixture[str]) -> None:
    goals = [
        Goal("quotes verbatim", False, "49/50"),
        Goal("p95 latency", True, "80 ms", machine_dependent=True),
    ]
    assert print_goals(goals) is False
    assert "[FAIL] quotes verbatim: 49/50" in capsys.readouterr().out


def _fake_benchmark(monkeypatch: pytest.MonkeyPatch, name: str, main: Callable[[list[str]], object]) -> str:
    module = types.ModuleType(name)
    module.main = main  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, name, module)
    return name


def _missed_on_load(argv: list[str]) -> int:
    ok = print_goals([Goal("SSE event to DOM p95 < 100 ms", False, "272.6 ms", machine_dependent=True)])
    return 0 if ok else 1


def _crashes(argv: list[str]) -> int:
    raise RuntimeError("the browser measurement failed")


def _fails_a_correctness_goal(argv: list[str]) -> int:
    return 0 if print_goals([Goal("every dev-set run finishes", False, "1 of 48 failed")]) else 1


def _exits_with_a_message(argv: list[str]) -> int:
    raise SystemExit("bench_x: ingestion failed")


def test_the_run_exits_0_when_only_machine_dependent_goals_are_missed(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    modules = [_fake_benchmark(monkeypatch, f"fake_bench_{i}", _missed_on_load) for i in range(2)]
    assert run_benchmarks([], modules) == 0
    out = capsys.readouterr().out
    assert out.count("[MISS]") == 2
    assert "every benchmark ran" in out


def test_a_crash_or_a_failed_goal_fails_the_run_and_the_rest_still_runs(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    ran: list[str] = []

    def last(argv: list[str]) -> int:
        ran.append("last")
        return 0

    modules = [
        _fake_benchmark(monkeypatch, "fake_bench_crash", _crashes),
        _fake_benchmark(monkeypatch, "fake_bench_fail", _fails_a_correctness_goal),
        _fake_benchmark(monkeypatch, "fake_bench_exit", _exits_with_a_message),
        _fake_benchmark(monkeypatch, "fake_bench_last", last),
    ]
    assert run_benchmarks([], modules) == 1
    captured = capsys.readouterr()
    assert ran == ["last"]
    assert "RuntimeError: the browser measurement failed" in captured.err
    assert "bench_x: ingestion failed" in captured.err
    assert (
        "failed: fake_bench_crash (exit 1), fake_bench_fail (exit 1), fake_bench_exit (exit 1)"
        in captured.out
    )


def _figures(gap: float, trace: float = 0.95, de: float | None = 0.94, en: float | None = 0.97) -> SetFigures:
    return SetFigures(trace=trace, de=de, en=en, gap=gap)


def test_bench_references_goals_are_the_configured_settings_only() -> None:
    current = {
        "dev (c+n)": _figures(0.115, trace=0.957),
        "c01-c37": _figures(0.108),
        "n01-n23": _figures(0.109),
        # 27/30 - 24/30: 0.10, a hair below it in floating point
        "h01-h15 (held out)": _figures(27 / 30 - 24 / 30, trace=0.900),
        "all": _figures(0.118, trace=0.947, de=0.938, en=0.976),
    }
    goals = current_goals(current)
    assert all(g.passed for g in goals), [g for g in goals if not g.passed]
    assert not any(g.machine_dependent for g in goals)  # deterministic: no model, the same index
    # one recall goal per pooled set (the held-out set alone is below 0.92 and not a goal), the languages,
    # and one +0.10 goal per question set
    assert len(goals) == 2 + 1 + 5

    worse = {**current, "all": _figures(0.05, trace=0.90, de=0.95, en=0.85)}
    missed = {g.name for g in current_goals(worse) if not g.passed}
    assert missed == {
        "trace recall >= 0.92 (all)",
        "English trace recall within 0.05 of German (all)",
        "trace >= plain hybrid search + 0.10 at the same passages (all)",
    }


def test_an_open_issues_target_not_reached_is_reported_not_failed(capsys: pytest.CaptureFixture[str]) -> None:
    goals = [
        Goal("half the prompt tokens", False, "0.73", open_issue=24),
        Goal("quotes verbatim", True, "9/9"),
    ]
    assert print_goals(goals) is True
    out = capsys.readouterr().out
    assert (
        "[OPEN] half the prompt tokens: 0.73 (issue 24's target, not reached yet: the issue stays open)"
        in out
    )
