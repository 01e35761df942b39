"""A collection's documents: each with its status (ingested, or failed with the reason), deleting one,
its page texts with their character offsets (for highlighting quotes), and the collection's registry.

Documents are named by their file name inside the collection, a catalog key: nothing here touches a path."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Response
from fastapi import Path as PathParam
from pydantic import BaseModel
from starlette.concurrency import run_in_threadpool

from rabbithole.api.deps import ServicesDep
from rabbithole.api.errors import responses
from rabbithole.core.models import Chunk
from rabbithole.ingestion.formats import FormatName, ViewerKind, format_of
from rabbithole.registry.synonyms import title_and_abbreviation
from rabbithole.services import Services

router = APIRouter(tags=["documents"])


#: Document ids are SQLite integers; a larger number is a client's mistake, answered with 422.
MAX_DOCUMENT_ID = 2**62
DocumentId = Annotated[int, PathParam(ge=1, le=MAX_DOCUMENT_ID, description="The document's id.")]


class DocumentStatus(BaseModel):
    id: int | None  # None for a document that failed (it was never indexed)
    collection: str
    file_name: str
    #: its format by its name (ingestion/formats.py); null for a failed file of a type that is not read
    format: FormatName | None
    #: what the viewer shows: the original's pages (a PDF) or the stored text (the other formats)
    viewer: ViewerKind
    status: Literal["ingested", "failed"]
    reason: str | None  # why a failed document was not ingested
    title: str
    abbreviation: str
    language: str
    pages: int
    chunks: int
    warnings: list[str]


class PageSection(BaseModel):
    """A section with text on the page: its label ("§ 7"), heading and the headings it lies under, outermost
    first; start/end are document offsets (the section's text on every page it spans)."""

    label: str | None
    heading: str
    path: list[str]
    start: int
    end: int


class PageOut(BaseModel):
    number: int
    offset: int  # where the page's text starts in the document's text
    text: str
    sections: list[PageSection]  # the sections with text on this page, in order (their passages' headings)
    source: Literal["text", "ocr"] = "text"  # the PDF's text layer (or the file's text), or OCR of an image
    ocr_confidence: float | None = None  # OCR's mean word confidence in percent
    ocr_low_confidence: bool = False  # below ingestion.ocr.low_confidence: check quotes against the image


def _format(file_name: str) -> FormatName | None:
    fmt = format_of(file_name)
    return fmt.name if fmt is not None else None


def _viewer(file_name: str) -> ViewerKind:
    fmt = format_of(file_name)
    return fmt.viewer if fmt is not None else "pdf"


def _statuses(services: Services, name: str) -> list[DocumentStatus]:
    services.catalog.require_collection(name)
    ids = services.catalog.document_ids(name)
    listed = [
        DocumentStatus(
            id=ids.get(d.file_name),
            collection=name,
            file_name=d.file_name,
            format=_format(d.file_name),
            viewer=_viewer(d.file_name),
            status="ingested",
            reason=None,
            title=title,
            abbreviation=abbreviation,
            language=d.language,
            pages=d.page_count,
            chunks=d.chunks,
            warnings=d.warnings,
        )
        for d in services.catalog.documents(name)
        # the parsed title may end in its abbreviation ("... (AtG)"): said once, as the abbreviation
        for title, abbreviation in [title_and_abbreviation(d.title, d.abbreviation)]
    ]
    listed += [
        DocumentStatus(
            id=None,
            collection=name,
            file_name=p.file_name,
            format=_format(p.file_name),
            viewer=_viewer(p.file_name),
            status="failed",
            reason=p.reason,
            title="",
            abbreviation="",
            language="",
            pages=0,
            chunks=0,
            warnings=[],
        )
        for p in services.catalog.problems(name)
        if p.severity == "error"
    ]
    return sorted(listed, key=lambda d: d.file_name)


@router.get("/collections/{name}/documents", responses=responses(404))
async def list_documents(name: str, services: ServicesDep) -> list[DocumentStatus]:
    """Every document of the collection's folder as last ingested: ingested, or failed with the reason."""
    return await run_in_threadpool(_statuses, services, name)


@router.delete(
    "/collections/{name}/documents/{file_name}",
    status_code=204,
    response_class=Response,
    responses=responses(404, 503),
)
async def delete_document(name: str, file_name: str, services: ServicesDep) -> Response:
    """Remove one document from the index (its vectors, pages and chunks)."""
    await run_in_threadpool(services.delete_document, name, file_name)
    return Response(status_code=204)


PageQuery = Annotated[int | None, Query(ge=1, le=1_000_000, description="Only this page.")]


def _pages(services: Services, name: str, file_name: str, page: int | None) -> list[PageOut]:
    services.catalog.require_collection(name)
    pages = [p for p in services.catalog.pages(name, file_name) if page is None or p.number == page]
    sections = _sections(services.catalog.chunks(name, file_name)) if pages else []
    low = services.settings.ingestion.ocr.low_confidence
    return [
        PageOut(
            number=p.number,
            offset=p.offset,
            text=p.text,
            sections=[s for s in sections if s.start < p.offset + len(p.text) and s.end > p.offset],
            source="ocr" if p.source == "ocr" else "text",
            ocr_confidence=p.ocr_confidence,
            ocr_low_confidence=p.ocr_confidence is not None and p.ocr_confidence < low,
        )
        for p in pages
    ]


def _sections(chunks: list[Chunk]) -> list[PageSection]:
    """The document's sections as its chunks record them (a chunk never straddles two), in order."""
    out: list[PageSection] = []
    for chunk in chunks:
        last = out[-1] if out else None
        path = list(chunk.section_path)
        if last is not None and (last.label, last.heading, last.path) == (chunk.section, chunk.heading, path):
            last.end = max(last.end, chunk.end)
        else:
            out.append(
                PageSection(
                    label=chunk.section, heading=chunk.heading, path=path, start=chunk.start, end=chunk.end
                )
            )
    return out


@router.get("/collections/{name}/documents/{file_name}/pages", responses=responses(404))
async def document_pages(
    name: str, file_name: str, services: ServicesDep, page: PageQuery = None
) -> list[PageOut]:
    """The body text of each page, its character offset in the document's text (chunk and citation
    offsets refer to it) and the sections with text on it (label, heading, heading path). A DOCX, HTML,
    Markdown or text document's pages are parts of its text (ingestion.text_page_chars)."""
    return await run_in_threadpool(_pages, services, name, file_name, page)


@router.get("/documents/{document_id}", responses=responses(404))
async def get_document(document_id: DocumentId, services: ServicesDep) -> DocumentStatus:
    """One ingested document by its id (ids are in the collection's document list)."""

    def read() -> DocumentStatus:
        collection, _ = services.catalog.locate_document(document_id)
        return next(d for d in _statuses(services, collection) if d.id == document_id)

    return await run_in_threadpool(read)


@router.delete(
    "/documents/{document_id}", status_code=204, response_class=Response, responses=responses(404, 503)
)
async def delete_document_by_id(document_id: DocumentId, services: ServicesDep) -> Response:
    """Remove the document from the index (as DELETE /api/collections/{name}/documents/{file_name})."""

    def delete() -> None:
        services.delete_document(*services.catalog.locate_document(document_id))

    await run_in_threadpool(delete)
    return Response(status_code=204)


@router.get("/documents/{document_id}/pages", responses=responses(404))
async def document_pages_by_id(
    document_id: DocumentId, services: ServicesDep, page: PageQuery = None
) -> list[PageOut]:
    """The document's page texts with their offsets (as .../documents/{file_name}/pages)."""

    def read() -> list[PageOut]:
        collection, file_name = services.catalog.locate_document(document_id)
        return _pages(services, collection, file_name, page)

    return await run_in_threadpool(read)


@router.get("/collections/{name}/registry", responses=responses(404))
async def collection_registry(name: str, services: ServicesDep) -> dict[str, Any]:
    """The collection's document registry: titles, abbreviations and aliases references resolve to."""

    def read() -> dict[str, Any]:
        services.catalog.require_collection(name)
        return services.registry(name).to_dict()

    return await run_in_threadpool(read)


class RegistryFile(BaseModel):
    """What a collection's registry.yaml holds (see docs/references.md): per document, extra `synonyms`,
    names to `exclude`, and a `title` or `abbreviation` replacing the parsed one."""

    version: int = 1
    documents: dict[str, dict[str, Any]] = {}


@router.put("/collections/{name}/registry", responses=responses(404, 413))
async def replace_registry(name: str, body: RegistryFile, services: ServicesDep) -> dict[str, Any]:
    """Replace the collection's user registry file and rebuild the registry; the new registry. 422 with
    the file's problems (wrong types, unknown keys) when it is invalid."""

    def write() -> dict[str, Any]:
        return services.replace_registry_file(name, body.model_dump()).to_dict()

    return await run_in_threadpool(write)
