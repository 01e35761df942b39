"""Ingestion jobs in the catalog's database (``ingest_jobs``, ``ingest_job_events``): every server process
over one database reads every job and its events, whichever process executes it.

The executing process owns the job: it writes the job's state and events, and renews ``lease_until``
(``renew``, from its heartbeat) while the job runs. A job whose owner stopped (its lease expired, or its
process is known to be gone: ``owner_is_dead``, the same test as the run leases') is ended as failed by
whichever process looks at it next (``expire``): its unfinished files fail with the reason, and its
events end with ``done``. The owner's writes hold only while it still owns a running job, so a job ended
that way stays ended. Nothing is resumed: the files of an upload are kept (the uploads folder), and a
re-upload ingests what is missing (unchanged files are skipped)."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta

from sqlalchemy import Engine, func, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from rabbithole.catalog.tables import IngestJobEventRow, IngestJobRow
from rabbithole.ingestion.job_models import IngestJob, JobEvent, JobEventType, JobFile
from rabbithole.runs.leases import describe_owner, owner_is_dead

log = logging.getLogger(__name__)


def _now() -> datetime:
    return datetime.now(UTC)


def _naive(moment: datetime) -> datetime:
    """A UTC moment as the tables store it (UTC without a zone, on both backends)."""
    return moment.astimezone(UTC).replace(tzinfo=None) if moment.tzinfo else moment


class JobStore:
    """The jobs and their events in ``engine``'s database (the catalog's: its tables are created or migrated
    with the catalog's)."""

    def __init__(self, engine: Engine, owner: str, lease_s: float) -> None:
        self.engine = engine
        self.owner = owner
        self.lease = timedelta(seconds=lease_s)

    # -- the owner's writes ------------------------------------------------------------------------

    def create(self, job: IngestJob) -> None:
        with self.engine.begin() as conn:
            conn.execute(
                insert(IngestJobRow).values(
                    id=job.id,
                    collection_name=job.collection,
                    status=job.status,
                    done=job.done,
                    total=job.total,
                    files_json=_files_json(job.files),
                    error=job.error,
                    owner=self.owner,
                    lease_until=_naive(_now() + self.lease),
                )
            )

    def save(self, job: IngestJob) -> bool:
        """Write the job's state; False when this process no longer owns it running (another ended it)."""
        with self.engine.begin() as conn:
            result = conn.execute(
                update(IngestJobRow)
                .where(
                    IngestJobRow.id == job.id,
                    IngestJobRow.owner == self.owner,
                    IngestJobRow.status == "running",
                )
                .values(
                    status=job.status,
                    done=job.done,
                    total=job.total,
                    files_json=_files_json(job.files),
                    error=job.error,
                    updated_at=_naive(_now()),
                )
            )
            return bool(result.rowcount == 1)

    def append(self, event: JobEvent) -> bool:
        """Persist one event; False when its number is taken (another process ended the job meanwhile)."""
        try:
            with self.engine.begin() as conn:
                conn.execute(insert(IngestJobEventRow).values(**_event_values(event)))
        except IntegrityError:
            log.warning("job %s: event %d not kept (another process ended the job)", event.job_id, event.seq)
            return False
        return True

    def renew(self, job_ids: Iterable[str]) -> None:
        """Extend this process's leases of the running jobs ``job_ids`` (its heartbeat)."""
        ids = list(job_ids)
        if not ids:
            return
        with self.engine.begin() as conn:
            conn.execute(
                update(IngestJobRow)
                .where(
                    IngestJobRow.id.in_(ids),
                    IngestJobRow.owner == self.owner,
                    IngestJobRow.status == "running",
                )
                .values(lease_until=_naive(_now() + self.lease))
            )

    # -- any process's reads -------------------------------------------------------------------------

    def get(self, job_id: str) -> IngestJob | None:
        """The job as stored, after ending it as failed when its owner stopped (``expire``)."""
        row = self._row(job_id)
        if row is not None and row.status == "running" and self._abandoned(row):
            self.expire(row)
            row = self._row(job_id)
        return _job(row) if row is not None else None

    def events_after(self, job_id: str, seq: int) -> list[JobEvent]:
        with Session(self.engine) as session:
            rows = session.scalars(
                select(IngestJobEventRow)
                .where(IngestJobEventRow.job_id == job_id, IngestJobEventRow.seq > seq)
                .order_by(IngestJobEventRow.seq)
            ).all()
        return [_event(row) for row in rows]

    def expire_abandoned(self) -> list[str]:
        """End every running job whose owner stopped; their ids (a server's start sweeps them)."""
        with Session(self.engine) as session:
            rows = session.scalars(select(IngestJobRow).where(IngestJobRow.status == "running")).all()
        return [row.id for row in rows if self._abandoned(row) and self.expire(row)]

    def expire(self, row: IngestJobRow) -> bool:
        """End the running job ``row`` as failed because its owner stopped: one UPDATE that holds only while
        the owner has not renewed its lease since ``row`` was read, so of two processes ending it one does,
        and a live owner that renewed keeps its job. Its pending files fail; its events end with ``done``."""
        reason = (
            f"the server process executing this job ({describe_owner(row.owner)}) stopped before it "
            "finished; upload the files again (those already ingested are skipped)"
        )
        job = _job(row)
        job.status, job.error = "failed", reason
        failed = [f for f in job.files if f.status == "pending"]
        for file in failed:
            file.status, file.reason = "failed", reason
        with self.engine.begin() as conn:
            won = conn.execute(
                update(IngestJobRow)
                .where(
                    IngestJobRow.id == row.id,
                    IngestJobRow.status == "running",
                    IngestJobRow.owner == row.owner,
                    IngestJobRow.lease_until == row.lease_until,
                )
                .values(
                    status="failed",
                    error=reason,
                    files_json=_files_json(job.files),
                    updated_at=_naive(_now()),
                )
            )
            if won.rowcount != 1:
                return False
            last = conn.scalar(
                select(func.coalesce(func.max(IngestJobEventRow.seq), 0)).where(
                    IngestJobEventRow.job_id == row.id
                )
            )
            seq = int(last or 0)
            ending: list[tuple[JobEventType, str | None]] = [("failed", f.file_name) for f in failed]
            ending.append(("done", None))
            for type_, file_name in ending:
                seq += 1
                event = JobEvent(
                    seq=seq,
                    type=type_,
                    job_id=row.id,
                    created_at=_now(),
                    file_name=file_name,
                    reason=reason,
                    status="failed" if type_ == "done" else None,
                    done=job.done,
                    total=job.total,
                )
                conn.execute(insert(IngestJobEventRow).values(**_event_values(event)))
        log.warning("ingestion job %s ended as failed: %s", row.id, reason)
        return True

    def _row(self, job_id: str) -> IngestJobRow | None:
        with Session(self.engine) as session:
            return session.get(IngestJobRow, job_id)

    def _abandoned(self, row: IngestJobRow) -> bool:
        if row.owner == self.owner:
            return False  # this process's own job runs as long as this process does
        return _naive(row.lease_until) < _naive(_now()) or owner_is_dead(row.owner)


def _files_json(files: list[JobFile]) -> str:
    return json.dumps([f.model_dump() for f in files], ensure_ascii=False)


def _job(row: IngestJobRow) -> IngestJob:
    return IngestJob(
        id=row.id,
        collection=row.collection_name,
        status=row.status,  # type: ignore[arg-type]
        done=row.done,
        total=row.total,
        files=[JobFile.model_validate(f) for f in json.loads(row.files_json)],
        error=row.error,
    )


def _event_values(event: JobEvent) -> dict[str, object]:
    return {
        "job_id": event.job_id,
        "seq": event.seq,
        "type": event.type,
        "file_name": event.file_name,
        "reason": event.reason,
        "status": event.status,
        "done": event.done,
        "total": event.total,
        "created_at": _naive(event.created_at),
    }


def _event(row: IngestJobEventRow) -> JobEvent:
    return JobEvent(
        seq=row.seq,
        type=row.type,  # type: ignore[arg-type]
        job_id=row.job_id,
        created_at=row.created_at.replace(tzinfo=UTC),
        file_name=row.file_name,
        reason=row.reason,
        status=row.status,  # type: ignore[arg-type]
        done=row.done,
        total=row.total,
    )
