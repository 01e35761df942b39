"""What GET /api/runs/{id} shows: the run's record, its todo list and warnings derived from its events,
the pending interrupt, the LLM calls so far and the report once done."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rabbithole.api.runs.schemas import RunDetail, TodoItem
from rabbithole.api.runs.service import RunService
from rabbithole.research.event_log import RunEvent

TASK_STATES = ("pending", "running", "done", "error")


def todo_from_events(events: Iterable[RunEvent]) -> list[TodoItem]:
    """The last todo list the run announced, with each task's state updated by later progress events."""
    tasks: dict[str, dict[str, Any]] = {}
    for event in events:
        if event.type == "todo":
            tasks = {str(t["id"]): dict(t) for t in event.data.get("tasks", [])}
        elif event.type == "task_progress":
            task = tasks.get(str(event.data.get("task_id")))
            state = event.data.get("state")
            if task is not None and state in TASK_STATES:
                task["state"] = state
    return [
        TodoItem(id=t["id"], title=str(t.get("title", "")), state=t.get("state", "pending"))
        for t in tasks.values()
    ]


def warnings_from_events(events: Iterable[RunEvent]) -> list[str]:
    return [str(e.data.get("message", "")) for e in events if e.type == "warning"]


async def run_detail(service: RunService, run_id: str) -> RunDetail:
    view = await service.runner.view(run_id)
    record = view.record
    events = service.events.after(run_id, 0, types=("todo", "task_progress", "warning"))
    llm_calls = dict(view.result.llm_calls) if view.result is not None else dict(view.llm_calls or {})
    todo = todo_from_events(events)
    if view.result is not None and view.result.tasks:
        todo = [TodoItem(id=t.id, title=t.title, state=t.state) for t in view.result.tasks]
    return RunDetail(
        run=record.summary(),
        mode=record.mode,
        overrides=record.overrides,
        todo=todo,
        interrupt=view.interrupt,
        warnings=view.result.warnings if view.result is not None else warnings_from_events(events),
        llm_calls=llm_calls,
        last_event=service.events.last_seq(run_id),
        result=view.result,
    )
