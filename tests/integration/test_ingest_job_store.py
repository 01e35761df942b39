"""The ingestion jobs' store on both backends (the catalog's database, SQLite or PostgreSQL): what one
process writes every other reads; a job whose owner's lease expired (an owner on another host, which
cannot be asked whether it lives) is ended as failed once, its events ending with ``done``; a renewed
lease keeps the job its owner's; the owner's later writes do not bring an ended job back."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from pathlib import Path

from rabbithole.catalog.repository import Catalog
from rabbithole.ingestion.job_models import IngestJob, JobEvent, JobFile
from rabbithole.ingestion.job_store import JobStore

ELSEWHERE = "another-host:4242:1700000000.00:0badf00d"  # a process on another host


def _job(job_id: str) -> IngestJob:
    files = [JobFile(file_name="a.pdf", status="ingested"), JobFile(file_name="b.pdf", status="pending")]
    return IngestJob(id=job_id, collection="inbox", status="running", done=1, total=2, files=files)


def _event(job_id: str, seq: int) -> JobEvent:
    return JobEvent(
        seq=seq,
        type="queued",
        job_id=job_id,
        created_at=datetime.now(UTC),
        file_name="b.pdf",
        done=0,
        total=2,
    )


def test_a_job_outlives_its_owner_only_until_its_lease_expires(database_url: str, tmp_path: Path) -> None:
    catalog = Catalog(tmp_path / "catalog.sqlite3", url=database_url)
    try:
        owner = JobStore(catalog.engine, ELSEWHERE, lease_s=1.0)
        reader = JobStore(catalog.engine, "this-process", lease_s=1.0)
        owner.create(_job("j1"))
        assert owner.append(_event("j1", 1))
        assert reader.get("j1") == _job("j1")  # within the lease: the owner's, running
        assert reader.expire_abandoned() == []

        time.sleep(0.6)
        owner.renew(["j1"])
        time.sleep(0.6)
        assert reader.get("j1") == _job("j1")  # renewed: still running, 1.2 s after it started

        time.sleep(1.1)
        assert reader.expire_abandoned() == ["j1"]
        ended = reader.get("j1")
        assert ended is not None and ended.status == "failed"
        assert ended.error is not None and "process 4242 on another-host" in ended.error
        assert [(f.file_name, f.status) for f in ended.files] == [("a.pdf", "ingested"), ("b.pdf", "failed")]
        events = reader.events_after("j1", 0)
        assert [(e.seq, e.type, e.status) for e in events] == [
            (1, "queued", None),
            (2, "failed", None),
            (3, "done", "failed"),
        ]
        assert reader.expire_abandoned() == []  # ended once

        # the owner wakes up: its writes no longer hold
        late = _job("j1")
        late.status = "done"
        assert not owner.save(late)
        assert not owner.append(_event("j1", 2))
        assert reader.get("j1") == ended and len(reader.events_after("j1", 0)) == 3
        assert reader.get("unknown") is None
    finally:
        catalog.close()
