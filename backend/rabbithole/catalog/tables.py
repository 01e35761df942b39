"""ORM tables of the catalog."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import Float, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship


def utcnow() -> datetime:
    return datetime.now(UTC)


class Base(DeclarativeBase):
    pass


class CollectionRow(Base):
    __tablename__ = "collections"

    name: Mapped[str] = mapped_column(String, primary_key=True)
    embedding_model: Mapped[str] = mapped_column(String)
    embedding_dim: Mapped[int] = mapped_column(Integer)
    revision: Mapped[int] = mapped_column(Integer, default=0)
    registry_json: Mapped[str] = mapped_column(Text, default="{}")
    # the Tesseract languages its scans are read in, as "deu+eng"; "" = the server's ingestion.ocr.languages
    ocr_languages: Mapped[str] = mapped_column(String, default="")
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow, onupdate=utcnow)

    documents: Mapped[list[DocumentRow]] = relationship(
        back_populates="collection", cascade="all, delete-orphan", passive_deletes=True
    )


class DocumentRow(Base):
    __tablename__ = "documents"
    __table_args__ = (UniqueConstraint("collection_name", "file_name"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    collection_name: Mapped[str] = mapped_column(ForeignKey("collections.name", ondelete="CASCADE"))
    file_name: Mapped[str] = mapped_column(String)
    content_hash: Mapped[str] = mapped_column(String)
    size_bytes: Mapped[int] = mapped_column(Integer)
    page_count: Mapped[int] = mapped_column(Integer)
    title: Mapped[str] = mapped_column(Text, default="")
    abbreviation: Mapped[str] = mapped_column(String, default="")
    is_legal: Mapped[bool] = mapped_column(default=False)
    language: Mapped[str] = mapped_column(String, default="")  # ISO 639-1, "" = unknown
    warnings_json: Mapped[str] = mapped_column(Text, default="[]")
    # the file the ingesting process read (catalog/source_paths.py; never given by a client); "" = unknown
    source_path: Mapped[str] = mapped_column(Text, default="")
    # the Tesseract languages its pages read by OCR were read in ("deu+eng"); "" = none read by OCR, or
    # ingested before this was recorded (then its warnings say it: catalog/ocr_languages.py)
    ocr_languages: Mapped[str] = mapped_column(String, default="")
    ingested_at: Mapped[datetime] = mapped_column(default=utcnow)

    collection: Mapped[CollectionRow] = relationship(back_populates="documents")


class PageRow(Base):
    __tablename__ = "pages"

    document_id: Mapped[int] = mapped_column(ForeignKey("documents.id", ondelete="CASCADE"), primary_key=True)
    number: Mapped[int] = mapped_column(Integer, primary_key=True)
    offset: Mapped[int] = mapped_column(Integer)
    text: Mapped[str] = mapped_column(Text)
    # where the text came from: "text" (the PDF's text layer) or "ocr"; for OCR the mean word confidence
    # (percent) and the word boxes (catalog/word_boxes.py), "" for none
    source: Mapped[str] = mapped_column(String, default="text")
    ocr_confidence: Mapped[float | None] = mapped_column(Float, nullable=True)
    words_json: Mapped[str] = mapped_column(Text, default="")


class ChunkRow(Base):
    __tablename__ = "chunks"
    __table_args__ = (Index("ix_chunks_document_ordinal", "document_id", "ordinal"),)

    id: Mapped[str] = mapped_column(String, primary_key=True)
    document_id: Mapped[int] = mapped_column(ForeignKey("documents.id", ondelete="CASCADE"))
    ordinal: Mapped[int] = mapped_column(Integer)
    start: Mapped[int] = mapped_column(Integer)
    end: Mapped[int] = mapped_column(Integer)
    page: Mapped[int] = mapped_column(Integer)
    page_end: Mapped[int] = mapped_column(Integer)
    section: Mapped[str | None] = mapped_column(String, nullable=True)
    heading: Mapped[str] = mapped_column(Text, default="")
    section_path_json: Mapped[str] = mapped_column(Text, default="[]")
    text: Mapped[str] = mapped_column(Text)
    token_count: Mapped[int] = mapped_column(Integer, default=0)


class IngestProblemRow(Base):
    """Files the last ingestion run of a collection could not (fully) ingest."""

    __tablename__ = "ingest_problems"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    collection_name: Mapped[str] = mapped_column(String, index=True)
    file_name: Mapped[str] = mapped_column(String)
    kind: Mapped[str] = mapped_column(String)
    reason: Mapped[str] = mapped_column(Text)
    severity: Mapped[str] = mapped_column(String)  # "error" (skipped) or "warning" (ingested)
    at: Mapped[datetime] = mapped_column(default=utcnow)


class IngestJobRow(Base):
    """An ingestion job (an upload or a rebuild of a collection's vectors) and the process executing it,
    which renews ``lease_until`` while it runs (ingestion/job_store.py)."""

    __tablename__ = "ingest_jobs"

    id: Mapped[str] = mapped_column(String, primary_key=True)
    collection_name: Mapped[str] = mapped_column(String, index=True)
    status: Mapped[str] = mapped_column(String)  # running, done, failed
    done: Mapped[int] = mapped_column(Integer, default=0)
    total: Mapped[int] = mapped_column(Integer, default=0)
    files_json: Mapped[str] = mapped_column(Text, default="[]")
    error: Mapped[str | None] = mapped_column(Text, nullable=True)
    owner: Mapped[str] = mapped_column(String, default="")
    lease_until: Mapped[datetime] = mapped_column(default=utcnow)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow, onupdate=utcnow)


class IngestJobEventRow(Base):
    """An ingestion job's progress events, numbered from 1 per job."""

    __tablename__ = "ingest_job_events"

    job_id: Mapped[str] = mapped_column(ForeignKey("ingest_jobs.id", ondelete="CASCADE"), primary_key=True)
    seq: Mapped[int] = mapped_column(Integer, primary_key=True)
    type: Mapped[str] = mapped_column(String)
    file_name: Mapped[str | None] = mapped_column(Text, nullable=True)
    reason: Mapped[str | None] = mapped_column(Text, nullable=True)
    status: Mapped[str | None] = mapped_column(String, nullable=True)
    done: Mapped[int] = mapped_column(Integer)
    total: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
