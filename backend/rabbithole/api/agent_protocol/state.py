"""A thread's state as the Agent Protocol shows it: the Rabbithole run's graph state read from its
checkpoint (values, next nodes, tasks, pending interrupts), and its history."""

from __future__ import annotations

from typing import Any

from pydantic_core import to_jsonable_python

from rabbithole.api.agent_protocol.schemas import CheckpointRef, Interrupt, ThreadState, ThreadTask
from rabbithole.api.runs.service import RunService
from rabbithole.runs.store import RunRecord


def _config(thread_id: str) -> dict[str, Any]:
    return {"configurable": {"thread_id": thread_id}}


def _interrupts(items: Any) -> list[Interrupt]:
    return [
        Interrupt(value=item.value, id=str(getattr(item, "id", "") or ""))
        for item in items or ()
        if isinstance(getattr(item, "value", None), dict)
    ]


def _ref(thread_id: str, config: Any) -> CheckpointRef | None:
    if not config:
        return None
    configurable = config.get("configurable", {})
    return CheckpointRef(
        thread_id=thread_id,
        checkpoint_ns=configurable.get("checkpoint_ns", ""),
        checkpoint_id=configurable.get("checkpoint_id"),
    )


def to_thread_state(thread_id: str, snapshot: Any) -> ThreadState:
    tasks = [
        ThreadTask(
            id=str(task.id),
            name=str(task.name),
            error=str(task.error) if task.error is not None else None,
            interrupts=_interrupts(task.interrupts),
        )
        for task in snapshot.tasks or ()
    ]
    pending = _interrupts(snapshot.interrupts) or [i for task in tasks for i in task.interrupts]
    created = snapshot.created_at
    return ThreadState(
        values=to_jsonable_python(snapshot.values or {}),
        next=list(snapshot.next or ()),
        checkpoint=_ref(thread_id, snapshot.config) or CheckpointRef(thread_id=thread_id),
        metadata=to_jsonable_python(dict(snapshot.metadata or {})),
        created_at=str(created) if created is not None else None,
        parent_checkpoint=_ref(thread_id, snapshot.parent_config),
        tasks=tasks,
        interrupts=pending,
    )


def empty_state(thread_id: str) -> ThreadState:
    """A thread without a run yet: no values, no checkpoint."""
    return ThreadState(
        values={},
        next=[],
        checkpoint=CheckpointRef(thread_id=thread_id),
        metadata={},
        created_at=None,
        parent_checkpoint=None,
        tasks=[],
        interrupts=[],
    )


async def thread_state(service: RunService, record: RunRecord) -> ThreadState:
    graph = await service.runner.graph(record.mode)
    snapshot = await graph.aget_state(_config(record.id), subgraphs=True)
    return to_thread_state(record.id, snapshot)


async def thread_history(service: RunService, record: RunRecord, limit: int) -> list[ThreadState]:
    graph = await service.runner.graph(record.mode)
    states: list[ThreadState] = []
    async for snapshot in graph.aget_state_history(_config(record.id), limit=limit):
        states.append(to_thread_state(record.id, snapshot))
    return states
