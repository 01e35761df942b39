"""The terminal's progress lines for clarification: a round's search, once it has searched every query."""

from __future__ import annotations

from rich.console import Console

from rabbithole.cli.research_terminal import Progress


def test_a_clarification_search_is_reported_once_complete() -> None:
    console = Console(record=True, width=120)
    progress = Progress(console)
    for searched, passages in ((0, 0), (1, 5), (2, 9)):
        progress(
            {
                "type": "clarification_progress",
                "round": 1,
                "step": "searching",
                "queries": 2,
                "searched": searched,
                "passages": passages,
            }
        )
    progress(
        {
            "type": "clarification_progress",
            "round": 1,
            "step": "analyzing",
            "queries": 2,
            "searched": 2,
            "passages": 8,
        }
    )
    progress({"type": "clarification_answer", "round": 1, "answer": "Nur Beschäftigte", "ended": False})
    assert console.export_text().splitlines() == ["  searched 2 queries: 9 passages"]
