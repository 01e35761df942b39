"""GET /api/jobs/{id}/events: an ingestion job's progress as server-sent events, replayed from
Last-Event-ID or ?after=N, then live until ``done``; the stream ends at once when the client already has
``done``. Heartbeats (SSE comments) keep an idle connection open."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Annotated, Any

from fastapi import APIRouter, Header, Query
from sse_starlette import EventSourceResponse, ServerSentEvent

from rabbithole.api.deps import JobsDep
from rabbithole.api.errors import responses
from rabbithole.api.job_events import JOB_EVENT_TYPES, POLL_S, JobEvent
from rabbithole.api.jobs import JobRegistry
from rabbithole.api.runs.stream import PING_S, SSE_EVENT_SCHEMA, replay_start

router = APIRouter(tags=["documents"])


def _json_error(description: str) -> dict[str, Any]:
    ref = {"$ref": "#/components/schemas/ErrorResponse"}
    return {"description": description, "content": {"application/json": {"schema": ref}}}


_RESPONSES: dict[int | str, dict[str, Any]] = {
    **{code: _json_error(str(r["description"])) for code, r in responses().items()},
    404: _json_error("No such job."),
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
    """The job's events numbered above ``after``: the stored ones, then each as it is stored (woken by
    this process's ingestion, or every ``POLL_S`` for a job another process executes), until ``done``.
    A job whose executing process stopped is ended as failed (``done``) while it is followed."""
    with jobs.events.subscription(job_id) as woken:
        last = after
        earlier = await asyncio.to_thread(jobs.events.after, job_id, 0) if after > 0 else []
        if any(e.type == "done" and e.seq <= after for e in earlier):
            return  # the client already has the job's final event
        while True:
            woken.clear()
            for event in await asyncio.to_thread(jobs.events.after, job_id, last):
                last = event.seq
                yield _sse(event)
                if event.type == "done":
                    return
            try:
                await asyncio.wait_for(woken.wait(), POLL_S)
            except TimeoutError:
                await asyncio.to_thread(jobs.get, job_id)  # ends the job if its process stopped


@router.get("/jobs/{job_id}/events", response_class=EventSourceResponse, responses=_RESPONSES)
async def job_events(
    job_id: str,
    jobs: JobsDep,
    after: Annotated[int | None, Query(ge=0, le=2**62, description="Replay events after this.")] = None,
    last_event_id: Annotated[str | None, Header(description="Replay events after this.")] = None,
) -> EventSourceResponse:
    """An ingestion job's progress per file (queued, parsing, embedding, ingested, unchanged, failed with
    its reason), then ``done``: replayed from Last-Event-ID or ?after=N, then live."""
    await asyncio.to_thread(jobs.get, job_id)  # 404 before the stream starts
    return EventSourceResponse(follow_job(jobs, job_id, replay_start(after, last_event_id)), ping=PING_S)
