"""OCR languages: those Tesseract can read here (for a collection's setting, PATCH
/api/collections/{name}), and reading a collection's documents again in its languages."""

from __future__ import annotations

from fastapi import APIRouter
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

from rabbithole.api.deps import JobsDep, ServicesDep
from rabbithole.api.errors import responses
from rabbithole.api.jobs import IngestJob
from rabbithole.ingestion.ocr.tesseract import TesseractError, installed_languages, unavailable_reason

router = APIRouter(tags=["collections"])


class OcrLanguagesOut(BaseModel):
    installed: list[str] = Field(
        description="The Tesseract languages installed here (codes as `tesseract --list-langs` gives them, "
        "without osd), sorted: what a collection may read its scans in."
    )
    default: list[str] = Field(
        description="The server's default (ingestion.ocr.languages): what a collection without its own "
        "setting reads in."
    )
    unavailable: str | None = Field(
        description="Why OCR cannot run here with the default languages (Tesseract or its data missing, "
        "with the command that installs it, or OCR switched off); null when it can."
    )


@router.get("/ocr/languages", responses=responses())
async def ocr_languages(services: ServicesDep) -> OcrLanguagesOut:
    ocr = services.settings.ingestion.ocr
    try:
        installed = await run_in_threadpool(installed_languages)
    except TesseractError:
        installed = ()  # the reason says why, with the fix
    reason = await run_in_threadpool(unavailable_reason, tuple(ocr.languages))
    if not ocr.enabled:
        reason = "OCR is switched off (ingestion.ocr.enabled)"
    return OcrLanguagesOut(installed=list(installed), default=list(ocr.languages), unavailable=reason)


@router.post("/collections/{name}/ocr/reread", status_code=202, responses=responses(404, 409, 503))
async def reread_collection(name: str, jobs: JobsDep) -> IngestJob:
    """Read the collection's documents that OCR read in other languages (its ocr_read_otherwise) again,
    from their original files, in its OCR languages now: an ingestion job as an upload's (follow it at
    GET /api/jobs/{id}); a document whose original is gone is listed as rejected, with the reason. 409 when
    there is none to read again. Editors and owners."""
    return await jobs.start_reread(name)
