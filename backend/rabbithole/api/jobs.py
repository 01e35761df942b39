"""Ingestion jobs of uploaded PDFs: run in a worker thread, independent of the request that started them,
with their state readable at GET /api/jobs/{id} and their progress events (``job_events.py``) at
GET /api/jobs/{id}/events. One registry per app (created by the lifespan). Jobs and their events live in
memory, as long as the server process: what a job ingested is in the catalog and survives a restart, the
job record does not."""

from __future__ import annotations

import asyncio
import logging
import threading
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Literal

from pydantic import BaseModel

from rabbithole.api.job_events import JobEventLog, JobEventType
from rabbithole.core.errors import NotFoundError, RabbitholeError
from rabbithole.ingestion.reports import IngestEvent
from rabbithole.services import Services

log = logging.getLogger(__name__)

FileState = Literal["pending", "ingested", "unchanged", "failed", "rejected"]


class JobFile(BaseModel):
    file_name: str
    status: FileState
    reason: str | None = None


class IngestJob(BaseModel):
    id: str
    collection: str
    status: Literal["running", "done", "failed"]
    done: int  # files processed so far
    total: int  # files to ingest (rejected ones are not counted)
    files: list[JobFile]
    error: str | None = None


class JobNotFoundError(NotFoundError):
    def __init__(self, job_id: str) -> None:
        super().__init__(f"ingestion job '{job_id}' does not exist (jobs live as long as the server)")


class JobRegistry:
    """The jobs of this server process, thread-safe."""

    def __init__(self) -> None:
        self._jobs: dict[str, IngestJob] = {}
        self._lock = threading.Lock()
        self._tasks: set[asyncio.Task[None]] = set()
        self.events = JobEventLog()

    def get(self, job_id: str) -> IngestJob:
        with self._lock:
            job = self._jobs.get(job_id)
            if job is None:
                raise JobNotFoundError(job_id)
            return job.model_copy(deep=True)

    def start(
        self,
        services: Services,
        collection: str,
        root: Path,
        accepted: list[tuple[str, Path]],
        rejected: list[JobFile],
    ) -> IngestJob:
        """Register the job and ingest ``accepted`` (catalog name, stored path) in a worker thread."""
        files = [JobFile(file_name=name, status="pending") for name, _ in accepted] + rejected
        job = IngestJob(
            id=uuid.uuid4().hex,
            collection=collection,
            status="running" if accepted else "done",
            done=0,
            total=len(accepted),
            files=files,
        )
        with self._lock:
            self._jobs[job.id] = job
        for name, _ in accepted:
            self._event(job.id, "queued", name)
        for file in rejected:
            self._event(job.id, "failed", file.file_name, file.reason)
        if not accepted:
            self._event(job.id, "done", status="done")
        if accepted:
            work = self._runner(services, job.id, collection, root, [path for _, path in accepted])
            task = asyncio.get_running_loop().create_task(asyncio.to_thread(work))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        return self.get(job.id)

    async def wait_all(self) -> None:
        """Let running jobs finish (the lifespan's shutdown)."""
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)

    def _runner(
        self, services: Services, job_id: str, collection: str, root: Path, paths: list[Path]
    ) -> Callable[[], None]:
        def progress(event: IngestEvent) -> None:
            name = event.file_name
            if event.stage == "parsing":
                self._event(job_id, "parsing", name)
            elif event.stage == "embedding":
                self._event(job_id, "embedding", name)
            elif event.stage == "stored":
                self._set_file(job_id, name, "ingested")
                self._event(job_id, "ingested", name)
            elif event.stage == "file":
                self._update(job_id, lambda job: setattr(job, "done", event.done))
                if event.error:
                    self._set_file(job_id, name, "failed", event.error)
                    self._event(job_id, "failed", name, event.error)

        def run() -> None:
            try:
                report = services.ingestion_pipeline().ingest_files(collection, root, paths, progress)
            except RabbitholeError as exc:
                self._finish(job_id, error=str(exc))
                return
            except Exception as exc:
                log.error("ingestion job %s failed", job_id, exc_info=exc)
                self._finish(job_id, error="internal error; the server log has the details")
                return
            failed = {p.file_name: p.reason for p in report.failed}
            ingested = set(report.added) | set(report.updated)

            settled: list[tuple[JobEventType, str, str | None]] = []

            def settle(job: IngestJob) -> None:
                for file in job.files:
                    if file.status != "pending":
                        continue
                    if file.file_name in failed:
                        file.status, file.reason = "failed", failed[file.file_name]
                        settled.append(("failed", file.file_name, file.reason))
                    elif file.file_name in ingested:
                        file.status = "ingested"
                        settled.append(("ingested", file.file_name, None))
                    else:
                        file.status = "unchanged"
                        settled.append(("unchanged", file.file_name, None))
                job.done, job.status = job.total, "done"

            self._update(job_id, settle)
            for kind, name, reason in settled:
                self._event(job_id, kind, name, reason)
            self._event(job_id, "done", status="done")

        return run

    def _finish(self, job_id: str, error: str) -> None:
        failed: list[str] = []

        def fail(job: IngestJob) -> None:
            job.status, job.error = "failed", error
            for file in job.files:
                if file.status == "pending":
                    file.status, file.reason = "failed", error
                    failed.append(file.file_name)

        self._update(job_id, fail)
        for name in failed:
            self._event(job_id, "failed", name, error)
        self._event(job_id, "done", reason=error, status="failed")

    def _set_file(self, job_id: str, file_name: str, status: FileState, reason: str | None = None) -> None:
        def change(job: IngestJob) -> None:
            for file in job.files:
                if file.file_name == file_name and file.status == "pending":
                    file.status, file.reason = status, reason

        self._update(job_id, change)

    def _event(
        self,
        job_id: str,
        type_: JobEventType,
        file_name: str | None = None,
        reason: str | None = None,
        *,
        status: Literal["done", "failed"] | None = None,
    ) -> None:
        with self._lock:
            job = self._jobs[job_id]
            done, total = job.done, job.total
        self.events.append(
            job_id, type_, done=done, total=total, file_name=file_name, reason=reason, status=status
        )

    def _update(self, job_id: str, change: Callable[[IngestJob], None]) -> None:
        with self._lock:
            change(self._jobs[job_id])
