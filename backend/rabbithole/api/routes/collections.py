"""Collections and their documents, including what the last ingestion could not read."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated

from fastapi import APIRouter, Response
from pydantic import AwareDatetime, BaseModel, Field
from starlette.concurrency import run_in_threadpool

from rabbithole.api.access import Access, AccessDep
from rabbithole.api.deps import JobsDep, ServicesDep
from rabbithole.api.errors import responses
from rabbithole.api.jobs import IngestJob
from rabbithole.catalog.records import CollectionInfo, DocumentInfo
from rabbithole.core.config.ocr import OcrSettings
from rabbithole.ingestion.ocr.collection_ocr import collection_ocr
from rabbithole.ingestion.ocr.languages import MAX_LANGUAGES, effective_languages
from rabbithole.registry.synonyms import title_and_abbreviation
from rabbithole.services import Services

router = APIRouter(tags=["collections"])


def _utc(moment: datetime) -> datetime:
    """The catalog stores UTC without a zone; the API says so."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


class CollectionOut(BaseModel):
    name: str
    embedding_model: str
    documents: int
    chunks: int
    updated_at: AwareDatetime
    ocr_languages: list[str] = Field(
        description="The Tesseract languages its scanned pages and images are read in, in order: its own, "
        "or the server's default (ingestion.ocr.languages)."
    )
    ocr_languages_own: bool = Field(
        description="Whether ocr_languages is the collection's own setting (false: the server's default)."
    )


OcrLanguageCodes = Annotated[
    list[str],
    Field(
        max_length=MAX_LANGUAGES,
        description="Tesseract language codes to read its scans in, in order (GET /api/ocr/languages lists "
        "those installed); [] = the server's default (ingestion.ocr.languages). 422 for a code Tesseract has "
        "no data for here.",
    ),
]


class CollectionCreate(BaseModel):
    name: str = Field(min_length=1, max_length=60, description="1-60 letters, digits, '-', '_' or '.'.")
    ocr_languages: OcrLanguageCodes = []


class CollectionSettings(BaseModel):
    """What PATCH /api/collections/{name} changes."""

    ocr_languages: OcrLanguageCodes = []


def collection_out(c: CollectionInfo, ocr: OcrSettings) -> CollectionOut:
    """The collection as listed; ``ocr``: the server's OCR settings (its default languages)."""
    return CollectionOut(
        name=c.name,
        embedding_model=c.embedding_model,
        documents=c.documents,
        chunks=c.chunks,
        updated_at=_utc(c.updated_at),
        ocr_languages=list(effective_languages(c.ocr_languages, ocr)),
        ocr_languages_own=bool(c.ocr_languages),
    )


class DocumentOut(BaseModel):
    file_name: str
    title: str
    abbreviation: str
    pages: int
    chunks: int
    warnings: list[str]
    ocr_languages: list[str] = Field(
        default_factory=list,
        description="The languages its pages read by OCR were read in; [] when none was (or not recorded).",
    )


def document_out(d: DocumentInfo, ocr_languages: tuple[str, ...] = ()) -> DocumentOut:
    """A document as listed: a parsed title that ends in its abbreviation ("... (AtG)") without it, since
    the abbreviation is said beside it."""
    title, abbreviation = title_and_abbreviation(d.title, d.abbreviation)
    return DocumentOut(
        file_name=d.file_name,
        title=title,
        abbreviation=abbreviation,
        pages=d.page_count,
        chunks=d.chunks,
        warnings=d.warnings,
        ocr_languages=list(ocr_languages),
    )


class ProblemOut(BaseModel):
    file_name: str
    severity: str
    reason: str


class CollectionDetail(CollectionOut):
    document_list: list[DocumentOut]
    problems: list[ProblemOut]
    ocr_read_otherwise: list[str] = Field(
        description="The documents OCR read in other languages than ocr_languages (or in languages not "
        "recorded): POST /api/collections/{name}/ocr/reread reads them again."
    )
    may_write: bool = Field(
        description="Whether this request may change the collection (upload and delete documents, change its "
        "settings, read documents again): editors and owners in accounts mode, everyone otherwise."
    )
    vector_index_damage: str | None = Field(
        None,
        description="Why the collection's vector index was found damaged (its searches fail until "
        "POST /api/collections/{name}/rebuild rebuilt it); null when it is sound.",
    )


