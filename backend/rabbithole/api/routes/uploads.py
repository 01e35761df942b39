"""Uploading documents into a collection (an ingestion job with progress), serving a document's PDF (for the
viewer) and its original file (a download, any format).

Each file of a batch is checked and stored on its own (by its name's format checked against its content, a
PDF by its content alone, within ingestion.max_file_mb): an empty file, one of no format read or one that
cannot be written is reported as rejected and the others are kept and ingested."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, File, UploadFile
from fastapi.responses import FileResponse
from starlette.concurrency import run_in_threadpool

from rabbithole.api.deps import JobsDep, ServicesDep
from rabbithole.api.errors import responses
from rabbithole.api.jobs import IngestJob, JobFile
from rabbithole.api.routes.documents import DocumentId
from rabbithole.core.errors import DocumentNotFoundError, InvalidRequestError, StoreError
from rabbithole.ingestion.formats import FORMATS, format_of
from rabbithole.ingestion.uploads import client_file_name, safe_file_name, upload_suffix
from rabbithole.services import Services

log = logging.getLogger(__name__)
router = APIRouter(tags=["documents"])

FILE_RESPONSES: dict[int | str, dict[str, Any]] = {
    **responses(404),
    200: {
        "content": {fmt.media_type: {} for fmt in FORMATS},
        "description": "The original file (Content-Disposition: attachment).",
    },
}
PDF_RESPONSES: dict[int | str, dict[str, Any]] = {
    **responses(404, 416),
    200: {"content": {"application/pdf": {}}, "description": "The PDF."},
    206: {"content": {"application/pdf": {}}, "description": "The requested byte range (Range)."},
}


@router.post(
    "/collections/{name}/documents",
    status_code=202,
    responses=responses(404, 413, 503),
)
async def upload_documents(
    name: str,
    files: Annotated[
        list[UploadFile], File(description="One or more files: PDF, DOCX, HTML, Markdown or plain text.")
    ],
    services: ServicesDep,
    jobs: JobsDep,
) -> IngestJob:
    """Store the files and ingest them in the background; follow the job at GET /api/jobs/{id}. Files that
    are empty, of no format read (a .docx or .pdf name whose content is something else, or an unknown
    type whose content is no PDF), too large or that cannot be stored are listed as rejected, under the
    name they were sent with and with the reason; 422 when no file can be ingested, 503 when none could
    be stored."""
    await run_in_threadpool(services.catalog.require_collection, name)
    limit = int(services.settings.ingestion.max_file_mb * 1024 * 1024)
    accepted: dict[str, bytes] = {}
    rejected: list[JobFile] = []
    for upload in files:
        content = await upload.read(limit + 1)
        suffix, reason = upload_suffix(upload.filename, content)
        if len(content) > limit:
            suffix, reason = (
                None,
                f"larger than ingestion.max_file_mb ({services.settings.ingestion.max_file_mb:g} MB)",
            )
        if suffix is not None:  # a later file of the same name replaces an earlier one
            accepted[safe_file_name(upload.filename, suffix)] = content
        else:  # reported under the name the user gave it, never given a suffix it does not have
            refused = JobFile(file_name=client_file_name(upload.filename), status="rejected", reason=reason)
            rejected.append(refused)
    if not accepted:
        reasons = "; ".join(f"{f.file_name}: {f.reason}" for f in rejected)
        raise InvalidRequestError(f"no file of the upload can be ingested ({reasons})")
    stored: list[tuple[str, Path]] = []
    for file_name, content in accepted.items():
        try:
            stored.append(
                (file_name, await run_in_threadpool(services.uploads.save, name, file_name, content))
            )
        except OSError as exc:  # each file on its own: one that cannot be written loses no other
            log.warning("upload %r of collection %r not stored: %s", file_name, name, exc)
            reason = f"could not be stored ({exc.strerror or type(exc).__name__})"
            rejected.append(JobFile(file_name=file_name, status="rejected", reason=reason))
    if not stored:
        reasons = "; ".join(f"{f.file_name}: {f.reason}" for f in rejected)
        raise StoreError(f"no file of the upload could be stored ({reasons})")
    return await jobs.start(name, services.uploads.folder(name), stored, rejected)


@router.get("/jobs/{job_id}", responses=responses(404))
async def get_job(job_id: str, jobs: JobsDep) -> IngestJob:
    """An ingestion job: running, done or failed; each file ingested, unchanged, failed or rejected."""
    return await run_in_threadpool(jobs.get, job_id)


@router.get(
    "/collections/{name}/documents/{file_name}/pdf",
    response_class=FileResponse,
    responses=PDF_RESPONSES,
)
async def document_pdf(name: str, file_name: str, services: ServicesDep) -> FileResponse:
    """The PDF of a document, with HTTP Range support (a viewer jumps to a page without
    loading the whole file); also a document `rabbithole ingest` read from a folder. 404 for a document
    that is no PDF (a DOCX, HTML, Markdown or text file: its original is at .../file)."""
    return await run_in_threadpool(_pdf, services, name, file_name)


@router.get("/documents/{document_id}/pdf", response_class=FileResponse, responses=PDF_RESPONSES)
async def document_pdf_by_id(document_id: DocumentId, services: ServicesDep) -> FileResponse:
    """The PDF of the document with this id (uploaded or ingested from a folder), with HTTP Range support."""

    def find() -> FileResponse:
        return _pdf(services, *services.catalog.locate_document(document_id))

    return await run_in_threadpool(find)


@router.get(
    "/collections/{name}/documents/{file_name}/file",
    response_class=FileResponse,
    responses=FILE_RESPONSES,
)
async def document_file(name: str, file_name: str, services: ServicesDep) -> FileResponse:
    """The file the document was ingested from, whatever its format (PDF, DOCX, HTML, Markdown, text), as a
    download (Content-Disposition: attachment) with its format's media type."""

    def find() -> FileResponse:
        path = source_file(services, name, file_name)
        fmt = format_of(file_name)
        media_type = fmt.media_type if fmt is not None else "application/octet-stream"
        return FileResponse(
            path, media_type=media_type, filename=file_name, content_disposition_type="attachment"
        )

    return await run_in_threadpool(find)


def _pdf(services: Services, name: str, file_name: str) -> FileResponse:
    fmt = format_of(file_name)
    if fmt is not None and fmt.name != "pdf":
        services.catalog.require_collection(name)
        raise DocumentNotFoundError(
            f"'{file_name}' is a {fmt.label} document, not a PDF; its original file is at "
            f"/api/collections/{name}/documents/{file_name}/file"
        )
    return FileResponse(
        source_file(services, name, file_name),
        media_type="application/pdf",
        filename=file_name,
        content_disposition_type="inline",
    )


def source_file(services: Services, name: str, file_name: str) -> Path:
    """The file the document was ingested from, as the catalog recorded it (an upload or a file of an
    ingested folder): never a path a client gave. Refused when it is gone or no longer the ingested file."""
    services.catalog.require_collection(name)
    if file_name not in services.catalog.document_hashes(name):
        raise DocumentNotFoundError(f"no document '{file_name}' in collection '{name}'")
    source = services.catalog.document_source(name, file_name)
    if source is not None:
        path, size = source
        if not path.is_file() or path.stat().st_size != size:
            raise DocumentNotFoundError(
                f"the file of '{file_name}' is no longer where it was ingested from, or it changed since; "
                "ingest the collection again"
            )
        return path
    uploaded = services.uploads.find(name, file_name)  # ingested before the catalog recorded sources
    if uploaded is None:
        raise DocumentNotFoundError(f"the file of '{file_name}' is unknown; ingest the collection again")
    return uploaded
