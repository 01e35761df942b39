"""What the Agent Protocol adds to the runs layer, held in the server's memory: threads not started yet,
thread metadata, and the Agent Protocol runs of each thread (their ids and where in the Rabbithole run's
events each began). After a restart a thread is its Rabbithole run alone (no metadata, no earlier runs)."""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from fastapi import Request

from rabbithole.api.agent_protocol.schemas import AgentRunStatus, StreamMode, ThreadStatus
from rabbithole.research.models import RunStatus
from rabbithole.runs.event_log import RunEvent

_THREAD_STATUS: dict[RunStatus, ThreadStatus] = {
    "queued": "busy",
    "running": "busy",
    "waiting_for_input": "interrupted",
    "error": "error",
    "done": "idle",
    "cancelled": "idle",
}


def thread_status(status: RunStatus) -> ThreadStatus:
    return _THREAD_STATUS[status]


def ending(event: RunEvent) -> AgentRunStatus | None:
    """The status an Agent Protocol run ends in at this event of its Rabbithole run, or None when the event
    does not end it: an interrupt ends it successfully (the thread waits for input), as on LangGraph's
    server; a cancel interrupts it."""
    if event.type == "interrupt":
        return "success"
    if event.type == "error":
        return "error"
    if event.type == "done":
        return "interrupted" if event.data.get("status") == "cancelled" else "success"
    return None


@dataclass(slots=True)
class AgentRunEntry:
    run_id: str
    thread_id: str
    assistant_id: str
    start_seq: int  # the Rabbithole run's last event before this run began
    metadata: dict[str, Any]
    stream_modes: list[StreamMode]  # what it was started with: a join without stream_mode streams these
    created_at: datetime = field(default_factory=lambda: datetime.now(UTC))


@dataclass(slots=True)
class ThreadEntry:
    thread_id: str
    metadata: dict[str, Any]
    owner: int | None = None  # accounts mode: the account that created it (its run, once started, has it too)
    created_at: datetime = field(default_factory=lambda: datetime.now(UTC))


class AgentRegistry:
    def __init__(self) -> None:
        self.threads: dict[str, ThreadEntry] = {}
        self.runs: dict[str, list[AgentRunEntry]] = {}
        self.starting = asyncio.Lock()  # one run starts at a time (a thread's first run creates its run)

    def add_thread(
        self, thread_id: str | None, metadata: dict[str, Any], owner: int | None = None
    ) -> ThreadEntry:
        entry = ThreadEntry(thread_id or uuid.uuid4().hex, metadata, owner)
        self.threads[entry.thread_id] = entry
        return entry

    def add_run(
        self,
        thread_id: str,
        assistant_id: str,
        start_seq: int,
        metadata: dict[str, Any],
        stream_modes: list[StreamMode],
    ) -> AgentRunEntry:
        entry = AgentRunEntry(str(uuid.uuid4()), thread_id, assistant_id, start_seq, metadata, stream_modes)
        self.runs.setdefault(thread_id, []).append(entry)
        return entry

    def drop_run(self, entry: AgentRunEntry) -> None:
        self.runs.get(entry.thread_id, []).remove(entry)

    def run(self, thread_id: str, run_id: str) -> AgentRunEntry | None:
        return next((r for r in self.runs.get(thread_id, []) if r.run_id == run_id), None)

    def forget(self, thread_id: str) -> None:
        self.threads.pop(thread_id, None)
        self.runs.pop(thread_id, None)


def get_registry(request: Request) -> AgentRegistry:
    """The app's registry (made on first use)."""
    registry: AgentRegistry | None = getattr(request.app.state, "agent_protocol", None)
    if registry is None:
        registry = AgentRegistry()
        request.app.state.agent_protocol = registry
    return registry
