"""GET /api/jobs/{id}/events: an ingestion job's progress as server-sent events, replayed from
Last-Event-ID or ?after=N, then live until ``done``; the stream ends at once when the client already has
``done``. Heartbeats (SSE comments) keep an idle connection open."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Annotated, Any

from fastapi import APIRouter, Header, Query
from sse_starlette import EventSourceResponse, ServerSentEvent

from rabbithole.api.deps import JobsDep
from rabbithole.api.errors import responses
from rabbithole.api.job_events import JOB_EVENT_TYPES, JobEvent
from rabbithole.api.jobs import JobRegistry
from rabbithole.api.runs.stream import PING_S, SSE_EVENT_SCHEMA, replay_start

router = APIRouter(tags=["documents"])


def _json_error(description: str) -> dict[str, Any]:
    ref = {"$ref": "#/components/schemas/ErrorResponse"}
    return {"description": description, "content": {"application/json": {"schema": ref}}}


_RESPONSES: dict[int | str, dict[str, Any]] = {
    **{code: _json_error(str(r["description"])) for code, r in responses().items()},
    404: _json_error("No such job (jobs live as long as the server process)."),
    422: _json_error("Bad Last-Event-ID or ?after."),
    200: {
        "description": "A stream of server-sent events: `id` is the event's number, `event` its type, `data` "
        "a JSON object (JobEvent: `seq`, `type`, `job_id`, `created_at`, `file_name`, `reason`, `status`, "
        f"`done`, `total`). Types: {', '.join(JOB_EVENT_TYPES)}.",
        "content": {"text/event-stream": {"schema": SSE_EVENT_SCHEMA}},
    },
}


def _sse(event: JobEvent) -> ServerSentEvent:
    return ServerSentEvent(data=event.model_dump_json(), event=event.type, id=str(event.seq))


async def follow_job(jobs: JobRegistry, job_id: str, after: int) -> AsyncIterator[ServerSentEvent]:
    """The job's events numbered above ``after``: the backlog, then live ones, until ``done``."""
    with jobs.events.subscription(job_id) as queue:
        last = after
        for event in jobs.events.after(job_id, after):
            last = event.seq
            yield _sse(event)
            if event.type == "done":
                return
        if any(e.type == "done" for e in jobs.events.after(job_id, 0)):
            return  # the client already has the job's final event
        while True:
            live = await queue.get()
            if live.seq <= last:
                continue
            last = live.seq
            yield _sse(live)
            if live.type == "done":
                return


@router.get("/jobs/{job_id}/events", response_class=EventSourceResponse, responses=_RESPONSES)
async def job_events(
    job_id: str,
    jobs: JobsDep,
    after: Annotated[int | None, Query(ge=0, le=2**62, description="Replay events after this.")] = None,
    last_event_id: Annotated[str | None, Header(description="Replay events after this.")] = None,
) -> EventSourceResponse:
    """An ingestion job's progress per file (queued, parsing, embedding, ingested, unchanged, failed with
    its reason), then ``done``: replayed from Last-Event-ID or ?after=N, then live."""
    jobs.get(job_id)  # 404 before the stream starts
    return EventSourceResponse(follow_job(jobs, job_id, replay_start(after, last_event_id)), ping=PING_S)
