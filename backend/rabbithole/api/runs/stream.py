"""Server-sent events: a run's progress (GET /api/runs/{id}/events) and the run list's changes
(GET /api/runs/events).

A run's stream replays the persisted events after ``Last-Event-ID`` (or ``?after=N``), then follows the live
ones without a gap or a repeat: it subscribes before it reads the backlog and drops live events numbered at
or below the last one it sent. It ends after ``done`` or ``error`` (a resumed run continues on a new
connection), at once when the client already has the run's final event, or when the run is deleted. A run
that another process executes (another worker, `rabbithole research --resume`) publishes nothing here. On
the server backend (PostgreSQL) its events come all the same, live, through the worker relay (``relay.py``:
LISTEN/NOTIFY, the new rows read by seq), and the stream only looks every ``ELSEWHERE_POLL_S`` whether the
run ended without a new event; on the embedded backend (one server, the CLI beside it) the stream reads the
run's log every ``ELSEWHERE_POLL_S`` instead.
Heartbeats (SSE comments) keep idle connections open. The database is read in a thread, never on the
event loop.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Annotated, Any

from fastapi import APIRouter, Header, Query
from sse_starlette import EventSourceResponse, ServerSentEvent

from rabbithole.api.access import Access, AccessDep
from rabbithole.api.deps import RunServiceDep
from rabbithole.api.errors import responses
from rabbithole.api.runs.broker import CLOSED
from rabbithole.api.runs.event_schemas import RunEventPayload, RunListChange
from rabbithole.api.runs.service import TERMINAL, RunService
from rabbithole.core.errors import InvalidRequestError, RunNotFoundError
from rabbithole.runs.event_log import RunEvent

router = APIRouter(tags=["runs"])

#: Seconds between heartbeats on an idle stream.
PING_S = 15
#: How often a stream reads the log of a run that another process (the CLI, another server) executes.
ELSEWHERE_POLL_S = 1.0

#: The types of a run's events (``RunEventPayload``'s discriminator values; a test keeps the two the same).
EVENT_TYPES = (
    "status",
    "phase",
    "language",
    "clarification",
    "clarification_progress",
    "clarification_answer",
    "assessment",
    "plan",
    "todo",
    "task_progress",
    "reference_followed",
    "warning",
    "draft_section",
    "draft_text",
    "remediation",
    "outline",
    "section",
    "interrupt",
    "report",
    "error",
    "done",
)


#: One server-sent event as the stream carries it: its type, its number and a JSON object as data.
SSE_EVENT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "event": {"type": "string"},
        "id": {"type": "string"},
        "data": {"type": "string", "description": "A JSON object: the event's fields."},
        "retry": {"type": "integer"},
    },
    "required": ["data"],
}


def framed_event_streams(document: dict[str, Any]) -> None:
    """The OpenAPI document's event-stream answers as what travels: each server-sent event a frame
    (``SSE_EVENT_SCHEMA``) whose ``data`` string holds the JSON of the route's model, published by
    ``contentMediaType``/``contentSchema`` (FastAPI writes the model's ``$ref`` beside ``type: string`` as the
    stream's own schema, which a client checking the frames, e.g. Schemathesis, reads as the frame)."""
    for operations in document.get("paths", {}).values():
        for operation in operations.values():
            for answer in operation.get("responses", {}).values():
                stream = answer.get("content", {}).get(EventStream.media_type)
                ref = stream.get("schema", {}).get("$ref") if stream else None
                if stream is None or ref is None:
                    continue
                data = {**SSE_EVENT_SCHEMA["properties"]["data"]}
                data.update(contentMediaType="application/json", contentSchema={"$ref": ref})
                properties = {**SSE_EVENT_SCHEMA["properties"], "data": data}
                stream["schema"] = {**SSE_EVENT_SCHEMA, "properties": properties}


class EventStream(EventSourceResponse):
    """An SSE response whose media type the OpenAPI document knows (the event models are its schema)."""

    media_type = "text/event-stream"


def _json_error(description: str) -> dict[str, Any]:
    """An error answer of a streaming route: JSON (the one error body), not an event stream."""
    ref = {"$ref": "#/components/schemas/ErrorResponse"}
    return {"description": description, "content": {"application/json": {"schema": ref}}}


_SSE_ERRORS: dict[int | str, dict[str, Any]] = {
    **{code: _json_error(str(r["description"])) for code, r in responses().items()},
    404: _json_error("No such run."),
    422: _json_error("Bad Last-Event-ID or ?after."),
}
#: The schema of a run's stream is its events' ``data``: a ``RunEventPayload`` (generated into the web app).
_SSE: dict[int | str, dict[str, Any]] = {
    200: {
        "model": RunEventPayload,
        "description": "A stream of server-sent events: `id` is the event's number, `event` its type, "
        "`data` a JSON object (the schema): `type`, `run_id`, `seq`, `created_at` and the event's fields. "
        f"Types: {', '.join(EVENT_TYPES)}.",
    },
}


_SSE_GLOBAL: dict[str, Any] = {
    "model": RunListChange,
    "description": "A stream of server-sent events: `ready` first, then `status`, `phase` and `deleted` "
    "changes; `event` is the change, `data` a JSON object (the schema).",
}


def _sse(event: RunEvent) -> ServerSentEvent:
    return ServerSentEvent(
        data=json.dumps(event.payload(), ensure_ascii=False), event=event.type, id=str(event.seq)
    )


async def follow(service: RunService, run_id: str, after: int) -> AsyncIterator[ServerSentEvent]:
    """The run's events numbered above ``after`` as SSE: the backlog, then live ones, until a terminal
    event."""
    async for event in follow_events(service, run_id, after):
        yield _sse(event)


async def follow_events(service: RunService, run_id: str, after: int) -> AsyncIterator[RunEvent]:
    """The run's events numbered above ``after``: the backlog, then live ones, until a terminal event (the
    Agent Protocol's streams stop earlier, at an interrupt, by leaving the loop)."""
    with service.broker.run_subscription(run_id) as queue:
        last = after
        backlog = await asyncio.to_thread(service.events.after, run_id, after)
        for event in backlog:
            last = event.seq
            yield event
        for event in service.unsaved_events(run_id, last):  # a final event a full disk kept in memory
            last = event.seq
            yield event
            if event.type in TERMINAL:
                return
        if service.relay is not None:  # a dropped listening connection catches up from here
            service.relay.watch(run_id, last)
        latest = await asyncio.to_thread(service.events.latest, run_id)
        # the client has the run's final event, unless a process executes the run again (a resume here, or
        # another process that claimed it and has not written its first event yet)
        final = latest is not None and latest.type in TERMINAL and latest.seq <= last
        if final and not service.busy(run_id) and not await _executed_elsewhere(service, run_id):
            return
        while True:
            try:
                live = await asyncio.wait_for(queue.get(), ELSEWHERE_POLL_S)
            except TimeoutError:
                if service.busy(run_id):
                    continue  # executing here: its events come through the queue
                if service.relay is not None:  # another worker's events come through the queue too
                    if await _ended(service, run_id, last):
                        return
                    continue
                # executed by another process (the CLI, another server): its events reach the log only
                later = await asyncio.to_thread(service.events.after, run_id, last)
                for event in later:
                    last = event.seq
                    yield event
                    if event.type in TERMINAL:
                        return
                if not later and await _ended(service, run_id, last):
                    return
                continue
            if live is CLOSED:
                return
            if live.seq <= last:
                continue
            last = live.seq
            yield live
            if live.type in TERMINAL:
                return


async def _ended(service: RunService, run_id: str, last: int) -> bool:
    """Whether the run stopped elsewhere without a new event: nobody executes it and the client has its
    final event (the other process let the run go)."""
    if await _executed_elsewhere(service, run_id):
        return False
    latest = await asyncio.to_thread(service.events.latest, run_id)
    return latest is not None and latest.type in TERMINAL and latest.seq <= last


async def _executed_elsewhere(service: RunService, run_id: str) -> bool:
    """Whether another process holds the run's lease (it executes the run, or is about to)."""
    holder = await asyncio.to_thread(service.leases.holder, run_id)
    return holder is not None and holder != service.leases.owner


def replay_start(after: int | None, last_event_id: str | None) -> int:
    if last_event_id is not None and last_event_id.strip():
        try:
            value = int(last_event_id.strip())
        except ValueError:
            message = f"Last-Event-ID must be an event number, got '{last_event_id}'"
            raise InvalidRequestError(message) from None
        if value < 0:
            raise InvalidRequestError("Last-Event-ID must not be negative")
        return value
    return after or 0


class RunVisibility:
    """Whether a request may see a run, by its id, remembered per stream (a run's collections, creator
    and privacy do not change; its memberships are the request's, read when it began)."""

    def __init__(self, runs: RunService, access: Access) -> None:
        self.runs = runs
        self.access = access
        self._known: dict[str, bool] = {}

    async def sees(self, run_id: str) -> bool:
        if self.access.unrestricted:
            return True
        if run_id not in self._known:
            try:
                record = await self.runs.runs.get(run_id, with_result=False)
            except RunNotFoundError:
                return False  # deleted before it could be checked: a run it may not have seen
            self._known[run_id] = self.access.sees_run(record)
        return self._known[run_id]


@router.get("/runs/events", response_class=EventStream, responses={**_SSE_ERRORS, 200: _SSE_GLOBAL})
async def run_list_changes(runs: RunServiceDep, access: AccessDep) -> EventSourceResponse:
    """Changes of the run list (live only), after a first ``ready`` event (subscribed), typed ``status``,
    ``phase`` or ``deleted``:
    ``{change, run_id, status, phase, seq}``; ``seq`` numbers the changes of this server process. In
    accounts mode, only the changes of runs the request may see."""
    seen = RunVisibility(runs, access)

    async def changes() -> AsyncIterator[ServerSentEvent]:
        with runs.broker.global_subscription() as queue:
            yield ServerSentEvent(data=json.dumps({"change": "ready"}), event="ready")
            while True:
                change: dict[str, Any] = await queue.get()
                if not await seen.sees(str(change.get("run_id", ""))):
                    continue
                yield ServerSentEvent(data=json.dumps(change), event=change["change"], id=str(change["seq"]))

    return EventSourceResponse(changes(), ping=PING_S)


@router.get("/runs/{run_id}/events", response_class=EventStream, responses={**_SSE_ERRORS, **_SSE})
async def run_events(
    run_id: str,
    runs: RunServiceDep,
    after: Annotated[int | None, Query(ge=0, le=2**62, description="Replay events after this.")] = None,
    last_event_id: Annotated[str | None, Header(description="Replay events after this.")] = None,
) -> EventSourceResponse:
    """The run's events as SSE, replayed from Last-Event-ID or ?after=N, then live."""
    await runs.runs.get(run_id, with_result=False)  # 404 before the stream starts
    return EventSourceResponse(follow(runs, run_id, replay_start(after, last_event_id)), ping=PING_S)
