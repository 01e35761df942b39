"""What an ingestion job is, as the API shows it and the job store keeps it: the job with its files, and its
progress events (numbered per job)."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field

FileState = Literal["pending", "ingested", "unchanged", "failed", "rejected"]
JobStatus = Literal["running", "done", "failed"]
JobEventType = Literal["queued", "parsing", "embedding", "ingested", "unchanged", "failed", "done"]
JOB_EVENT_TYPES: tuple[JobEventType, ...] = (
    "queued",
    "parsing",
    "embedding",
    "ingested",
    "unchanged",
    "failed",
    "done",
)


class JobFile(BaseModel):
    file_name: str
    status: FileState
    reason: str | None = None


class IngestJob(BaseModel):
    id: str
    collection: str
    status: JobStatus
    done: int  # files processed so far
    total: int  # files to ingest (rejected ones are not counted)
    files: list[JobFile]
    error: str | None = None


class JobEvent(BaseModel):
    """One step of an ingestion job: per file (queued, parsing, embedding, ingested, unchanged, failed
    with its reason), then ``done`` with the job's outcome."""

    seq: int = Field(description="The event's number in its job: 1, 2, ...")
    type: JobEventType
    job_id: str
    created_at: datetime
    file_name: str | None = None
    reason: str | None = Field(None, description="Why the file (or, on done, the job) failed.")
    status: Literal["done", "failed"] | None = Field(None, description="On done: the job's outcome.")
    done: int = Field(description="Files processed so far.")
    total: int = Field(description="Files to ingest.")
