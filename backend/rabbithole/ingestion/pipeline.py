"""Incremental ingestion: new and changed files are parsed, chunked, embedded and indexed; unchanged files
are skipped by content hash; files removed from a collection folder leave the index. A bad file never stops
the batch: it is reported with its name and reason."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Protocol

import numpy as np
import numpy.typing as npt

from rabbithole.catalog.records import IngestProblem
from rabbithole.catalog.repository import Catalog
from rabbithole.core.config import IngestionSettings
from rabbithole.core.errors import EmbeddingModelMismatchError, IngestionError
from rabbithole.core.models import Chunk, ParsedDocument
from rabbithole.ingestion.chunking import chunk_document
from rabbithole.ingestion.discovery import CollectionSource, content_hash, discover, validate_collection_name

log = logging.getLogger(__name__)


class Parser(Protocol):
    def parse(self, path: Path, file_name: str) -> ParsedDocument: ...


class DocumentEmbedder(Protocol):
    @property
    def model_id(self) -> str: ...

    @property
    def dim(self) -> int: ...

    def embed_documents(self, texts: Sequence[str]) -> npt.NDArray[np.float32]: ...


class VectorIndex(Protocol):
    def upsert(self, collection: str, chunks: Sequence[Chunk], embeddings: npt.NDArray[np.float32]) -> None: ...

    def delete_document(self, collection: str, document: str) -> None: ...

    def delete_collection(self, collection: str) -> None: ...


class TokenCounter(Protocol):
    def count(self, text: str) -> int: ...


@dataclass(frozen=True, slots=True)
class IngestEvent:
    """Progress: `stage` is "file" (a file finished) or "collection" (a collection finished)."""

    stage: str
    collection: str
    done: int
    total: int
    file_name: str = ""


@dataclass(slots=True)
class CollectionReport:
    collection: str
    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    problems: list[IngestProblem] = field(default_factory=list)
    pages: int = 0
    chunks: int = 0
    seconds: float = 0.0
    embed_seconds: float = 0.0

    @property
    def failed(self) -> list[IngestProblem]:
        return [p for p in self.problems if p.severity == "error"]

    @property
    def changed(self) -> bool:
        return bool(self.added or self.updated or self.removed)


@dataclass(slots=True)
class IngestReport:
    collections: list[CollectionReport] = field(default_factory=list)

    @property
    def failed(self) -> list[IngestProblem]:
        return [p for c in self.collections for p in c.failed]


def embedding_input(doc: ParsedDocument, chunk: Chunk) -> str:
    """What the embedder sees: the passage with its document and section context in front."""
    label = doc.abbreviation or doc.title or doc.file_name
    head = " ".join(part for part in (label, chunk.section or "", chunk.heading) if part)
    return f"{head}\n{chunk.text}" if head else chunk.text


class IngestionPipeline:
    def __init__(
        self,
        settings: IngestionSettings,
        catalog: Catalog,
        parser: Parser,
        embedder_factory: Callable[[], DocumentEmbedder],
        vectors: VectorIndex,
        tokens: TokenCounter,
        on_collection_changed: Callable[[str], None] | None = None,
        registry_builder: Callable[[str, Path], None] | None = None,
    ) -> None:
        self.settings = settings
        self.catalog = catalog
        self.parser = parser
        self._embedder_factory = embedder_factory
        self._embedder: DocumentEmbedder | None = None
        self.vectors = vectors
        self.tokens = tokens
        self.on_collection_changed = on_collection_changed
        self.registry_builder = registry_builder

    @property
    def embedder(self) -> DocumentEmbedder:
        # Loaded only when a file actually needs embedding: a re-run over an unchanged folder stays instant.
        if self._embedder is None:
            self._embedder = self._embedder_factory()
        return self._embedder

    def ingest(
        self,
        path: Path,
        collection: str | None = None,
        reindex: bool = False,
        progress: Callable[[IngestEvent], None] | None = None,
    ) -> IngestReport:
        report = IngestReport()
        for source in discover(path, collection):
            report.collections.append(self._ingest_collection(source, reindex, progress))
        return report

    def _ingest_collection(
        self, source: CollectionSource, reindex: bool, progress: Callable[[IngestEvent], None] | None
    ) -> CollectionReport:
        started = time.perf_counter()
        name = validate_collection_name(source.collection)
        report = CollectionReport(collection=name)
        existing = self.catalog.collection(name)
        if existing is not None and reindex:
            self.vectors.delete_collection(name)
            self.catalog.delete_collection(name)
            existing = None
        known = self.catalog.document_hashes(name) if existing else {}

        pending: list[tuple[Path, str, str, int]] = []
        for path in source.files:
            file_name = source.file_name(path)
            try:
                digest, size = content_hash(path), path.stat().st_size
            except OSError as exc:
                report.problems.append(IngestProblem(file_name, "unreadable", str(exc), "error"))
                continue
            if known.get(file_name) == digest:
                report.unchanged.append(file_name)
            else:
                pending.append((path, file_name, digest, size))

        if pending:
            if existing is not None and existing.embedding_model != self.embedder.model_id:
                raise EmbeddingModelMismatchError(name, existing.embedding_model, self.embedder.model_id)
            self.catalog.ensure_collection(name, self.embedder.model_id, self.embedder.dim)

        total = len(source.files)
        for index, (path, file_name, digest, size) in enumerate(pending):
            self._ingest_file(name, path, file_name, digest, size, known, report)
            if progress:
                progress(IngestEvent("file", name, len(report.unchanged) + index + 1, total, file_name))

        if source.complete and existing is not None:
            present = {source.file_name(p) for p in source.files}
            for file_name in sorted(set(known) - present):
                self.vectors.delete_document(name, file_name)
                self.catalog.delete_document(name, file_name)
                report.removed.append(file_name)

        if self.catalog.collection(name) is not None:
            # Problems are the state of the folder as last scanned: a file fixed since is no longer listed.
            self.catalog.record_problems(name, report.problems)
            if report.changed and self.registry_builder is not None:
                self.registry_builder(name, source.root)
            if report.changed and self.on_collection_changed is not None:
                self.on_collection_changed(name)
        report.seconds = time.perf_counter() - started
        if progress:
            progress(IngestEvent("collection", name, total, total))
        return report

    def _ingest_file(
        self,
        collection: str,
        path: Path,
        file_name: str,
        digest: str,
        size: int,
        known: dict[str, str],
        report: CollectionReport,
    ) -> None:
        try:
            parsed = self.parser.parse(path, file_name)
        except IngestionError as exc:
            report.problems.append(IngestProblem(file_name, _kind(exc), str(exc), "error"))
            if file_name in known:  # the new version is unreadable: the stale one must not be searched
                self.vectors.delete_document(collection, file_name)
                self.catalog.delete_document(collection, file_name)
                report.removed.append(file_name)
            return
        for warning in parsed.warnings:
            report.problems.append(IngestProblem(file_name, "warning", warning, "warning"))
        chunks = [
            replace(chunk, token_count=self.tokens.count(chunk.text))
            for chunk in chunk_document(parsed, collection, self.settings)
        ]
        embed_started = time.perf_counter()
        embeddings = (
            self.embedder.embed_documents([embedding_input(parsed, c) for c in chunks])
            if chunks
            else np.zeros((0, self.embedder.dim), dtype=np.float32)
        )
        report.embed_seconds += time.perf_counter() - embed_started
        self.vectors.delete_document(collection, file_name)
        if chunks:
            self.vectors.upsert(collection, chunks, embeddings)
        self.catalog.replace_document(collection, parsed, digest, size, chunks)
        (report.updated if file_name in known else report.added).append(file_name)
        report.pages += len(parsed.pages)
        report.chunks += len(chunks)


def _kind(exc: IngestionError) -> str:
    return str(getattr(exc, "kind", type(exc).__name__))
