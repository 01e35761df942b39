"""Progress events the graphs emit through LangGraph's stream writer (stream mode "custom").

Every event is a dict with a ``type``: ``phase``, ``clarification`` (and ``clarification_progress``,
``clarification_answer``: research/clarify/progress.py), ``plan``, ``todo``, ``task_progress``,
``reference_followed``, ``warning``. The runner adds ``interrupt``, ``report``, ``error`` and ``done``.
"""

from __future__ import annotations

from typing import Any

from langgraph.config import get_stream_writer

from rabbithole.research.models import Phase, TaskSpec


def emit(event_type: str, **data: Any) -> None:
    """Send one progress event to whoever streams the run (nothing when nobody does)."""
    try:
        writer = get_stream_writer()
    except RuntimeError:  # called outside a graph run (unit tests of a node's logic)
        return
    writer({"type": event_type, **data})


def phase(name: Phase) -> None:
    emit("phase", phase=name)


def todo(tasks: list[TaskSpec], states: dict[str, str]) -> None:
    emit(
        "todo",
        tasks=[{"id": t.id, "title": t.title, "state": states.get(t.id, "pending")} for t in tasks],
    )


def task_progress(task_id: str, step: str, **data: Any) -> None:
    emit("task_progress", task_id=task_id, step=step, **data)


def warning(message: str) -> None:
    emit("warning", message=message)
