"""Threads: create, get, search, delete, state (with the pending interrupts) and history. A thread is a
Rabbithole run (same id) once its first run started; before, an entry of the registry."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Query
from fastapi.responses import Response

from rabbithole.api.access import Access, AccessDep
from rabbithole.api.agent_protocol.registry import AgentRegistry, get_registry, thread_status
from rabbithole.api.agent_protocol.schemas import (
    HistoryQuery,
    Thread,
    ThreadCreate,
    ThreadSearch,
    ThreadState,
)
from rabbithole.api.agent_protocol.state import empty_state, thread_history, thread_state
from rabbithole.api.deps import RunServiceDep
from rabbithole.api.runs.service import RunService
from rabbithole.core.errors import NotFoundError, RunNotFoundError, RunStateError
from rabbithole.runs.store import RunRecord

router = APIRouter(tags=["agent protocol"])
RegistryDep = Annotated[AgentRegistry, Depends(get_registry)]


async def started(service: RunService, thread_id: str) -> RunRecord | None:
    """The thread's Rabbithole run, or None when it has none (yet)."""
    try:
        return await service.runs.get(thread_id, with_result=False)
    except RunNotFoundError:
        return None


async def require_thread(service: RunService, registry: AgentRegistry, thread_id: str) -> RunRecord | None:
    """The thread's run (None: a thread without a run yet); NotFoundError (404) when there is no thread."""
    record = await started(service, thread_id)
    if record is None and thread_id not in registry.threads:
        raise NotFoundError(f"no thread '{thread_id}'")
    return record


async def require_visible_thread(
    service: RunService, registry: AgentRegistry, access: Access, thread_id: str, *, control: bool
) -> None:
    """NotFoundError (404) when the request may not see the thread (its run, or, before it has one, the
    registry's entry of another account); PermissionDeniedError (403) when it sees the run but wants to
    control it (start a run on it, cancel, delete) and did not start it. A thread that does not exist is
    left to the route (404 too)."""
    if access.unrestricted:
        return
    record = await started(service, thread_id)
    if record is not None:
        access.require_run(record, control=control)
        return
    entry = registry.threads.get(thread_id)
    if entry is not None and not access.owns(entry.owner):
        raise NotFoundError(f"no thread '{thread_id}'")


async def to_thread(service: RunService, registry: AgentRegistry, thread_id: str) -> Thread:
    record = await require_thread(service, registry, thread_id)
    entry = registry.threads.get(thread_id)
    metadata = entry.metadata if entry is not None else {}
    if record is None:
        assert entry is not None
        return Thread(
            thread_id=thread_id,
            created_at=entry.created_at,
            updated_at=entry.created_at,
            metadata=metadata,
            status="idle",
        )
    state = await thread_state(service, record)
    interrupts = {"__root__": state.interrupts} if state.interrupts else {}
    return Thread(
        thread_id=thread_id,
        created_at=record.created_at,
        updated_at=record.updated_at,
        metadata=metadata,
        status=thread_status(record.status),
        values=state.values,
        interrupts=interrupts,
    )


@router.post("/threads")
async def create_thread(
    body: ThreadCreate, runs: RunServiceDep, registry: RegistryDep, access: AccessDep
) -> Thread:
    """A thread (accounts mode: the account's; an existing one is returned only to whom may see it)."""
    if body.thread_id is not None and (
        body.thread_id in registry.threads or await started(runs, body.thread_id) is not None
    ):
        if body.if_exists == "raise":
            raise RunStateError(f"thread '{body.thread_id}' exists")
        await require_visible_thread(runs, registry, access, body.thread_id, control=False)
        return await to_thread(runs, registry, body.thread_id)
    entry = registry.add_thread(body.thread_id, body.metadata or {}, owner=access.user_id)
    return await to_thread(runs, registry, entry.thread_id)


@router.get("/threads/{thread_id}")
async def get_thread(thread_id: str, runs: RunServiceDep, registry: RegistryDep) -> Thread:
    return await to_thread(runs, registry, thread_id)


@router.post("/threads/search")
async def search_threads(
    body: ThreadSearch, runs: RunServiceDep, registry: RegistryDep, access: AccessDep
) -> list[Thread]:
    """Threads, newest first: those of the registry without a run, then the runs (each a thread); in
    accounts mode those the request may see."""
    empty = [
        t
        for t, entry in registry.threads.items()
        if access.owns(entry.owner) and await started(runs, t) is None
    ]
    if access.unrestricted:
        records = await runs.runs.list(limit=1_000_000)
    else:
        records = list(await runs.runs.visible(access.sees_run))
    ids = [*reversed(empty), *(r.id for r in records)]
    if body.ids is not None:
        ids = [i for i in ids if i in body.ids]
    found: list[Thread] = []
    for thread_id in ids:
        thread = await to_thread(runs, registry, thread_id)
        if body.status not in (None, thread.status):
            continue
        if body.metadata and any(thread.metadata.get(k) != v for k, v in body.metadata.items()):
            continue
        found.append(thread)
        if len(found) >= body.offset + body.limit:
            break
    return found[body.offset :]


@router.delete("/threads/{thread_id}", status_code=204)
async def delete_thread(thread_id: str, runs: RunServiceDep, registry: RegistryDep) -> Response:
    """Deletes the thread and its Rabbithole run (cancelled first if it executes)."""
    record = await require_thread(runs, registry, thread_id)
    if record is not None:
        await runs.delete(thread_id)
    registry.forget(thread_id)
    return Response(status_code=204)


@router.get("/threads/{thread_id}/state")
async def get_thread_state(thread_id: str, runs: RunServiceDep, registry: RegistryDep) -> ThreadState:
    record = await require_thread(runs, registry, thread_id)
    return empty_state(thread_id) if record is None else await thread_state(runs, record)


@router.post("/threads/{thread_id}/history")
async def post_thread_history(
    thread_id: str, body: HistoryQuery, runs: RunServiceDep, registry: RegistryDep
) -> list[ThreadState]:
    record = await require_thread(runs, registry, thread_id)
    return [] if record is None else await thread_history(runs, record, body.limit)


@router.get("/threads/{thread_id}/history")
async def get_thread_history(
    thread_id: str,
    runs: RunServiceDep,
    registry: RegistryDep,
    limit: Annotated[int, Query(ge=1, le=1000)] = 10,
) -> list[ThreadState]:
    record = await require_thread(runs, registry, thread_id)
    return [] if record is None else await thread_history(runs, record, limit)
