"""Runs on a thread: create (background), stream, wait, list, get, cancel, join (its stream with
Last-Event-ID, or its end)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Header, Query, Response
from sse_starlette import EventSourceResponse

from rabbithole.api.access import AccessDep
from rabbithole.api.agent_protocol.frames import run_frames
from rabbithole.api.agent_protocol.lifecycle import agent_run, run_end, start_run
from rabbithole.api.agent_protocol.registry import AgentRegistry, AgentRunEntry, ending
from rabbithole.api.agent_protocol.schemas import AgentRun, RunCreate, served_modes
from rabbithole.api.agent_protocol.state import thread_state
from rabbithole.api.agent_protocol.threads import RegistryDep, require_thread
from rabbithole.api.deps import RunServiceDep
from rabbithole.api.runs.service import RunService
from rabbithole.api.runs.stream import PING_S, follow_events, replay_start
from rabbithole.core.errors import NotFoundError, RunStateError

router = APIRouter(tags=["agent protocol"])
#: The Last-Event-ID that asks for a run's stream from its start (LangGraph's server reads it so).
REPLAY_ALL = "-1"


def _location(entry: AgentRunEntry) -> dict[str, str]:
    """The run's address, from which ``langgraph-sdk`` reads the new run's id (``on_run_created``)."""
    return {"Content-Location": f"/threads/{entry.thread_id}/runs/{entry.run_id}"}


def _stream_location(entry: AgentRunEntry) -> dict[str, str]:
    """A stream's headers: the run's address, and in ``Location`` its stream's (relative to the client's
    base URL, as LangGraph's server sends it), where both SDKs reconnect a dropped stream by themselves
    with the last frame's id as Last-Event-ID."""
    return {**_location(entry), "Location": f"/threads/{entry.thread_id}/runs/{entry.run_id}/stream"}


async def _entry(runs: RunService, registry: AgentRegistry, thread_id: str, run_id: str) -> AgentRunEntry:
    await require_thread(runs, registry, thread_id)
    entry = registry.run(thread_id, run_id)
    if entry is None:
        raise NotFoundError(f"no run '{run_id}' on thread '{thread_id}'")
    return entry


async def _outcome(runs: RunService, entry: AgentRunEntry) -> dict[str, Any]:
    """What ``wait`` and ``join`` answer once the run ended: the thread's state values (with
    ``__interrupt__`` when it waits for input), or ``__error__``."""
    async for event in follow_events(runs, entry.thread_id, entry.start_seq):
        if ending(event) is not None:
            break
    status, _, _ = await run_end(runs, entry)
    if status == "error":
        record = await runs.runs.get(entry.thread_id, with_result=False)
        return {"__error__": {"error": "RunError", "message": record.error or ""}}
    record = await runs.runs.get(entry.thread_id, with_result=False)
    state = await thread_state(runs, record)
    values: dict[str, Any] = dict(state.values)
    if state.interrupts:
        values["__interrupt__"] = [i.model_dump(mode="json") for i in state.interrupts]
    return values


@router.post("/threads/{thread_id}/runs")
async def create_run(
    thread_id: str,
    body: RunCreate,
    runs: RunServiceDep,
    registry: RegistryDep,
    access: AccessDep,
    response: Response,
) -> AgentRun:
    """Start a run in the background."""
    entry = await start_run(runs, registry, thread_id, body, access)
    response.headers.update(_location(entry))
    return await agent_run(runs, entry)


@router.post("/threads/{thread_id}/runs/stream", response_class=EventSourceResponse)
async def stream_run(
    thread_id: str, body: RunCreate, runs: RunServiceDep, registry: RegistryDep, access: AccessDep
) -> EventSourceResponse:
    """Start a run and stream it until its interrupt or end."""
    entry = await start_run(runs, registry, thread_id, body, access)
    frames = run_frames(runs, entry, body.modes(), entry.start_seq, ended=False)
    return EventSourceResponse(frames, ping=PING_S, headers=_stream_location(entry))


@router.post("/threads/{thread_id}/runs/wait")
async def wait_run(
    thread_id: str,
    body: RunCreate,
    runs: RunServiceDep,
    registry: RegistryDep,
    access: AccessDep,
    response: Response,
) -> dict[str, Any]:
    """Start a run and answer once it reached its interrupt or end: the thread's state values."""
    entry = await start_run(runs, registry, thread_id, body, access)
    response.headers.update(_location(entry))
    return await _outcome(runs, entry)


@router.get("/threads/{thread_id}/runs")
async def list_runs(
    thread_id: str,
    runs: RunServiceDep,
    registry: RegistryDep,
    limit: Annotated[int, Query(ge=1, le=1000)] = 10,
    offset: Annotated[int, Query(ge=0)] = 0,
) -> list[AgentRun]:
    """The thread's runs, newest first."""
    await require_thread(runs, registry, thread_id)
    entries = list(reversed(registry.runs.get(thread_id, [])))[offset : offset + limit]
    return [await agent_run(runs, entry) for entry in entries]


@router.get("/threads/{thread_id}/runs/{run_id}")
async def get_run(thread_id: str, run_id: str, runs: RunServiceDep, registry: RegistryDep) -> AgentRun:
    return await agent_run(runs, await _entry(runs, registry, thread_id, run_id))


@router.post("/threads/{thread_id}/runs/{run_id}/cancel")
async def cancel_run(thread_id: str, run_id: str, runs: RunServiceDep, registry: RegistryDep) -> AgentRun:
    """Cancel the run (its Rabbithole run is cancelled; a later run on the thread continues it). A run that
    ended cannot be cancelled (409)."""
    entry = await _entry(runs, registry, thread_id, run_id)
    status, _, _ = await run_end(runs, entry)
    if status is not None:
        raise RunStateError(f"run {run_id} ended ({status}); there is nothing to cancel")
    await runs.cancel(thread_id)
    return await agent_run(runs, entry)


@router.get("/threads/{thread_id}/runs/{run_id}/stream", response_class=EventSourceResponse)
async def join_run_stream(
    thread_id: str,
    run_id: str,
    runs: RunServiceDep,
    registry: RegistryDep,
    stream_mode: Annotated[list[str] | None, Query()] = None,
    last_event_id: Annotated[str | None, Header()] = None,
) -> EventSourceResponse:
    """Join the run's stream: the frames after Last-Event-ID (from the run's start without it, or with
    ``-1``, which ``useStream`` sends to replay a run), then live ones, until its interrupt or end; in
    ``stream_mode``, or without it the modes the run was started with (an SDK that reconnects a dropped
    stream names none)."""
    requested = served_modes(stream_mode) if stream_mode else None
    entry = await _entry(runs, registry, thread_id, run_id)
    modes = requested or entry.stream_modes
    replay = last_event_id is not None and last_event_id.strip() == REPLAY_ALL
    after = max(replay_start(None, None if replay else last_event_id), entry.start_seq)
    status, last, _ = await run_end(runs, entry)
    frames = run_frames(runs, entry, modes, after, ended=status is not None and last <= after)
    return EventSourceResponse(frames, ping=PING_S, headers=_stream_location(entry))


@router.get("/threads/{thread_id}/runs/{run_id}/join")
async def join_run(thread_id: str, run_id: str, runs: RunServiceDep, registry: RegistryDep) -> dict[str, Any]:
    """Wait for the run's interrupt or end: the thread's state values."""
    return await _outcome(runs, await _entry(runs, registry, thread_id, run_id))
