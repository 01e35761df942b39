"""Ingestion jobs of uploaded PDFs, and rebuilds of a collection's vectors: run in a worker thread,
independent of the request that started them, with their state readable at GET /api/jobs/{id} and their
progress events (``job_events.py``) at GET /api/jobs/{id}/events. One registry per app (created by the
lifespan). The jobs of one collection run one after another, in the order they were started (a job waits
as ``running`` with its files ``pending`` until the one before it is done): two jobs writing one
collection's vector index at the same time corrupted it.

Jobs and their events are kept in the catalog's database (``ingestion/job_store.py``), so every server
process over that database answers for every job, whichever process executes it. The executing process
renews the job's lease while it runs (a heartbeat thread); a job whose process stopped (``kill -9``, a
crash) is ended as failed by the next process that looks at it, and by every server's start."""

from __future__ import annotations

import asyncio
import logging
import threading
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Literal

from rabbithole.api.job_events import JobEventLog, JobEventType
from rabbithole.api.job_queue import CollectionQueues, ExclusiveWork, UploadWork
from rabbithole.core.errors import NotFoundError, RabbitholeError
from rabbithole.ingestion.job_models import FileState, IngestJob, JobFile
from rabbithole.ingestion.job_store import JobStore
from rabbithole.ingestion.ocr.collection_ocr import RereadPlan, reread_plan
from rabbithole.ingestion.reports import CollectionReport, IngestEvent, merged
from rabbithole.runs.leases import process_owner
from rabbithole.services import Services

__all__ = ["IngestJob", "JobFile", "JobNotFoundError", "JobRegistry"]

log = logging.getLogger(__name__)


class JobNotFoundError(NotFoundError):
    def __init__(self, job_id: str) -> None:
        super().__init__(f"ingestion job '{job_id}' does not exist")