@router.get("/collections", responses=responses())
def list_collections(services: ServicesDep, access: AccessDep) -> list[CollectionOut]:
    """The collections the request may see (accounts mode: those of its memberships)."""
    ocr = services.settings.ingestion.ocr
    infos = services.catalog.list_collections()
    return [collection_out(c, ocr) for c in infos if access.sees_collection(c.name)]


@router.get("/collections/{name}", responses=responses(404))
def get_collection(name: str, services: ServicesDep, access: AccessDep) -> CollectionDetail:
    return collection_detail(services, name, access)


@router.patch("/collections/{name}", responses=responses(404, 422))
async def change_collection(
    name: str, body: CollectionSettings, services: ServicesDep, access: AccessDep
) -> CollectionDetail:
    """Change the collection's settings: the OCR languages its scans are read in from now on (422 naming
    a code Tesseract cannot read here, and the installed ones). Documents read before keep their text:
    the answer's ocr_read_otherwise lists them, POST .../ocr/reread reads them again. Editors and owners."""
    await run_in_threadpool(services.set_ocr_languages, name, body.ocr_languages)
    return await run_in_threadpool(collection_detail, services, name, access)


def collection_detail(services: Services, name: str, access: Access) -> CollectionDetail:
    c = services.catalog.require_collection(name)
    listed = collection_out(c, services.settings.ingestion.ocr)
    ocr = collection_ocr(services.catalog, services.settings.ingestion.ocr, name, c.ocr_languages)
    documents = services.catalog.documents(name)
    return CollectionDetail(
        **listed.model_dump(),
        ocr_read_otherwise=sorted(ocr.read_otherwise),
        may_write=access.allows(name, "write"),
        document_list=[document_out(d, ocr.read_by_ocr.get(d.file_name, ())) for d in documents],
        problems=[
            ProblemOut(file_name=p.file_name, severity=p.severity, reason=p.reason)
            for p in services.catalog.problems(name)
        ],
        vector_index_damage=services.store.damaged().get(name),
    )


@router.post("/collections", status_code=201, responses=responses(409, 413, 503))
async def create_collection(
    body: CollectionCreate, services: ServicesDep, access: AccessDep
) -> CollectionOut:
    """An empty collection (documents come with uploads or `rabbithole ingest`), reading its scans in
    ocr_languages; 409 if it exists, 422 for an OCR language Tesseract cannot read here. In accounts mode
    the account that creates it is its owner."""
    info = await run_in_threadpool(services.create_collection, body.name, body.ocr_languages)
    created = collection_out(info, services.settings.ingestion.ocr)
    if access.user_id is not None:
        await run_in_threadpool(services.accounts.memberships.set, created.name, access.user_id, "owner")
    return created


@router.delete("/collections/{name}", status_code=204, response_class=Response, responses=responses(404, 503))
async def delete_collection(name: str, services: ServicesDep) -> Response:
    """The collection's index: vectors, documents, pages, chunks, problems, registry. Files stay."""
    await run_in_threadpool(services.delete_collection, name)
    if services.settings.server.auth_mode == "accounts":  # a new collection of that name starts afresh
        await run_in_threadpool(services.accounts.memberships.forget_collection, name)
    return Response(status_code=204)


@router.post("/collections/{name}/rebuild", status_code=202, responses=responses(404, 409, 503))
async def rebuild_collection(name: str, services: ServicesDep, jobs: JobsDep) -> IngestJob:
    """Rebuild the collection's vectors from the catalog (the repair of a damaged vector index; the
    documents and their texts are kept), as a job with a file entry per document: follow it at
    GET /api/jobs/{id}. It waits for the collection's uploads before it."""
    await run_in_threadpool(services.catalog.require_collection, name)
    return await jobs.start_rebuild(name)
