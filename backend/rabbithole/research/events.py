"""Progress events the graphs emit through LangGraph's stream writer (stream mode "custom").

Every event is a model of ``event_models.py`` (``phase``, ``language``, ``clarification``, ``assessment``,
``plan``, ``todo``, ``task_progress``, ``reference_followed``, ``warning``, ``draft_section``,
``remediation``), ``report/event_models.py`` (``outline``, ``section``), ``clarify/progress.py``
(``clarification_progress``, ``clarification_answer``) or ``synthesis/preview.py``
(``draft_text``), written to the stream as its JSON object (with its ``type``).
The runner adds ``status``, ``interrupt``, ``report``, ``error`` and ``done`` (``runs/run_events.py``).
"""

from __future__ import annotations

from langgraph.config import get_stream_writer

from rabbithole.research.event_models import GraphEvent, PhaseEvent, TodoEvent, TodoItem, WarningEvent
from rabbithole.research.models import Phase, TaskSpec, TaskState


def emit(event: GraphEvent) -> None:
    """Send one progress event to whoever streams the run (nothing when nobody does)."""
    try:
        writer = get_stream_writer()
    except RuntimeError:  # called outside a graph run (unit tests of a node's logic)
        return
    writer(event.model_dump(mode="json", by_alias=True))


def phase(name: Phase) -> None:
    emit(PhaseEvent(phase=name))


def todo(tasks: list[TaskSpec], states: dict[str, TaskState]) -> None:
    items = [TodoItem(id=t.id, title=t.title, state=states.get(t.id, "pending")) for t in tasks]
    emit(TodoEvent(tasks=items))


def warning(message: str) -> None:
    emit(WarningEvent(message=message))
