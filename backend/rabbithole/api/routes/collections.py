"""Collections and their documents, including what the last ingestion could not read."""

from __future__ import annotations

from datetime import UTC, datetime

from fastapi import APIRouter
from pydantic import AwareDatetime, BaseModel

from rabbithole.api.deps import ServicesDep
from rabbithole.api.errors import responses

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


class DocumentOut(BaseModel):
    file_name: str
    title: str
    abbreviation: str
    pages: int
    chunks: int
    warnings: list[str]


class ProblemOut(BaseModel):
    file_name: str
    severity: str
    reason: str


class CollectionDetail(CollectionOut):
    document_list: list[DocumentOut]
    problems: list[ProblemOut]


@router.get("/collections", responses=responses())
def list_collections(services: ServicesDep) -> list[CollectionOut]:
    return [
        CollectionOut(
            name=c.name,
            embedding_model=c.embedding_model,
            documents=c.documents,
            chunks=c.chunks,
            updated_at=_utc(c.updated_at),
        )
        for c in services.catalog.list_collections()
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
        document_list=[
            DocumentOut(
                file_name=d.file_name,
                title=d.title,
                abbreviation=d.abbreviation,
                pages=d.page_count,
                chunks=d.chunks,
                warnings=d.warnings,
            )
            for d in services.catalog.documents(name)
        ],
        problems=[
            ProblemOut(file_name=p.file_name, severity=p.severity, reason=p.reason)
            for p in services.catalog.problems(name)
        ],
    )
