"""GET /health: whether the server is ready, and the state of what it depends on: the LLM server and its
models (with the command that fetches a missing one), the embedding model, the vector store, the database."""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter
from pydantic import BaseModel
from starlette.concurrency import run_in_threadpool

from rabbithole import __version__
from rabbithole.api.access import AccessDep
from rabbithole.api.deps import ReadinessDep, ServicesDep
from rabbithole.api.errors import responses
from rabbithole.api.readiness import Readiness
from rabbithole.core.errors import DamagedIndexError
from rabbithole.llm.health import LLMStatus, model_listed, probe
from rabbithole.services import Services

#: How long /health waits for the LLM server.
LLM_PROBE_TIMEOUT_S = 2.0


class ModelStatus(BaseModel):
    name: str
    role: Literal["chat", "fallback", "embedding"]
    present: bool | None  # None: unknown (the server could not be reached)
    fix: str | None  # the command that fetches a missing model


class LLMHealth(BaseModel):
    provider: str
    base_url: str
    reachable: bool
    error: str | None
    models: list[ModelStatus]


class ComponentHealth(BaseModel):
    ok: bool
    detail: str


class UnavailableCollection(BaseModel):
    """A collection whose searches fail, and why (with the command or request that repairs it)."""

    name: str
    reason: str


class HealthResponse(BaseModel):
    status: Literal["starting", "ready", "degraded", "failed"]
    ready: bool
    version: str
    collections: int
    embedding_model: str
    warm_up_error: str | None
    llm: LLMHealth
    store: ComponentHealth
    database: ComponentHealth
    unavailable_collections: list[UnavailableCollection]


router = APIRouter(tags=["health"])


def _model(name: str, role: Literal["chat", "fallback", "embedding"], status: LLMStatus) -> ModelStatus:
    if not status.reachable:
        return ModelStatus(name=name, role=role, present=None, fix=None)
    present = model_listed(name, status.models)
    fix = None if present or status.provider != "ollama" else f"ollama pull {name}"
    return ModelStatus(name=name, role=role, present=present, fix=fix)


def _llm_health(services: Services) -> LLMHealth:
    settings = services.settings
    status = probe(settings.llm, settings.llm.resolved_base_url, timeout_s=LLM_PROBE_TIMEOUT_S)
    models = [_model(settings.llm.model, "chat", status)]
    if settings.llm.fallback_model:
        models.append(_model(settings.llm.fallback_model, "fallback", status))
    if settings.embeddings.provider == "ollama":
        models.append(_model(settings.embeddings.model, "embedding", status))
    return LLMHealth(
        provider=status.provider,
        base_url=status.base_url,
        reachable=status.reachable,
        error=status.error,
        models=models,
    )


def _database(services: Services) -> tuple[ComponentHealth, int]:
    """The catalog's database: its file's name, or its PostgreSQL URL without the password."""
    try:
        count = len(services.catalog.list_collections())
    except Exception as exc:
        detail = f"{type(exc).__name__}: {exc}"
        password = services.catalog.engine.url.password
        if password:
            detail = detail.replace(str(password), "***")
        return ComponentHealth(ok=False, detail=detail), 0
    return ComponentHealth(ok=True, detail=services.catalog.location), count


def _store(services: Services) -> ComponentHealth:
    try:
        alive = services.store.heartbeat()
    except Exception as exc:
        return ComponentHealth(ok=False, detail=f"{type(exc).__name__}: {exc}")
    mode = services.store.location
    damaged = services.store.damaged()
    if alive and damaged:
        names = ", ".join(sorted(damaged))
        return ComponentHealth(ok=False, detail=f"chroma ({mode}); damaged vector indexes: {names}")
    return ComponentHealth(ok=alive, detail=f"chroma ({mode})" if alive else f"chroma ({mode}) not answering")


def _unavailable(services: Services, readiness: Readiness) -> list[UnavailableCollection]:
    """The collections the warm-up could not load, and those whose index is recorded damaged (found by
    another process, or since the warm-up), each with its reason."""
    present = {c.name for c in services.catalog.list_collections()}
    reasons = {
        name: reason
        for name, (revision, reason) in readiness.collection_errors.items()
        if name in present and services.catalog.revision(name) == revision
    }
    if readiness.ready:
        for name, reason in services.store.damaged().items():
            reasons[name] = str(DamagedIndexError(name, reason))
    return [UnavailableCollection(name=n, reason=r) for n, r in sorted(reasons.items())]


@router.get("/health", responses=responses())
async def health(services: ServicesDep, readiness: ReadinessDep, access: AccessDep) -> HealthResponse:
    """`ready` once the search stack is loaded; `degraded` when the LLM server, a configured model, the
    store or the database is missing, or a collection cannot be searched (each part says what and how to
    fix it)."""
    llm = await run_in_threadpool(_llm_health, services)
    database, collections = await run_in_threadpool(_database, services)
    store = await run_in_threadpool(_store, services) if readiness.ready else _pending_store(readiness)
    unavailable = await run_in_threadpool(_unavailable, services, readiness)
    unavailable = [u for u in unavailable if access.sees_collection(u.name)]  # accounts: its own only
    if not access.unrestricted:  # accounts mode: how many collections it may use, not how many there are
        collections = len(access.roles)
    state = readiness.state
    if state == "ready":
        healthy = (
            llm.reachable
            and all(m.present for m in llm.models)
            and store.ok
            and database.ok
            and not unavailable
        )
        status: Literal["starting", "ready", "degraded", "failed"] = "ready" if healthy else "degraded"
    else:
        status = "starting" if state == "starting" else "failed"
    return HealthResponse(
        status=status,
        ready=readiness.ready,
        version=__version__,
        collections=collections,
        embedding_model=_embedding_model(services, readiness),
        warm_up_error=readiness.error,
        llm=llm,
        store=store,
        database=database,
        unavailable_collections=unavailable,
    )


def _embedding_model(services: Services, readiness: Readiness) -> str:
    """The loaded model's identity once ready (loading it here would make /health slow), else the provider."""
    return services.embedding_model_id if readiness.ready else services.settings.embeddings.provider


def _pending_store(readiness: Readiness) -> ComponentHealth:
    return ComponentHealth(ok=False, detail="loading" if readiness.state == "starting" else "not loaded")
