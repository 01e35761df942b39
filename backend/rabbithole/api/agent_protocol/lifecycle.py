"""Starting an Agent Protocol run on a thread (its first: a new Rabbithole run with the thread's id; a later
one: the answer to the pending interrupt), and an Agent Protocol run's status, read from its Rabbithole
run's events."""

from __future__ import annotations

import asyncio
from datetime import datetime
from typing import Any

from pydantic import TypeAdapter, ValidationError

from rabbithole.api.access import Access
from rabbithole.api.agent_protocol.assistants import find_assistant
from rabbithole.api.agent_protocol.registry import AgentRegistry, AgentRunEntry, ending
from rabbithole.api.agent_protocol.schemas import AgentRun, AgentRunStatus, RunCreate
from rabbithole.api.agent_protocol.threads import require_thread
from rabbithole.api.runs.schemas import CreateRun, ResumeBody
from rabbithole.api.runs.service import RunService
from rabbithole.core.errors import InvalidRequestError, RunStateError
from rabbithole.research.models import RunStatus

_RESUME: TypeAdapter[ResumeBody] = TypeAdapter(ResumeBody)
_UNENDED: dict[RunStatus, AgentRunStatus] = {
    "queued": "pending",
    "running": "running",
    "waiting_for_input": "running",  # its interrupt event is on its way
    "error": "error",
    "cancelled": "interrupted",
    "done": "success",
}


def _first_run(thread_id: str, graph: str, body: RunCreate) -> CreateRun:
    if body.input is None:
        raise InvalidRequestError(f"thread {thread_id} has no run yet: its first run needs an input")
    given = dict(body.input)
    if body.context:
        settings = given.get("settings") or {}
        if not isinstance(settings, dict):
            raise InvalidRequestError("the run's input.settings must be an object")
        given["settings"] = {**settings, **body.context}
    if graph == "report":
        if given.get("mode", "report") != "report":
            raise InvalidRequestError("the report assistant runs in mode 'report' only")
        given["mode"] = "report"
    elif given.get("mode") == "report":
        raise InvalidRequestError("mode 'report' is the report assistant's")
    try:
        return CreateRun.model_validate(given)
    except ValidationError as exc:
        raise InvalidRequestError(f"the run's input does not fit: {exc}") from None


def _answer(thread_id: str, body: RunCreate) -> ResumeBody:
    if body.input is not None:
        raise InvalidRequestError(
            f"thread {thread_id} has its run: answer its interrupt with command.resume instead of an input"
        )
    if body.context:
        raise InvalidRequestError(
            f"thread {thread_id} has its run: its settings (context) were fixed by its first run"
        )
    resume = body.command.resume if body.command is not None else None
    payload: Any = {"answer": resume} if isinstance(resume, str) else resume or {}
    try:
        return _RESUME.validate_python(payload)
    except ValidationError as exc:
        raise InvalidRequestError(f"command.resume does not fit: {exc}") from None


async def start_run(
    service: RunService, registry: AgentRegistry, thread_id: str, body: RunCreate, access: Access
) -> AgentRunEntry:
    """A new Agent Protocol run on the thread; a thread whose run executes refuses it (409,
    multitask_strategy ``reject``); a stream mode that is not served is refused before (422). Accounts
    mode: the first run's collections must be the account's, and the Rabbithole run it creates is the
    account's (api/access.py)."""
    modes = body.modes()
    assistant = find_assistant(body.assistant_id)
    async with registry.starting:
        record = await require_thread(service, registry, thread_id)
        metadata = body.metadata or {}
        if record is None:
            request = _first_run(thread_id, assistant.graph_id, body)
            for collection in request.collections:
                access.require_collection(collection, "read")
            entry = registry.add_run(thread_id, assistant.assistant_id, 0, metadata, modes)
            try:
                await service.create(
                    request.question,
                    request.collections,
                    request.mode,
                    request.overrides(),
                    run_id=thread_id,
                    created_by=access.user_id,
                )
            except BaseException:
                registry.drop_run(entry)
                raise
            return entry
        graph = "report" if record.mode == "report" else "research"
        if graph != assistant.graph_id:
            raise InvalidRequestError(f"thread {thread_id} runs the {graph} assistant")
        if service.busy(thread_id) or record.status in ("queued", "running"):
            raise RunStateError(f"thread {thread_id} is busy (multitask_strategy 'reject')")
        answer = _answer(thread_id, body)
        start_seq = await service.last_event(thread_id)
        entry = registry.add_run(thread_id, assistant.assistant_id, start_seq, metadata, modes)
        try:
            await service.resume(thread_id, answer)
        except BaseException:
            registry.drop_run(entry)
            raise
        return entry


async def run_end(service: RunService, entry: AgentRunEntry) -> tuple[AgentRunStatus | None, int, datetime]:
    """The status the run ended in (None while it goes on), the number of its last event, and when it
    changed last."""
    events = await asyncio.to_thread(service.events.after, entry.thread_id, entry.start_seq)
    for event in events:
        status = ending(event)
        if status is not None:
            return status, event.seq, event.created_at
    last = events[-1] if events else None
    return None, last.seq if last else entry.start_seq, last.created_at if last else entry.created_at


async def agent_run(service: RunService, entry: AgentRunEntry) -> AgentRun:
    status, _, updated = await run_end(service, entry)
    if status is None:
        record = await service.runs.get(entry.thread_id, with_result=False)
        status = _UNENDED[record.status]
    return AgentRun(
        run_id=entry.run_id,
        thread_id=entry.thread_id,
        assistant_id=entry.assistant_id,
        created_at=entry.created_at,
        updated_at=updated,
        status=status,
        metadata=entry.metadata,
    )
