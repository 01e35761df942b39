"""FastAPI dependencies: services come from the app's lifespan, never from module globals. They are
``async`` so that FastAPI calls them on the event loop instead of handing each one to a worker thread."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from rabbithole.api.jobs import JobRegistry
from rabbithole.api.readiness import Readiness
from rabbithole.api.runs.service import RunService
from rabbithole.services import Services


async def get_services(request: Request) -> Services:
    services: Services = request.app.state.services
    return services


async def get_run_service(request: Request) -> RunService:
    runs: RunService = request.app.state.runs
    return runs


async def get_readiness(request: Request) -> Readiness:
    readiness: Readiness = request.app.state.readiness
    return readiness


async def get_jobs(request: Request) -> JobRegistry:
    jobs: JobRegistry = request.app.state.jobs
    return jobs


ServicesDep = Annotated[Services, Depends(get_services)]
RunServiceDep = Annotated[RunService, Depends(get_run_service)]
ReadinessDep = Annotated[Readiness, Depends(get_readiness)]
JobsDep = Annotated[JobRegistry, Depends(get_jobs)]
