"""The reference graph of a collection: its documents and sections as nodes, the references between them
(and to laws outside the collection) as edges."""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter
from pydantic import BaseModel
from starlette.concurrency import run_in_threadpool

from rabbithole.api.deps import ServicesDep
from rabbithole.api.errors import responses

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
