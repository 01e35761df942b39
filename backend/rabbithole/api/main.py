"""The FastAPI application. `create_app()` is the factory uvicorn runs (`rabbithole serve`)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

from fastapi import Depends, FastAPI
from fastapi.routing import APIRoute
from fastapi_offline import FastAPIOffline
from starlette.middleware.cors import CORSMiddleware

from rabbithole import __version__
from rabbithole.api.accounts_auth import AccountsMiddleware
from rabbithole.api.agent_protocol import AGENT_PROTOCOL_PREFIX, agent_protocol_routers
from rabbithole.api.authorize import authorize
from rabbithole.api.docs_assets import serve_offline_redoc
from rabbithole.api.errors import install_error_handlers
from rabbithole.api.headers import SecurityHeadersMiddleware
from rabbithole.api.jobs import JobRegistry
from rabbithole.api.origin_guard import CrossOriginGuardMiddleware
from rabbithole.api.readiness import Readiness
from rabbithole.api.routes import (
    collections,
    documents,
    health,
    job_stream,
    ocr_languages,
    page_images,
    references,
    search,
    session,
    uploads,
)
from rabbithole.api.runs import routes as run_routes
from rabbithole.api.runs import stream as run_stream
from rabbithole.api.runs.service import RunService
from rabbithole.api.security import BearerTokenMiddleware, BodySizeLimitMiddleware, TrustedHostMiddleware
from rabbithole.api.spa import WebAppMiddleware, default_web_dir
from rabbithole.core.config import Settings, load_settings
from rabbithole.mcp.transports import HttpMcp
from rabbithole.services import Services

if TYPE_CHECKING:
    from rabbithole.accounts.service import AccountService


def create_app(settings: Settings | None = None) -> FastAPI:
    """The app over ``settings`` (default: loaded now, so bad settings fail here with their message rather
    than as "Application startup failed")."""
    resolved = settings or load_settings()
    resolved.server.check_auth()
    mcp_http = HttpMcp()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        services = Services(resolved)
        await services.aopen()
        # Before anything reads the vector store: after a process died with it open, its indexes are
        # checked in a child process (a damaged one is recorded and never opened here).
        await asyncio.to_thread(services.check_vector_store)
        runs = await asyncio.to_thread(RunService, services)  # opens the run store and event log
        if resolved.server.auth_mode == "accounts":
            # the account tables, and the dummy hash unknown names are checked against, before any sign-in
            await asyncio.to_thread(lambda: services.accounts.passwords.prepare_dummy())
        readiness = Readiness()
        jobs = JobRegistry(services)
        await asyncio.to_thread(jobs.open)  # ends the jobs of processes that stopped
        app.state.services = services
        app.state.runs = runs
        app.state.readiness = readiness
        app.state.jobs = jobs
        warm_up = (
            asyncio.create_task(asyncio.to_thread(readiness.warm_up, services))
            if resolved.server.warm_up
            else None
        )
        if warm_up is None:
            readiness.mark_ready()
        try:
            await runs.start()
            async with mcp_http.serving(services, runs):
                yield
        finally:
            if warm_up is not None:
                await warm_up
            await jobs.wait_all()
            jobs.close()
            await runs.stop()
            await services.aclose()

    # Swagger UI and ReDoc from files inside the installed package: /docs works offline.
    app = FastAPIOffline(
        title="Rabbithole",
        version=__version__,
        lifespan=lifespan,
        generate_unique_id_function=_operation_id,
        # every route's path and query parameters checked against the request's permissions (accounts mode)
        dependencies=[Depends(authorize)],
    )
    serve_offline_redoc(app)  # ReDoc's bundle without its remote logo
    install_error_handlers(app)
    app.include_router(health.router)
    app.include_router(collections.router, prefix="/api")
    app.include_router(ocr_languages.router, prefix="/api")
    app.include_router(documents.router, prefix="/api")
    app.include_router(uploads.router, prefix="/api")
    app.include_router(page_images.router, prefix="/api")
    app.include_router(job_stream.router, prefix="/api")
    app.include_router(references.router, prefix="/api")
    app.include_router(search.router, prefix="/api")
    app.include_router(session.router, prefix="/api")
    app.include_router(run_stream.router, prefix="/api")  # before /runs/{run_id}: /runs/events is a stream
    app.include_router(run_routes.router, prefix="/api")
    app.router.routes.append(mcp_http.route)  # MCP over streamable HTTP at /mcp, inside the guards
    for router in agent_protocol_routers:  # LangGraph's Agent Protocol (api/agent_protocol/): its own
        # schema, LangGraph's, not this document's (its clients are langgraph-sdk's, not the web app's)
        app.include_router(router, prefix=AGENT_PROTOCOL_PREFIX, include_in_schema=False)
    # The web app answers GET/HEAD outside the API, inside the guards (the Host check covers it).
    app.add_middleware(WebAppMiddleware, web_dir=resolved.server.web_dir or default_web_dir())
    _install_guards(app, resolved)
    _frame_event_streams_in_openapi(app)
    return app


def _frame_event_streams_in_openapi(app: FastAPI) -> None:
    """The OpenAPI document, generated once, with the event streams' answers as SSE frames
    (``api/runs/stream.framed_event_streams``)."""
    generate = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            run_stream.framed_event_streams(generate())
        return generate()

    app.openapi = openapi  # type: ignore[method-assign]


def _operation_id(route: APIRoute) -> str:
    """The OpenAPI operationId: the route function's name (``create_run``), which the web app's generated
    client uses as its function names."""
    return route.name


def _install_guards(app: FastAPI, settings: Settings) -> None:
    """The middlewares, outermost last: security headers (on every answer, refusals too), Host check,
    CORS, cross-origin guard (every auth mode), the token (bearer or session cookie) or the accounts (a
    personal token or a session with its CSRF header), body size."""
    server = settings.server
    app.add_middleware(
        BodySizeLimitMiddleware,
        limit=server.max_request_kb * 1024,
        upload_limit=int(server.max_upload_mb * 1024 * 1024),
    )
    if server.auth_mode == "token":
        app.add_middleware(BearerTokenMiddleware, token=server.token)
    elif server.auth_mode == "accounts":

        def accounts() -> AccountService:
            services: Services = app.state.services
            return services.accounts

        app.add_middleware(AccountsMiddleware, accounts=accounts)
    app.add_middleware(CrossOriginGuardMiddleware, trusted_origins=server.cors_origins)
    if server.cors_origins:
        app.add_middleware(
            CORSMiddleware,
            allow_origins=server.cors_origins,
            allow_methods=["GET", "POST", "PUT", "PATCH", "DELETE"],
            allow_headers=["Authorization", "Content-Type", "Last-Event-ID", "Range"],
            expose_headers=["Content-Range", "Accept-Ranges"],
        )
    app.add_middleware(TrustedHostMiddleware, hosts=server.served_hosts())
    app.add_middleware(SecurityHeadersMiddleware)
