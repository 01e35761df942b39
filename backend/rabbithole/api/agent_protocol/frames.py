"""An Agent Protocol run's stream: the SSE frames ``langgraph-sdk`` parses, made from the Rabbithole run's
events between the run's start and its end (the next interrupt, the end, an error or a cancel).

- ``metadata`` first: ``{run_id, thread_id}``;
- ``custom``: every Rabbithole event as ``/api/runs/{id}/events`` carries it (progress, drafts, ...);
- ``values``: the graph state read from the checkpoint, at each phase, at the interrupt (with
  ``__interrupt__``: ``[{value, id}]``) and at the end;
- ``updates``: ``{plan | outline | report: event}`` as the graph reaches them, ``{"__interrupt__": [...]}``
  at the interrupt;
- ``error`` (``{error, message}``) when the run fails; ``end`` last.

Each frame's ``id`` is the number of the Rabbithole event it comes from, so a client that joins with
``Last-Event-ID`` gets the frames of the later events only."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

from sse_starlette import ServerSentEvent

from rabbithole.api.agent_protocol.registry import AgentRunEntry, ending
from rabbithole.api.agent_protocol.schemas import StreamMode
from rabbithole.api.agent_protocol.state import thread_state
from rabbithole.api.runs.service import RunService
from rabbithole.api.runs.stream import follow_events
from rabbithole.runs.event_log import RunEvent

#: Rabbithole events that stand for a graph update (``updates`` mode).
UPDATE_TYPES = frozenset({"plan", "outline", "report"})


def frame(event: str, data: Any, seq: int | None = None) -> ServerSentEvent:
    return ServerSentEvent(
        data=json.dumps(data, ensure_ascii=False), event=event, id=str(seq) if seq is not None else None
    )


async def _values(service: RunService, thread_id: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The thread's state values and its pending interrupts (``[{value, id}]``)."""
    record = await service.runs.get(thread_id, with_result=False)
    state = await thread_state(service, record)
    return state.values, [i.model_dump(mode="json") for i in state.interrupts]


async def event_frames(
    service: RunService, event: RunEvent, modes: list[StreamMode]
) -> AsyncIterator[ServerSentEvent]:
    """The frames of one Rabbithole event, in the requested modes."""
    if "custom" in modes:
        yield frame("custom", event.payload(), event.seq)
    if "updates" in modes and event.type in UPDATE_TYPES:
        yield frame("updates", {event.type: event.data}, event.seq)
    if event.type == "interrupt":
        values, interrupts = await _values(service, event.run_id)
        if "updates" in modes:
            yield frame("updates", {"__interrupt__": interrupts}, event.seq)
        if "values" in modes:
            yield frame("values", {**values, "__interrupt__": interrupts}, event.seq)
    elif "values" in modes and (event.type == "phase" or ending(event) == "success"):
        values, _ = await _values(service, event.run_id)
        yield frame("values", values, event.seq)
    if event.type == "error":
        yield frame("error", {"error": "RunError", "message": event.data.get("message", "")}, event.seq)


async def run_frames(
    service: RunService, entry: AgentRunEntry, modes: list[StreamMode], after: int, *, ended: bool
) -> AsyncIterator[ServerSentEvent]:
    """The run's frames after event ``after`` (at least the run's start) until its end; ``ended``: the
    client already has the run's last event (a join after the end): only ``metadata`` and ``end``."""
    yield frame("metadata", {"run_id": entry.run_id, "thread_id": entry.thread_id})
    if not ended:
        async for event in follow_events(service, entry.thread_id, max(after, entry.start_seq)):
            async for sse in event_frames(service, event, modes):
                yield sse
            if ending(event) is not None:
                break
    yield ServerSentEvent(event="end", data="")
