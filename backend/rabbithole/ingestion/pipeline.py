"""Incremental ingestion: new and changed files are parsed, chunked, embedded and indexed; unchanged files
are skipped by content hash; files removed from a collection folder leave the index. A bad file never stops
the batch: it is reported with its name and reason. Neither does a vector store that fails while the files
are written (a Chroma server that went down): each file whose vectors could not be written is reported
(:mod:`rabbithole.ingestion.vector_failures`), and the catalog keeps no row of it, so the next run indexes
it again and catalog and vectors agree."""

from __future__ import annotations

import logging
import time
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from rabbithole.catalog.ocr_languages import spec_of
from rabbithole.catalog.records import IngestProblem
from rabbithole.catalog.source_paths import encode_source
from rabbithole.core.config import IngestionSettings
from rabbithole.core.errors import EmbeddingModelMismatchError, IngestionError, StoreError
from rabbithole.core.models import Chunk, ParsedDocument
from rabbithole.ingestion.busy_clock import BusyClock
from rabbithole.ingestion.chunking import chunk_document
from rabbithole.ingestion.discovery import CollectionSource, content_hash, discover, validate_collection_name
from rabbithole.ingestion.embedding_text import embedding_input, text_token_counts
from rabbithole.ingestion.ocr.languages import effective_languages
from rabbithole.ingestion.reports import CollectionReport, IngestEvent, IngestReport, source_problems
from rabbithole.ingestion.vector_failures import VectorsNotWritten, not_removed, settle_not_written

if TYPE_CHECKING:  # imported when a file needs work: a re-run over an unchanged folder stays light
    import numpy as np
    import numpy.typing as npt

    from rabbithole.catalog.repository import Catalog
    from rabbithole.embeddings.base import Embedder, TokenCountingEmbedder
    from rabbithole.store.chroma_store import ChromaStore, VectorCollection

    #: a file's vectors, and its chunks' token counts when the embedder counted them
    Embedded = tuple[npt.NDArray[np.float32], list[int] | None]

log = logging.getLogger(__name__)

#: files parsed ahead of the one being embedded
READ_AHEAD = 2
#: files embedded at the same time: the embedder's workers always have the next file's batches queued,
#: instead of one idling while the other finishes a file's last batch
EMBED_AHEAD = 2

Prepared = tuple[ParsedDocument, list[Chunk]] | IngestProblem


@dataclass(frozen=True, slots=True)
class OpenedVectors:
    """A run's vector collection. ``empty``: it held no vector when the run opened it, so no file written
    in this run (each is written once) has earlier vectors to delete first."""

    collection: VectorCollection
    empty: bool


class Parser(Protocol):
    def parse(self, path: Path, file_name: str) -> ParsedDocument: ...


@dataclass(frozen=True, slots=True)
class Reading:
    """How a run reads its collection's files: the parser, and the OCR languages it reads scans in."""

    parser: Parser
    ocr_languages: tuple[str, ...]

    def ocr_spec(self, parsed: ParsedDocument) -> str:
        """The languages ("deu+eng") the document's OCR pages were read in; "" when none was."""
        return spec_of(self.ocr_languages) if any(p.source == "ocr" for p in parsed.pages) else ""


class TokenCounter(Protocol):
    @property
    def model_key(self) -> str: ...

    def count_many(self, texts: Sequence[str]) -> list[int]: ...


