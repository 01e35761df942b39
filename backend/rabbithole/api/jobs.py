"""Ingestion jobs of uploaded PDFs, and rebuilds of a collection's vectors: run in a worker thread,
independent of the request that started them, with their state readable at GET /api/jobs/{id} and their
progress events (``job_events.py``) at GET /api/jobs/{id}/events. One registry per app (created by the
lifespan). The jobs of one collection run one after another, in the order they were started (a job waits
as ``running`` with its files ``pending`` until the one before it is done): two jobs writing one
collection's vector index at the same time corrupted it. Jobs and their events live in memory, as long as
the server process: what a job ingested is in the catalog and survives a restart, the job record does not."""

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
from rabbithole.api.job_queue import CollectionQueues, ExclusiveWork, UploadWork
from rabbithole.core.errors import NotFoundError, RabbitholeError
from rabbithole.ingestion.reports import CollectionReport, IngestEvent
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

    def __init__(self, services: Services) -> None:
        self._services = services
        self._jobs: dict[str, IngestJob] = {}
        self._lock = threading.Lock()
        self._tasks: set[asyncio.Task[None]] = set()
        self._queues = CollectionQueues(self._ingest_turn)
        self.events = JobEventLog()

    def get(self, job_id: str) -> IngestJob:
        with self._lock:
            job = self._jobs.get(job_id)
            if job is None:
                raise JobNotFoundError(job_id)
            return job.model_copy(deep=True)

    def start(
        self, collection: str, root: Path, accepted: list[tuple[str, Path]], rejected: list[JobFile]
    ) -> IngestJob:
        """Register the job and ingest ``accepted`` (catalog name, stored path) in the collection's turn."""
        files = [JobFile(file_name=name, status="pending") for name, _ in accepted] + rejected
        job = self._register(collection, files, total=len(accepted), running=bool(accepted))
        for name, _ in accepted:
            self._event(job.id, "queued", name)
        for file in rejected:
            self._event(job.id, "failed", file.file_name, file.reason)
        if not accepted:
            self._event(job.id, "done", status="done")
        else:
            self._submit(collection, UploadWork(job.id, root, [path for _, path in accepted]))
        return self.get(job.id)

    def start_rebuild(self, collection: str) -> IngestJob:
        """Rebuild the collection's vectors from the catalog (the repair of a damaged index), one file entry
        per document, in the collection's turn."""
        names = [d.file_name for d in self._services.catalog.documents(collection)]
        job = self._register(
            collection,
            [JobFile(file_name=n, status="pending") for n in names],
            total=len(names),
            running=True,
        )
        for name in names:
            self._event(job.id, "queued", name)

        def run() -> None:
            def progress(done: int, _total: int, file_name: str) -> None:
                self._update(job.id, lambda j: setattr(j, "done", done))
                self._set_file(job.id, file_name, "ingested")
                self._event(job.id, "ingested", file_name)

            try:
                self._services.rebuild_vectors(collection, progress)
            except Exception as exc:
                self._fail(job.id, exc)
                return
            self._update(job.id, lambda j: setattr(j, "status", "done"))
            self._event(job.id, "done", status="done")

        self._submit(collection, ExclusiveWork(job.id, run))
        return self.get(job.id)

    async def wait_all(self) -> None:
        """Let running and waiting jobs finish (the lifespan's shutdown)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    def _register(self, collection: str, files: list[JobFile], *, total: int, running: bool) -> IngestJob:
        job = IngestJob(
            id=uuid.uuid4().hex,
            collection=collection,
            status="running" if running else "done",
            done=0,
            total=total,
            files=files,
        )
        with self._lock:
            self._jobs[job.id] = job
        return job

    def _submit(self, collection: str, work: UploadWork | ExclusiveWork) -> None:
        task = self._queues.submit(collection, work)
        if task is not None:
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    def _ingest_turn(self, collection: str, uploads: list[UploadWork]) -> None:
        """Ingest the files of every waiting upload job of one folder in one run (worker thread); each job
        follows its own files."""
        owners: dict[str, list[str]] = {}
        paths: dict[Path, None] = {}
        for work in uploads:
            for path in work.paths:
                owners.setdefault(path.name, []).append(work.job_id)
                paths[path] = None

        def progress(event: IngestEvent) -> None:
            name = event.file_name
            for job_id in owners.get(name, []):
                if event.stage == "parsing":
                    self._event(job_id, "parsing", name)
                elif event.stage == "embedding":
                    self._event(job_id, "embedding", name)
                elif event.stage == "stored":
                    self._set_file(job_id, name, "ingested")
                    self._event(job_id, "ingested", name)
                elif event.stage == "file":
                    self._update(job_id, lambda job: setattr(job, "done", job.done + 1))
                    if event.error:
                        self._set_file(job_id, name, "failed", event.error)
                        self._event(job_id, "failed", name, event.error)

        root = uploads[0].root
        try:
            pipeline = self._services.ingestion_pipeline()
            report = pipeline.ingest_files(collection, root, list(paths), progress)
        except Exception as exc:
            for work in uploads:
                self._fail(work.job_id, exc)
            return
        for work in uploads:
            self._settle(work.job_id, report)

    def _settle(self, job_id: str, report: CollectionReport) -> None:
        """The job's files as the run left them: failed, ingested, or unchanged (the same content was
        ingested before); the job done."""
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

    def _fail(self, job_id: str, exc: Exception) -> None:
        """The job stopped on an error: the files it had not finished fail with the reason."""
        if isinstance(exc, RabbitholeError):
            self._finish(job_id, error=str(exc))
        else:
            log.error("job %s failed", job_id, exc_info=exc)
            self._finish(job_id, error="internal error; the server log has the details")

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
