"""The token measurement of bench_research (benchmarks/research_tokens.py): prompt tokens by step as the fake
counted them, and the table beside the baselines."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.bench_research import ResearchQuestion  # noqa: E402
from benchmarks.research_tokens import steps, table  # noqa: E402
from benchmarks.weak_scoring import WeakRun  # noqa: E402

QUESTION = ResearchQuestion("rd01", "en", "single", True, "Q?", (("StrlSchG.pdf", "§ 124"),))


def test_steps_count_each_schemas_prompt_tokens_up_to_num_ctx() -> None:
    records = [
        {"schema_name": "Extraction", "prompt_tokens": 2000, "num_ctx": 8192},
        {"schema_name": "Extraction", "prompt_tokens": 9000, "num_ctx": 8192},  # the fake read num_ctx of it
        {"schema_name": "ReferenceGate", "prompt_tokens": 700, "num_ctx": None},  # Ollama's default: 4096
        {"schema_name": None, "prompt_tokens": 50, "num_ctx": 8192},
        {"schema_name": "Extraction", "prompt_tokens": 999, "num_ctx": 8192, "status": 500},  # never answered
    ]
    assert steps(records) == {"Extraction": 10192, "ReferenceGate": 700, "text": 50}


def test_the_table_has_a_row_per_step_largest_first_and_the_totals() -> None:
    def run(tokens: int, found: int, failed: bool = False) -> WeakRun:
        return WeakRun(QUESTION, "x", "normal", failed, "done", 1.0, requests=10, prompt_tokens=tokens,
                       gold=1, retrieved_gold=found)  # fmt: skip

    scored = {"today": [run(100, 1), run(300, 0)], "before": [run(500, 1), run(700, 1, failed=True)]}
    by_step = {"today": {"Gate": 50.0, "Extraction": 150.0}, "before": {"Gate": 200.0, "Report": 400.0}}
    headers, rows = table(scored, by_step)
    assert headers == ["measure", "today", "before"]
    assert [r[0] for r in rows[:3]] == [
        "prompt tokens / run: Extraction",
        "prompt tokens / run: Gate",
        "prompt tokens / run: Report",
    ]
    assert rows[2][1:] == [0, 400]
    by_name = {r[0]: r[1:] for r in rows}
    assert by_name["prompt tokens / run"] == [200, 600]
    assert by_name["runs (failed)"] == ["2 (0)", "2 (1)"]
    assert by_name["gold recall, retrieved"] == [0.5, 1.0]
