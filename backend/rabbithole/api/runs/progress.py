"""A run's progress as GET /api/runs/{id} shows it, folded from its events: the last todo list the run
announced with each task's state updated by later ``task_progress`` events, its warnings, and the number
of its last event.

The same fold serves two readers. A run executing in this process keeps a live ``RunProgress`` that the
run service updates with every event it publishes (once persisted), so a client polling a busy run costs
no database read for it; any other run's progress is folded from its persisted events when asked.

    progress = RunProgress.of(*log.progress_events(run_id, PROGRESS_TYPES))
    progress.add(event)                       # each new event, in order; one already folded is skipped
    progress.todo(), progress.warnings, progress.last_seq
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from rabbithole.research.event_models import TodoItem
from rabbithole.runs.event_log import RunEvent

TASK_STATES = ("pending", "running", "done", "error")
#: The event types the progress is folded from (the rest only move ``last_seq``).
PROGRESS_TYPES = ("todo", "task_progress", "warning")


@dataclass(slots=True)
class RunProgress:
    last_seq: int = 0
    tasks: dict[str, dict[str, Any]] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)

    @classmethod
    def of(cls, events: Iterable[RunEvent], last_seq: int = 0) -> RunProgress:
        progress = cls()
        for event in events:
            progress.add(event)
        progress.last_seq = max(progress.last_seq, last_seq)
        return progress

    def add(self, event: RunEvent) -> None:
        """Fold the run's next event in; one numbered at or below ``last_seq`` is already folded (a
        progress read from the database while the event was on its way) and changes nothing."""
        if event.seq <= self.last_seq:
            return
        self.last_seq = event.seq
        if event.type == "todo":
            self.tasks = {str(task["id"]): dict(task) for task in event.data.get("tasks", [])}
        elif event.type == "task_progress":
            task = self.tasks.get(str(event.data.get("task_id")))
            state = event.data.get("state")
            if task is not None and state in TASK_STATES:
                task["state"] = state
        elif event.type == "warning":
            self.warnings.append(str(event.data.get("message", "")))

    def todo(self) -> list[TodoItem]:
        return [
            TodoItem(id=task["id"], title=str(task.get("title", "")), state=task.get("state", "pending"))
            for task in self.tasks.values()
        ]
