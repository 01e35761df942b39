"""The reference graph of a collection: its documents and sections as nodes, the references between them
(and to laws outside the collection) as edges."""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter
from pydantic import BaseModel
from starlette.concurrency import run_in_threadpool

from rabbithole.api.deps import ServicesDep
from rabbithole.api.errors import responses
from rabbithole.references.resolver import ResolvedReference

router = APIRouter(tags=["references"])


class GraphNodeOut(BaseModel):
    id: str
    kind: Literal["document", "section", "external"]
    label: str
    document: str | None
    section: str | None
    title: str  # document title or section heading
    cites: int
    cited: int


class GraphEdgeOut(BaseModel):
    source: str
    target: str
    count: int
    internal: bool  # within one document
    mentions: list[str]


class ReferenceGraphOut(BaseModel):
    collection: str
    nodes: list[GraphNodeOut]
    edges: list[GraphEdgeOut]
    unresolved: dict[str, int]  # mentions no document of the collection answers, and how often
    stats: dict[str, int]


@router.get("/collections/{name}/references/graph", responses=responses(404))
async def reference_graph(name: str, services: ServicesDep) -> ReferenceGraphOut:
    """Built from the catalog on request (the same as `rabbithole references graph`)."""
    graph = await run_in_threadpool(services.reference_graph, name)
    return ReferenceGraphOut.model_validate(graph.to_dict())


class PassageReferenceOut(BaseModel):
    mention: str  # as written in the passage
    start: int  # character offsets of the mention in the passage's text
    end: int
    type: str  # section, article, paragraph, annex, document, ...
    document: str | None  # the target document (None: not in the collection)
    section: str | None  # the target section label ("§ 80"); None: the document as a whole
    sections: list[str]  # every label a range or division covers
    resolved: bool
    reason: str | None  # why it was not resolved (external, not locatable, ...)


@router.get(
    "/collections/{name}/passages/{chunk_id}/references",
    responses=responses(404, 409, 503),
)
async def passage_references(name: str, chunk_id: str, services: ServicesDep) -> list[PassageReferenceOut]:
    """The references in one passage (a search result's `chunk_id`), resolved against the collection."""
    resolved = await run_in_threadpool(services.passage_references, name, chunk_id)
    return [reference_out(r) for r in resolved]


def reference_out(r: ResolvedReference) -> PassageReferenceOut:
    """A resolved reference as the API and the MCP server show it."""
    return PassageReferenceOut(
        mention=r.reference.mention,
        start=r.reference.start,
        end=r.reference.end,
        type=str(r.reference.type.value),
        document=r.document,
        section=r.section,
        sections=list(r.labels),
        resolved=r.reason is None and r.document is not None,
        reason=r.reason.value if r.reason is not None else None,
    )
