"""The weak-model measurement of bench_research and bench_report (benchmarks/weak_model.py, weak_scoring.py,
report_text.py, code_before.py): what a final report's Markdown says twice or heads with a placeholder, the
fake's token counts, failed runs, the summary and the goals, and a code before that cannot be had."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.bench_research import ResearchQuestion  # noqa: E402
from benchmarks.code_before import code_before  # noqa: E402
from benchmarks.report_text import (  # noqa: E402
    body_sentences,
    extra_occurrences,
    headings,
    placeholder_headings,
    repeated_sentences,
)
from benchmarks.weak_model import summary_rows, weak_goals  # noqa: E402
from benchmarks.weak_scoring import (  # noqa: E402
    WeakRun,
    fake_tokens,
    guards_triggered,
    score_weak_run,
)

REPORT = """# ReportDraft

## Inhalt

1. [Grenzwerte](#grenzwerte)
2. [Section heading](#section-heading)

## Grenzwerte

Der Grenzwert beträgt 1 Millisievert im Kalenderjahr [1]. Für Personen unter 18 Jahren gilt er auch [2].

## Section heading

*Aus den geprüften Befunden zusammengestellt, ohne Text des Modells (das Modell wiederholte seine Sätze).*

Der Grenzwert beträgt 1 Millisievert im Kalenderjahr [3][4]. Siehe S. 165. Siehe S. 165.

## Teil 2

*Aus den geprüften Befunden zusammengestellt, ohne Text des Modells (das Modell wiederholte seine Sätze).*

der GRENZWERT beträgt 1 Millisievert im Kalenderjahr!

## Quellen

[1] StrlSchG.pdf, S. 60, § 80 — "Der Grenzwert beträgt 1 Millisievert im Kalenderjahr."

[2] StrlSchG.pdf, S. 60, § 80 — "Der Grenzwert beträgt 1 Millisievert im Kalenderjahr."
"""

QUESTION = ResearchQuestion(
    "rd99", "de", "single", True, "Welche Grenzwerte gelten?", (("StrlSchG.pdf", "§ 80"),)
)


def test_headings_leave_out_the_contents_and_the_sources() -> None:
    assert headings(REPORT) == ["ReportDraft", "Grenzwerte", "Section heading", "Teil 2"]


def test_placeholder_headings_are_the_guards_placeholders() -> None:
    assert placeholder_headings(REPORT) == ["ReportDraft", "Section heading", "Teil 2"]
    assert placeholder_headings("# Dosisgrenzwerte\n\n## Section 4.2 of the standard\n\ntext") == []


def test_repeated_sentences_as_the_guards_compare_them() -> None:
    # the limit sentence three times (citation marks, case and punctuation aside); the sources' quotes, the
    # repeated italic label, the contents list and the short "Siehe S. 165." fragments do not count
    repeats = repeated_sentences(REPORT)
    assert repeats == [("der grenzwert beträgt 1 millisievert im kalenderjahr", 3)]
    assert extra_occurrences(repeats) == 2
    assert "Siehe S." in body_sentences(REPORT)
    assert not any("zusammengestellt" in s for s in body_sentences(REPORT))
    assert repeated_sentences("# Titel\n\n## A\n\nEin Satz steht hier einmal [1].\n\n## Quellen\n") == []


def test_fake_tokens_count_as_the_fake_answered() -> None:
    records = [
        {"status": 200, "prompt_tokens": 5000, "num_ctx": None, "response_text": "a b c"},  # 4096 read
        {"status": 200, "prompt_tokens": 300, "num_ctx": 8192, "response_text": '{"x": 1}'},
        {"status": 500, "prompt_tokens": 900, "num_ctx": 8192, "response_text": None},  # a fault: no answer
    ]
    assert fake_tokens(records) == (4096 + 300, 3 + 2)


def test_guards_triggered_sums_the_counts() -> None:
    counts = {
        "repeated_claims_dropped": 9,
        "headings_replaced": 2,
        "title_replaced": True,
        "uncited_claims": 0,
    }
    assert guards_triggered(counts) == 12
    assert guards_triggered({}) == 0


@pytest.mark.parametrize(
    ("raw", "why"),
    [
        ({"error": "RunFailedError: synthesis failed", "result": None}, "RunFailedError: synthesis failed"),
        ({"error": None, "result": {"run_id": "r", "question": "q", "language": "de", "status": "error",
                                    "error": "the model failed"}}, "status error: the model failed"),
    ],
)  # fmt: skip
def test_a_run_that_raised_or_ended_in_error_is_failed(raw: dict[str, object], why: str) -> None:
    records = [
        {"status": 200, "prompt_tokens": 10, "num_ctx": 4096, "response_text": "a", "weak": ["truncation"]}
    ]
    no_catalog: Any = None  # a failed run is scored without looking anything up
    run = score_weak_run(QUESTION, "before", "weak", {**raw, "seconds": 2.5, "requests": records}, no_catalog)
    assert run.failed and run.status == "failed"
    assert run.problems == [f"run failed: {why}"]
    assert (run.gold, run.cited_gold, run.retrieved_gold) == (1, 0, 0)
    assert (run.requests, run.weak_answers, run.prompt_tokens, run.output_tokens) == (1, 1, 10, 1)


def finished(code: str, profile: str, **kw: object) -> WeakRun:
    run = WeakRun(QUESTION, code, profile, False, "done", 3.0, quotes=4, verbatim=4, citations=4, gold=1)
    for key, value in kw.items():
        setattr(run, key, value)
    return run


def test_goals_hold_today_weak_runs_and_name_the_code_before() -> None:
    runs = [
        finished("now", "weak", reported_tokens=(1000, 100), checks_passed=False),
        finished("now", "normal", placeholders=["Section heading"]),  # the normal profile has no goals
        finished("before", "weak", repeats=[("ein satz der sich wiederholt hier", 14)]),
        WeakRun(QUESTION, "before", "weak", True, "failed", 1.0, gold=1),
    ]
    goals = weak_goals(runs, "research")
    assert [g.passed for g in goals] == [True] * 6
    assert goals[0].detail == "0 of 1; before: 1 of 2"
    assert goals[2].detail == "0; before: 13"

    failing = weak_goals(
        [finished("now", "weak", placeholders=["Teil 1"], repeats=[("ein satz der sich wiederholt", 2)],
                  contradictions=["Der Grenzwert beträgt 20 Millisievert."], verbatim=3, outside=1),
         WeakRun(QUESTION, "now", "weak", True, "failed", 1.0, gold=1)],
        "report",
    )  # fmt: skip
    assert [g.passed for g in failing] == [False] * 6
    # every miss fails the benchmark (issue 24's targets are met: no longer [OPEN])
    assert [g.verdict for g in failing] == ["FAIL"] * 6
    assert all(g.fails_run for g in failing)
    assert failing[3].detail == "1"
    assert "before" not in failing[0].detail  # no code before measured: nothing to name


def test_no_weak_run_is_no_pass() -> None:
    goals = weak_goals([finished("now", "normal")], "report")
    assert not any(g.passed for g in goals[:4])


def test_summary_columns_per_profile_and_code() -> None:
    runs = [
        finished("now", "normal", reported_tokens=(1000, 100), checks_passed=True, prompt_tokens=1000),
        finished("now", "weak", reported_tokens=(3000, 300), checks_passed=False, assembled=2, guards=5),
        finished("before", "weak", repeats=[("ein satz der sich wiederholt hier", 3)]),
    ]
    headers, rows = summary_rows(runs, {"now": "today", "before": "98d1430"})
    assert headers == ["measure", "normal, today", "weak, today", "weak, 98d1430"]
    by_name = {row[0]: row[1:] for row in rows}
    assert by_name["measured checks passed"] == ["1/1", "0/1", "n/a"]
    assert by_name["prompt tokens / run (result)"] == [1000, 3000, "n/a"]
    assert by_name["sections assembled (fallback)"] == [0, 2, 0]
    assert by_name["repeated sentences"] == [0, 0, 2]
    assert by_name["quotes verbatim"] == ["4/4 = 1.000"] * 3


def test_a_code_before_that_cannot_be_had_says_why(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("RABBITHOLE_BENCH_DIR", str(tmp_path))
    missing = code_before("0" * 40)
    assert missing.backend is None
    assert missing.why  # printed as "baseline unavailable: <why>"
    assert not any(tmp_path.glob("code-*"))


def test_a_sentence_stating_a_figure_its_quote_does_not_is_a_contradiction_left() -> None:
    from types import SimpleNamespace

    from benchmarks.weak_scoring import contradictions_left

    quote = "Für Personen unter 18 Jahren beträgt der Grenzwert 1 Millisievert im Kalenderjahr."
    source = SimpleNamespace(n=1, quote=quote, document="StrlSchG.pdf", section="§ 78")
    claims = [
        SimpleNamespace(text="Unter 18 Jahren gilt 20 Millisievert.", citations=[1]),
        SimpleNamespace(text="Unter 18 Jahren gilt 1 mSv im Kalenderjahr.", citations=[1]),
        SimpleNamespace(text="Es gelten 5 Ausnahmen.", citations=[]),  # uncited: not checked here
    ]
    result = SimpleNamespace(sources=[source], claims=claims)
    assert contradictions_left(result) == ["Unter 18 Jahren gilt 20 Millisievert."]
