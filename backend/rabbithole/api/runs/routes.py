"""The run endpoints: create, list, read, resume, cancel, delete, and the report as JSON, Markdown and DOCX.
Progress streams (SSE) are in ``stream.py``. The run store is read in a thread (``AsyncRunStore``)."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

from fastapi import APIRouter, Query, Response, status
from fastapi.responses import PlainTextResponse

from rabbithole.api.access import AccessDep
from rabbithole.api.deps import RunServiceDep
from rabbithole.api.errors import responses
from rabbithole.api.runs.schemas import CreateRun, ResumeBody, RunCreated, RunDeleted, RunDetail, RunPage
from rabbithole.api.runs.views import run_detail
from rabbithole.core.errors import RunStateError
from rabbithole.research.export import DOCX_MEDIA_TYPE
from rabbithole.research.models import ResearchResult, RunStatus

router = APIRouter(tags=["runs"])

_DESCRIPTIONS = {
    404: "No such run (or collection).",
    409: "The run is not in a state that allows this.",
    422: "The request or payload is invalid (or does not fit the pending interrupt).",
}


def _errors(*codes: int) -> dict[int | str, dict[str, Any]]:
    """The common error responses plus ``codes``, all with the one JSON error body (also on routes whose
    success is not JSON), described for runs."""
    ref = {"$ref": "#/components/schemas/ErrorResponse"}
    out: dict[int | str, dict[str, Any]] = {}
    for code, response in responses(*codes).items():
        description = _DESCRIPTIONS.get(int(code), str(response["description"]))
        out[code] = {"description": description, "content": {"application/json": {"schema": ref}}}
    return out


@router.post("/runs", status_code=status.HTTP_201_CREATED, responses=_errors(404, 422))
async def create_run(body: CreateRun, runs: RunServiceDep, access: AccessDep) -> RunCreated:
    """Start a research run in the background: it executes whether or not a client watches it. In accounts
    mode it belongs to the account that starts it, which must be a member of every collection it names;
    `private`: only that account (and administrators) see it, not the collections' other members."""
    for collection in body.collections:
        access.require_collection(collection, "read")
    record = await runs.create(
        body.question,
        body.collections,
        body.mode,
        body.overrides(),
        created_by=access.user_id,
        private=body.private,
    )
    return RunCreated(run_id=record.id, status=record.status)


@router.get("/runs", responses=_errors(422))
async def list_runs(
    runs: RunServiceDep,
    access: AccessDep,
    run_status: Annotated[list[RunStatus] | None, Query(alias="status", description="Only these.")] = None,
    question: Annotated[
        str | None,
        Query(
            alias="q",
            max_length=200,
            description="Only runs whose question contains this text (case ignored; on SQLite for A-Z only).",
        ),
    ] = None,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
    offset: Annotated[int, Query(ge=0, le=1_000_000_000)] = 0,
) -> RunPage:
    """Runs, newest first; `total` counts the runs that match the filters (accounts mode: of the runs the
    request may see)."""
    if access.unrestricted:
        records = await runs.runs.list(status=run_status, question=question, limit=limit, offset=offset)
        total = await runs.runs.count(status=run_status, question=question)
    else:
        visible = await runs.runs.visible(access.sees_run, status=run_status, question=question)
        records, total = list(visible[offset : offset + limit]), len(visible)
    return RunPage(items=[r.summary() for r in records], total=total, limit=limit, offset=offset)


@router.get("/runs/{run_id}", responses=_errors(404))
async def get_run(run_id: str, runs: RunServiceDep) -> RunDetail:
    return await run_detail(runs, run_id)


@router.post("/runs/{run_id}/resume", status_code=status.HTTP_202_ACCEPTED, responses=_errors(404, 409, 422))
async def resume_run(run_id: str, body: ResumeBody, runs: RunServiceDep) -> RunCreated:
    """Answer the pending interrupt ({"answer": ...}, {"tasks": null | [...]} or, in report mode,
    {"action": "approve" | "edit" | "feedback", ...}), or continue a stopped run ({}). A second answer to
    the same interrupt gets 409."""
    record = await runs.resume(run_id, body)
    return RunCreated(run_id=record.id, status=record.status)


@router.post("/runs/{run_id}/cancel", responses=_errors(404, 409))
async def cancel_run(run_id: str, runs: RunServiceDep) -> RunCreated:
    record = await runs.cancel(run_id)
    return RunCreated(run_id=record.id, status=record.status)


@router.delete("/runs/{run_id}", responses=_errors(404))
async def delete_run(run_id: str, runs: RunServiceDep) -> RunDeleted:
    await runs.delete(run_id)
    return RunDeleted(run_id=run_id)


async def _result(runs: RunServiceDep, run_id: str) -> ResearchResult:
    record = await runs.runs.get(run_id)
    if record.result is None:
        raise RunStateError(f"run {run_id} is {record.status}; its report is not ready")
    return record.result


@router.get("/runs/{run_id}/report", responses=_errors(404, 409))
async def get_report(run_id: str, runs: RunServiceDep) -> ResearchResult:
    return await _result(runs, run_id)


@router.get(
    "/runs/{run_id}/report.md",
    response_class=PlainTextResponse,
    responses={**_errors(404, 409), 200: {"content": {"text/markdown": {"schema": {"type": "string"}}}}},
)
async def get_report_markdown(run_id: str, runs: RunServiceDep) -> Response:
    return Response((await _result(runs, run_id)).report_markdown, media_type="text/markdown; charset=utf-8")


@router.get(
    "/runs/{run_id}/report.docx",
    response_class=Response,
    responses={
        **_errors(404, 409),
        200: {
            "description": "The report as a Word document.",
            "content": {DOCX_MEDIA_TYPE: {"schema": {"type": "string", "format": "binary"}}},
        },
    },
)
async def get_report_docx(run_id: str, runs: RunServiceDep) -> Response:
    """The report as a Word document (sections, [n] citations, sources with verified quotes, warnings,
    quality), downloaded as ``rabbithole-<run id>.docx``."""
    from rabbithole.research.export.docx import docx_bytes

    return Response(
        await asyncio.to_thread(docx_bytes, await _result(runs, run_id)),
        media_type=DOCX_MEDIA_TYPE,
        headers={"Content-Disposition": f'attachment; filename="rabbithole-{run_id}.docx"'},
    )