class JobRegistry:
    """The jobs this server process executes (thread-safe), and every process's jobs read back."""

    def __init__(self, services: Services) -> None:
        self._services = services
        self.store = JobStore(
            services.catalog.engine, process_owner(), services.settings.ingestion.job_lease_s
        )
        self._jobs: dict[str, IngestJob] = {}  # the running jobs of this process
        self._lock = threading.Lock()
        self._tasks: set[asyncio.Task[None]] = set()
        self._queues = CollectionQueues(self._ingest_turn)
        self.events = JobEventLog(self.store)
        self._stop = threading.Event()
        self._heartbeat: threading.Thread | None = None

    def open(self) -> None:
        """End the jobs of processes that stopped (blocking), and start renewing this process's leases."""
        ended = self.store.expire_abandoned()
        if ended:
            log.warning("ended %d ingestion job(s) of server processes that stopped", len(ended))
        self._heartbeat = threading.Thread(target=self._beat, name="ingest-job-heartbeat", daemon=True)
        self._heartbeat.start()

    def close(self) -> None:
        self._stop.set()
        if self._heartbeat is not None:
            self._heartbeat.join(timeout=10)

    def _beat(self) -> None:
        while not self._stop.wait(self._services.settings.ingestion.job_lease_s / 3):
            with self._lock:
                running = list(self._jobs)
            try:
                self.store.renew(running)
            except Exception:  # the database away for a moment: the next beat tries again
                log.exception("renewing the leases of ingestion jobs failed; retrying")

    def get(self, job_id: str) -> IngestJob:
        """The job as stored (blocking: call it in a thread); any process's."""
        job = self.store.get(job_id)
        if job is None:
            raise JobNotFoundError(job_id)
        return job

    async def start(
        self, collection: str, root: Path, accepted: list[tuple[str, Path]], rejected: list[JobFile]
    ) -> IngestJob:
        """Register the job and ingest ``accepted`` (catalog name, stored path) in the collection's turn."""
        names = [name for name, _ in accepted]
        job = await asyncio.to_thread(self._register_upload, collection, names, rejected)
        if accepted:
            self._submit(collection, UploadWork(job.id, root, [path for _, path in accepted]))
        return await asyncio.to_thread(self.get, job.id)

    def _register_upload(self, collection: str, accepted: list[str], rejected: list[JobFile]) -> IngestJob:
        files = [JobFile(file_name=name, status="pending") for name in accepted] + rejected
        job = self._register(collection, files, total=len(accepted))
        for name in accepted:
            self._event(job.id, "queued", name)
        for file in rejected:
            self._event(job.id, "failed", file.file_name, file.reason)
        if not accepted:
            self._update(job.id, lambda j: setattr(j, "status", "done"))
            self._event(job.id, "done", status="done")
        return job

    async def start_rebuild(self, collection: str) -> IngestJob:
        """Rebuild the collection's vectors from the catalog (the repair of a damaged index), one file entry
        per document, in the collection's turn."""
        job = await asyncio.to_thread(self._register_rebuild, collection)

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
        return await asyncio.to_thread(self.get, job.id)

    def _register_rebuild(self, collection: str) -> IngestJob:
        names = [d.file_name for d in self._services.catalog.documents(collection)]
        job = self._register(
            collection, [JobFile(file_name=n, status="pending") for n in names], total=len(names)
        )
        for name in names:
            self._event(job.id, "queued", name)
        return job

    async def start_reread(self, collection: str) -> IngestJob:
        """Read the collection's documents that OCR read in other languages again, from their originals, in
        its languages now (as an upload's files: the same stages and events), in the collection's turn.
        NothingToRereadError (409) when there is none; a document whose original is gone is listed as
        failed with the reason."""
        plan = await asyncio.to_thread(self._plan_reread, collection)
        gone = [JobFile(file_name=n, status="rejected", reason=r) for n, r in plan.missing.items()]
        accepted = plan.file_names
        job = await asyncio.to_thread(self._register_upload, collection, accepted, gone)

        def run() -> None:
            progress = self._progress({name: [job.id] for name in accepted})
            try:
                reports = plan.read_again(self._services.ingestion_pipeline(), collection, progress)
            except Exception as exc:
                self._fail(job.id, exc)
                return
            self._settle(job.id, merged(collection, reports))

        if accepted:
            self._submit(collection, ExclusiveWork(job.id, run))
        return await asyncio.to_thread(self.get, job.id)

    def _plan_reread(self, collection: str) -> RereadPlan:
        self._services.catalog.require_collection(collection)
        return reread_plan(
            self._services.catalog,
            self._services.settings.ingestion.ocr,
            collection,
            self._services.uploads.find,
        )

    async def wait_all(self) -> None:
        """Let running and waiting jobs finish (the lifespan's shutdown)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    def _register(self, collection: str, files: list[JobFile], *, total: int) -> IngestJob:
        job = IngestJob(
            id=uuid.uuid4().hex, collection=collection, status="running", done=0, total=total, files=files
        )
        with self._lock:
            self.store.create(job)
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

        root = uploads[0].root
        try:
            pipeline = self._services.ingestion_pipeline()
            report = pipeline.ingest_files(collection, root, list(paths), self._progress(owners))
        except Exception as exc:
            for work in uploads:
                self._fail(work.job_id, exc)
            return
        for work in uploads:
            self._settle(work.job_id, report)

    def _progress(self, owners: dict[str, list[str]]) -> Callable[[IngestEvent], None]:
        """The ingestion's progress as the events of the jobs that own each file (by its catalog name)."""

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

        return progress

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
            if type_ == "done":
                del self._jobs[job_id]  # ended: no more leases to renew, nothing more to write
        self.events.append(
            job_id, type_, done=done, total=total, file_name=file_name, reason=reason, status=status
        )

    def _update(self, job_id: str, change: Callable[[IngestJob], None]) -> None:
        """Change the running job and store its state (the job's final state before its ``done`` event)."""
        with self._lock:
            job = self._jobs[job_id]
            change(job)
            if not self.store.save(job):
                log.warning("ingestion job %s was ended by another process; its progress is not kept", job_id)
