"""The FastAPI application. `create_app()` is the factory uvicorn runs (`rabbithole serve`)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI

from rabbithole import __version__
from rabbithole.api.errors import install_error_handlers
from rabbithole.api.routes import collections, health, search
from rabbithole.api.runs import routes as run_routes
from rabbithole.api.runs import stream as run_stream
from rabbithole.api.runs.service import RunService
from rabbithole.core.config import Settings, load_settings
from rabbithole.services import Services


def create_app(settings: Settings | None = None) -> FastAPI:
    """The app over ``settings`` (default: loaded now, so bad settings fail here with their message rather
    than as "Application startup failed")."""
    resolved = settings or load_settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        services = Services(resolved)
        await services.aopen()
        runs = RunService(services)
        app.state.services = services
        app.state.runs = runs
        try:
            await runs.start()
            yield
        finally:
            await runs.stop()
            await services.aclose()

    app = FastAPI(title="Rabbithole", version=__version__, lifespan=lifespan)
    install_error_handlers(app)
    app.include_router(health.router)
    app.include_router(collections.router, prefix="/api")
    app.include_router(search.router, prefix="/api")
    app.include_router(run_stream.router, prefix="/api")  # before /runs/{run_id}: /runs/events is a stream
    app.include_router(run_routes.router, prefix="/api")
    return app
