"""Read models the catalog hands out (detached from the ORM session)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime


@dataclass(frozen=True, slots=True)
class CollectionInfo:
    name: str
    embedding_model: str
    embedding_dim: int
    revision: int
    documents: int
    chunks: int
    updated_at: datetime
    ocr_languages: tuple[str, ...] = ()  # its own OCR languages; () = the server's ingestion.ocr.languages


@dataclass(frozen=True, slots=True)
class DocumentInfo:
    collection: str
    file_name: str
    content_hash: str
    size_bytes: int
    page_count: int
    title: str
    abbreviation: str
    is_legal: bool
    chunks: int
    warnings: list[str] = field(default_factory=list)
    language: str = ""  # ISO 639-1 code detected at ingestion; "" = unknown


@dataclass(frozen=True, slots=True)
class IngestProblem:
    file_name: str
    kind: str
    reason: str
    severity: str  # "error": not ingested; "warning": ingested with a caveat