class IngestionPipeline:
    def __init__(
        self,
        settings: IngestionSettings,
        catalog: Catalog,
        parser: Parser,
        embedder_factory: Callable[[], Embedder],
        store_factory: Callable[[], ChromaStore],
        tokens_factory: Callable[[], TokenCounter],
        on_collection_changed: Callable[[str], None] | None = None,
        registry_builder: Callable[[str, Path, bool], object] | None = None,
        language_of: Callable[[str], str] | None = None,
        warm_up: Callable[[], object] | None = None,
        prepare_index: Callable[[str, list[Chunk]], object] | None = None,
        release_embedder: Callable[[Embedder], None] | None = None,
        write_lock: Callable[[str], AbstractContextManager[object]] | None = None,
        parser_in: Callable[[tuple[str, ...]], Parser] | None = None,
    ) -> None:
        """``language_of``: the ISO 639-1 code of a document's text, recorded per document (the research
        run searches in the documents' language too). ``prepare_index(collection, chunks)``: given each
        parsed document's chunks on the writer thread while the embedder works, so the search index built
        after the last file has less left to do. ``release_embedder``: given the embedder at the end of each
        run that made one (an embedding process is stopped there); the next run asks the factory again.
        ``write_lock(collection)``: held from the first write into a collection to the last (one writer per
        collection, :mod:`rabbithole.store.write_locks`). ``parser_in(languages)``: the parser that reads
        scans in these OCR languages (a collection's own, or the default ``settings.ocr.languages``);
        without it ``parser`` reads every collection."""
        self.settings = settings
        self.language_of = language_of
        self.catalog = catalog
        self.parser = parser
        self._embedder_factory = embedder_factory
        self._embedder: Embedder | None = None
        self._store_factory = store_factory
        self._tokens_factory = tokens_factory
        self.on_collection_changed = on_collection_changed
        self.registry_builder = registry_builder
        #: run on the writer thread before the first write: loads what the end of the run needs (the search
        #: stack for the BM25 index, the registry builder) while the embedder works, not after it
        self.warm_up = warm_up
        self.prepare_index = prepare_index
        self.release_embedder = release_embedder
        self.write_lock = write_lock
        self.parser_in = parser_in

    @cached_property
    def store(self) -> ChromaStore:
        return self._store_factory()

    @cached_property
    def tokens(self) -> TokenCounter:
        return self._tokens_factory()

    @property
    def embedder(self) -> Embedder:
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
        try:
            for source in discover(path, collection):
                report.collections.append(self._ingest_collection(source, reindex, progress))
        finally:
            self._release_embedder()
        return report

    def ingest_files(
        self,
        collection: str,
        root: Path,
        files: Sequence[Path],
        progress: Callable[[IngestEvent], None] | None = None,
        *,
        reread: bool = False,
    ) -> CollectionReport:
        """Add or update these files of ``root`` in ``collection``, leaving its other documents alone
        (an upload: the folder is not the whole collection). ``reread``: read them even where their content
        is unchanged (the collection's OCR languages changed since)."""
        source = CollectionSource(collection, root, tuple(files), complete=False, reread=reread)
        try:
            return self._ingest_collection(source, False, progress)
        finally:
            self._release_embedder()

    def _release_embedder(self) -> None:
        embedder, self._embedder = self._embedder, None
        if embedder is not None and self.release_embedder is not None:
            self.release_embedder(embedder)

    def _ingest_collection(
        self, source: CollectionSource, reindex: bool, progress: Callable[[IngestEvent], None] | None
    ) -> CollectionReport:
        started = time.perf_counter()
        name = validate_collection_name(source.collection)
        with self.write_lock(name) if self.write_lock is not None else nullcontext():
            report = self._ingest_locked(name, source, reindex, progress)
        report.seconds = time.perf_counter() - started
        if progress:
            total = len(source.files)
            progress(IngestEvent("collection", name, total, total))
        return report

    def _ingest_locked(
        self,
        name: str,
        source: CollectionSource,
        reindex: bool,
        progress: Callable[[IngestEvent], None] | None,
    ) -> CollectionReport:
        report = CollectionReport(collection=name)
        existing = self.catalog.collection(name)
        own_languages = existing.ocr_languages if existing is not None else ()
        if reindex:
            self.store.delete_collection(name)
            if existing is not None:
                self.catalog.delete_collection(name)
            existing = None
        known = self.catalog.document_hashes(name) if existing else {}

        pending: list[tuple[Path, str, str, int]] = []
        unchanged_sources: dict[str, str] = {}
        report.problems.extend(source_problems(source))
        for path in source.files:
            file_name = source.file_name(path)
            try:
                digest, size = content_hash(path), path.stat().st_size
            except OSError as exc:
                report.problems.append(IngestProblem(file_name, "unreadable", str(exc), "error"))
                continue
            if known.get(file_name) == digest and not source.reread:
                report.unchanged.append(file_name)
                unchanged_sources[file_name] = encode_source(path)
            else:
                pending.append((path, file_name, digest, size))

        if pending:
            if existing is not None and existing.embedding_model != self.embedder.model_id:
                raise EmbeddingModelMismatchError(name, existing.embedding_model, self.embedder.model_id)
            self.catalog.ensure_collection(name, self.embedder.model_id, self.embedder.dim)
            if reindex and own_languages:  # the collection's setting outlives its re-indexing
                self.catalog.set_ocr_languages(name, own_languages)

        self.catalog.record_sources(name, unchanged_sources)  # the folder may have moved since
        total = len(source.files)
        if pending:
            # Largest first: the run ends on small files, so the embedder's workers finish together and
            # the last file's write is short (a large file last kept one core idle for seconds).
            pending.sort(key=lambda item: (-item[3], item[1]))
            self._ingest_files(name, pending, known, report, progress, total, self._reading(own_languages))

        if source.complete and existing is not None:
            present = {source.file_name(p) for p in source.files}
            gone = sorted(set(known) - present)
            try:
                removed_from = None
                if gone and self.store.exists(name):
                    self.store.sync(name, self.catalog.revision(name))
                    removed_from = self.store.open(name)
                for file_name in gone:
                    if removed_from is not None:
                        removed_from.delete_document(file_name)
                    self.catalog.delete_document(name, file_name)
                    report.removed.append(file_name)
            except StoreError as exc:  # their catalog rows stay with their vectors: the next run removes them
                report.problems.extend(not_removed(f, exc) for f in gone if f not in report.removed)

        if self.catalog.collection(name) is not None:
            # Problems are the state of the folder as last scanned: a file fixed since is no longer listed.
            # A partial source (single files, an upload) keeps the problems of the files it did not see.
            problems = report.problems
            if not source.complete:
                seen = {source.file_name(p) for p in source.files}
                kept = [p for p in self.catalog.problems(name) if p.file_name not in seen]
                problems = [*kept, *problems]
            self.catalog.record_problems(name, problems)
            if report.changed and "store" in self.__dict__:  # this run wrote the store: it is current
                self.store.note_written(name, self.catalog.revision(name))
            if self.registry_builder is not None:  # it also notices an edited registry.yaml
                self.registry_builder(name, source.root, report.changed)
            if report.changed and self.on_collection_changed is not None:
                self._collection_changed(name)
        return report

    def _reading(self, own_languages: tuple[str, ...]) -> Reading:
        languages = effective_languages(own_languages, self.settings.ocr)
        if self.parser_in is None:
            return Reading(self.parser, languages)
        return Reading(self.parser_in(languages), languages)

    def _collection_changed(self, name: str) -> None:
        """Prepare the search of the changed collection now (its BM25 index, the copy of its vectors). What
        was ingested is stored whatever happens here: a failure is logged, and the search builds what it
        needs when it is first asked."""
        assert self.on_collection_changed is not None
        try:
            self.on_collection_changed(name)
        except Exception:
            log.exception("preparing the search of %s after ingestion failed; it is built when needed", name)

    def _ingest_files(
        self,
        collection: str,
        pending: Sequence[tuple[Path, str, str, int]],
        known: dict[str, str],
        report: CollectionReport,
        progress: Callable[[IngestEvent], None] | None,
        total: int,
        reading: Reading,
    ) -> None:
        """Four stages overlap: a reader thread parses and chunks the next files; this thread loads the
        embedder, then hands each file to the embedder (EMBED_AHEAD files at once, whose batches its
        workers share); a writer thread opens the vector store, imports what the end of the run needs, and
        stores what was embedded. Files finish, and are written, in their order (largest first)."""
        with (
            ThreadPoolExecutor(max_workers=1, thread_name_prefix="ingest-read") as reader,
            ThreadPoolExecutor(max_workers=EMBED_AHEAD, thread_name_prefix="ingest-embed") as embedding,
            ThreadPoolExecutor(max_workers=1, thread_name_prefix="ingest-write") as writer,
        ):
            ahead: deque[tuple[tuple[Path, str, str, int], Future[Prepared]]] = deque()
            upcoming = iter(pending)

            def prepare(path: Path, file_name: str) -> Prepared:
                if progress:
                    progress(IngestEvent("parsing", collection, len(report.unchanged), total, file_name))
                return self._prepare(collection, path, file_name, reading.parser)

            def read_next() -> None:
                item = next(upcoming, None)
                if item is not None:
                    ahead.append((item, reader.submit(prepare, item[0], item[1])))

            for _ in range(READ_AHEAD):
                read_next()
            # The writer runs its tasks in order: every write below finds the store open. The store itself
            # (the Chroma client, chromadb's imports) is built there too, not here before the model loads.
            opened = writer.submit(self._open_vectors, collection)
            writes: list[Future[Any]] = [opened]
            if self.warm_up is not None:
                writes.append(writer.submit(self.warm_up))
            self._load_embedder()  # while the reader parses the first files and the writer opens the store
            busy = BusyClock()
            counting = self._counting_embedder()
            in_flight: deque[tuple[int, tuple[Path, str, str, int], Prepared, Future[Any] | None]] = deque()

            def finish_oldest() -> None:
                index, (path, file_name, digest, size), outcome, embedded = in_flight.popleft()
                error = ""
                if isinstance(outcome, IngestProblem):
                    error = outcome.reason
                    if file_name in known:  # the new version is unreadable: the stale one must not be found
                        writes.append(writer.submit(self._remove, opened.result, collection, file_name))
                        report.removed.append(file_name)
                else:
                    parsed, chunks = outcome
                    writes.append(
                        writer.submit(
                            self._store_file,
                            opened.result,
                            collection,
                            parsed,
                            chunks,
                            embedded.result() if embedded is not None else None,
                            digest,
                            size,
                            path,
                            reading.ocr_spec(parsed),
                            progress,
                            len(report.unchanged),
                            total,
                        )
                    )
                    (report.updated if file_name in known else report.added).append(file_name)
                    report.pages += len(parsed.pages)
                    report.chunks += len(chunks)
                if progress:
                    done = len(report.unchanged) + index
                    progress(IngestEvent("file", collection, done, total, file_name, error))

            index = 0
            while ahead:
                item, future = ahead.popleft()
                read_next()
                index += 1
                outcome = future.result()
                embedded: Future[Any] | None = None
                if isinstance(outcome, IngestProblem):
                    report.problems.append(outcome)
                else:
                    parsed, chunks = outcome
                    report.problems.extend(
                        IngestProblem(item[1], "warning", w, "warning") for w in parsed.warnings
                    )
                    if self.prepare_index is not None and chunks:
                        writes.append(writer.submit(self._prepare_index, collection, chunks))
                    if progress:
                        done = len(report.unchanged) + index - 1
                        progress(IngestEvent("embedding", collection, done, total, item[1]))
                    if chunks:
                        embedded = embedding.submit(busy.timed, self._embed, counting, parsed, chunks)
                in_flight.append((index, item, outcome, embedded))
                if len(in_flight) >= EMBED_AHEAD:
                    finish_oldest()
            while in_flight:
                finish_oldest()
            report.embed_seconds += busy.seconds
            for write in writes:
                try:
                    write.result()  # any other failure (the catalog's) stops the run
                except VectorsNotWritten as failed:
                    settle_not_written(report, failed)
                except StoreError:
                    if write is not opened:
                        raise
                    # the store could not be opened: each write after it reported its file

    def _open_vectors(self, collection: str) -> OpenedVectors:
        if self.catalog.collection(collection) is not None:  # another process may have written it since
            self.store.sync(collection, self.catalog.revision(collection))
        vectors = self.store.open(collection, self.embedder, create=True)
        return OpenedVectors(vectors, empty=vectors.count() == 0)

    def _prepare_index(self, collection: str, chunks: list[Chunk]) -> None:
        """Work done ahead for the search index; when it fails, the index is built in full afterwards."""
        if self.prepare_index is None:
            return
        try:
            self.prepare_index(collection, chunks)
        except Exception:
            log.exception("preparing the search index of %s failed; it is built in full later", collection)

    def _counting_embedder(self) -> TokenCountingEmbedder | None:
        """The embedder, when it counts tokens in the token counter's tokenizer (its counts then give
        the chunks' counts, see :mod:`rabbithole.ingestion.embedding_text`)."""
        from rabbithole.embeddings.base import TokenCountingEmbedder

        embedder = self.embedder
        if not isinstance(embedder, TokenCountingEmbedder) or embedder.token_model is None:
            return None
        return embedder if embedder.token_model == self.tokens.model_key else None

    def _embed(
        self, counting: TokenCountingEmbedder | None, parsed: ParsedDocument, chunks: list[Chunk]
    ) -> Embedded:
        texts = [embedding_input(parsed, c) for c in chunks]
        if counting is None:
            return self.embedder.embed_documents(texts), None
        # The embedder counts what it embeds and the chunks' contexts, in this (embedding) thread: this
        # process never builds the tokenizer when the model runs in a child process.
        vectors, input_counts = counting.embed_documents_counted(texts)
        return vectors, text_token_counts(parsed, chunks, input_counts, counting.count_tokens)

    def _counted(self, chunks: list[Chunk], counts: list[int] | None) -> list[Chunk]:
        """The chunks with their token counts: the embedder's, or counted here."""
        if counts is None:
            counts = self.tokens.count_many([c.text for c in chunks])
        return [replace(c, token_count=n) for c, n in zip(chunks, counts, strict=True)]

    def _load_embedder(self) -> None:
        load = getattr(self.embedder, "load", None)  # local models load their weights; remote ones need not
        if callable(load):
            load()

    def _prepare(self, collection: str, path: Path, file_name: str, parser: Parser) -> Prepared:
        try:
            parsed = parser.parse(path, file_name)
        except IngestionError as exc:
            return IngestProblem(file_name, _kind(exc), str(exc), "error")
        except Exception as exc:  # a parser bug on one odd file must not stop the batch
            log.exception("unexpected failure reading %s", file_name)
            return IngestProblem(file_name, "unreadable", f"could not be read: {exc}", "error")
        return parsed, chunk_document(parsed, collection, self.settings)

    def _store_file(
        self,
        vectors: Callable[[], OpenedVectors],
        collection: str,
        parsed: ParsedDocument,
        chunks: list[Chunk],
        embedded: Embedded | None,
        digest: str,
        size: int,
        source: Path,
        ocr_languages: str,
        progress: Callable[[IngestEvent], None] | None,
        done: int,
        total: int,
    ) -> None:
        # Vectors first: if the process dies before the catalog commit, the file's old hash stays recorded
        # and the next run ingests it again.
        if chunks and embedded is not None:
            chunks = self._counted(chunks, embedded[1])
        try:
            opened = vectors()
        except StoreError as exc:  # nothing was written: an earlier version stays as it was, vectors and rows
            raise VectorsNotWritten(parsed.file_name, exc, len(parsed.pages), len(chunks)) from exc
        try:
            if not opened.empty:  # an earlier version's vectors, or those of a run that died before commit
                opened.collection.delete_document(parsed.file_name)
            if chunks and embedded is not None:
                opened.collection.upsert(chunks, embedded[0])
        except StoreError as exc:
            # an earlier version's rows leave the catalog (its vectors may be gone): the next run indexes
            # the file as new and first deletes whatever vectors of it are left
            self.catalog.delete_document(collection, parsed.file_name)
            raise VectorsNotWritten(parsed.file_name, exc, len(parsed.pages), len(chunks)) from exc
        language = self.language_of(language_sample(chunks)) if self.language_of and chunks else ""
        self.catalog.replace_document(
            collection,
            parsed,
            digest,
            size,
            chunks,
            language=language,
            source_path=encode_source(source),
            ocr_languages=ocr_languages,
        )
        if progress:
            progress(IngestEvent("stored", collection, done, total, parsed.file_name))

    def _remove(self, vectors: Callable[[], OpenedVectors], collection: str, file_name: str) -> None:
        try:
            vectors().collection.delete_document(file_name)
        except StoreError as exc:  # its catalog rows stay with its vectors: the next run removes both
            raise VectorsNotWritten(file_name, exc, removing=True) from exc
        self.catalog.delete_document(collection, file_name)


def _kind(exc: IngestionError) -> str:
    return str(getattr(exc, "kind", type(exc).__name__))


def language_sample(chunks: Sequence[Chunk], chars: int = 3000) -> str:
    """Text of a document's first chunks, enough to tell its language."""
    out: list[str] = []
    used = 0
    for chunk in chunks:
        if used >= chars:
            break
        out.append(chunk.text)
        used += len(chunk.text)
    return "\n".join(out)[:chars]
