"""GET /health: liveness plus what a monitor needs to know about the knowledge base."""

from __future__ import annotations

from fastapi import APIRouter
from pydantic import BaseModel

from rabbithole import __version__
from rabbithole.api.deps import ServicesDep


class HealthResponse(BaseModel):
    status: str
    version: str
    collections: int
    embedding_model: str
    llm_model: str
    llm_base_url: str


router = APIRouter(tags=["health"])


@router.get("/health")
def health(services: ServicesDep) -> HealthResponse:
    settings = services.settings
    return HealthResponse(
        status="ok",
        version=__version__,
        collections=len(services.catalog.list_collections()),
        embedding_model=services.embedding_model_id,
        llm_model=settings.llm.model,
        llm_base_url=settings.llm.resolved_base_url,
    )
