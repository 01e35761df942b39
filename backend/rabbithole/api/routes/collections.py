"""Collections and their documents, including what the last ingestion could not read."""

from __future__ import annotations

from datetime import UTC, datetime

from fastapi import APIRouter, Response
from pydantic import AwareDatetime, BaseModel, Field
from starlette.concurrency import run_in_threadpool

from rabbithole.api.access import AccessDep
from rabbithole.api.deps import JobsDep, ServicesDep
from rabbithole.api.errors import responses
from rabbithole.api.jobs import IngestJob
from rabbithole.catalog.records import CollectionInfo, DocumentInfo
from rabbithole.registry.synonyms import title_and_abbreviation

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


class CollectionCreate(BaseModel):
    name: str = Field(min_length=1, max_length=60, description="1-60 letters, digits, '-', '_' or '.'.")


def collection_out(c: CollectionInfo) -> CollectionOut:
    return CollectionOut(
        name=c.name,
        embedding_model=c.embedding_model,
        documents=c.documents,
        chunks=c.chunks,
        updated_at=_utc(c.updated_at),
    )


class DocumentOut(BaseModel):
    file_name: str
    title: str
    abbreviation: str
    pages: int
    chunks: int
    warnings: list[str]


def document_out(d: DocumentInfo) -> DocumentOut:
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
    )


class ProblemOut(BaseModel):
    file_name: str
    severity: str
    reason: str


class CollectionDetail(CollectionOut):
    document_list: list[DocumentOut]
    problems: list[ProblemOut]
    vector_index_damage: str | None = Field(
        None,
        description="Why the collection's vector index was found damaged (its searches fail until "
        "POST /api/collections/{name}/rebuild rebuilt it); null when it is sound.",
    )


@router.get("/collections", responses=responses())
def list_collections(services: ServicesDep, access: AccessDep) -> list[CollectionOut]:
    """The collections the request may see (accounts mode: those of its memberships)."""
    return [
        CollectionOut(
            name=c.name,
            embedding_model=c.embedding_model,
            documents=c.documents,
            chunks=c.chunks,
            updated_at=_utc(c.updated_at),
        )
        for c in services.catalog.list_collections()
        if access.sees_collection(c.name)
    ]


@router.get("/collections/{name}", responses=responses(404))
def get_collection(name: str, services: ServicesDep) -> CollectionDetail:
    c = services.catalog.require_collection(name)
    return CollectionDetail(
        name=c.name,
        embedding_model=c.embedding_model,
        documents=c.documents,
        chunks=c.chunks,
        updated_at=_utc(c.updated_at),
        document_list=[document_out(d) for d in services.catalog.documents(name)],
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
    """An empty collection (documents come with `rabbithole ingest`); 409 if it exists. In accounts mode
    the account that creates it is its owner."""
    created = collection_out(await run_in_threadpool(services.create_collection, body.name))
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
