"""The catalog: the system of record for what was ingested. Chroma and the BM25 index are derived from it."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from sqlalchemy import delete, func, insert, select, update
from sqlalchemy.orm import Session, sessionmaker

from rabbithole.catalog.db import ADDED_COLUMNS, create_engine_for, prepare_tables, shown_url
from rabbithole.catalog.ocr_languages import OcrLanguageRecords, languages_of
from rabbithole.catalog.records import CollectionInfo, DocumentInfo, IngestProblem
from rabbithole.catalog.source_paths import decode_source
from rabbithole.catalog.tables import (
    Base,
    ChunkRow,
    CollectionRow,
    DocumentRow,
    IngestProblemRow,
    PageRow,
)
from rabbithole.catalog.word_boxes import decode_words, encode_words
from rabbithole.core.errors import CollectionNotFoundError, DocumentNotFoundError
from rabbithole.core.models import Chunk, PageText, ParsedDocument


class Catalog(OcrLanguageRecords):
    def __init__(self, path: Path, busy_timeout_ms: int = 30_000, *, url: str = "") -> None:
        """The catalog in the SQLite file ``path``, or in the PostgreSQL database ``url``
        (``database.url``; its schema migrated first, see ``catalog/db.py``)."""
        self.engine = create_engine_for(url, path, busy_timeout_ms)
        self.location = shown_url(self.engine.url) if url else path.name
        prepare_tables(self.engine, Base.metadata, ADDED_COLUMNS)
        self._sessions = sessionmaker(self.engine, expire_on_commit=False)
        # the plain statements of the search path, in the driver's parameter style
        self._marker = "?" if self.engine.dialect.paramstyle == "qmark" else "%s"
        self._revision_sql = f"SELECT created_at, revision FROM collections WHERE name = {self._marker}"
        self._chunks_sql = _GET_CHUNKS_SQL[self.engine.dialect.name == "postgresql"]

    def close(self) -> None:
        self.engine.dispose()

    # -- collections -------------------------------------------------------------------------------

    def list_collections(self) -> list[CollectionInfo]:
        with self._sessions() as session:
            rows = session.scalars(select(CollectionRow).order_by(CollectionRow.name)).all()
            return [self._collection_info(session, row) for row in rows]

    def collection(self, name: str) -> CollectionInfo | None:
        with self._sessions() as session:
            row = session.get(CollectionRow, name)
            return self._collection_info(session, row) if row else None

    def require_collection(self, name: str) -> CollectionInfo:
        info = self.collection(name)
        if info is None:
            raise CollectionNotFoundError(name, [c.name for c in self.list_collections()])
        return info

    def ensure_collection(self, name: str, embedding_model: str, embedding_dim: int) -> CollectionInfo:
        with self._sessions.begin() as session:
            row = session.get(CollectionRow, name)
            if row is None:
                session.add(
                    CollectionRow(name=name, embedding_model=embedding_model, embedding_dim=embedding_dim)
                )
        return self.require_collection(name)

    def delete_collection(self, name: str) -> None:
        with self._sessions.begin() as session:
            session.execute(delete(IngestProblemRow).where(IngestProblemRow.collection_name == name))
            row = session.get(CollectionRow, name)
            if row is not None:
                session.delete(row)

    def revision(self, collection: str) -> str:
        """Changes whenever the collection's chunks change, also across delete and re-create. Asked on every
        search, so it is one plain SQL statement rather than an ORM round trip."""
        rows = self._plain_query(self._revision_sql, (collection,))
        row = rows[0] if rows else None
        if row is None:
            raise CollectionNotFoundError(collection, [c.name for c in self.list_collections()])
        return f"{row[0]}-{row[1]}"

    def touch(self, collection: str) -> None:
        """Move the collection's revision on (its vectors were rebuilt: what is derived from them, the copy
        beside the BM25 index, is built again)."""
        with self._sessions.begin() as session:
            self._bump_revision(session, collection)

    def _bump_revision(self, session: Session, collection: str) -> None:
        session.execute(
            update(CollectionRow)
            .where(CollectionRow.name == collection)
            .values(revision=CollectionRow.revision + 1)
        )

    @staticmethod
    def _collection_info(session: Session, row: CollectionRow) -> CollectionInfo:
        documents = session.scalar(
            select(func.count()).select_from(DocumentRow).where(DocumentRow.collection_name == row.name)
        )
        chunks = session.scalar(
            select(func.count())
            .select_from(ChunkRow)
            .join(DocumentRow, ChunkRow.document_id == DocumentRow.id)
            .where(DocumentRow.collection_name == row.name)
        )
        return CollectionInfo(
            name=row.name,
            embedding_model=row.embedding_model,
            embedding_dim=row.embedding_dim,
            revision=row.revision,
            documents=int(documents or 0),
            chunks=int(chunks or 0),
            updated_at=row.updated_at,
            ocr_languages=languages_of(row.ocr_languages or ""),
        )

    # -- documents ---------------------------------------------------------------------------------

    def document_hashes(self, collection: str) -> dict[str, str]:
        with self._sessions() as session:
            rows = session.execute(
                select(DocumentRow.file_name, DocumentRow.content_hash).where(
                    DocumentRow.collection_name == collection
                )
            ).all()
            return {name: digest for name, digest in rows}

    def documents(self, collection: str) -> list[DocumentInfo]:
        with self._sessions() as session:
            counts: dict[int, int] = {
                doc_id: count
                for doc_id, count in session.execute(
                    select(ChunkRow.document_id, func.count())
                    .join(DocumentRow, ChunkRow.document_id == DocumentRow.id)
                    .where(DocumentRow.collection_name == collection)
                    .group_by(ChunkRow.document_id)
                )
            }
            rows = session.scalars(
                select(DocumentRow)
                .where(DocumentRow.collection_name == collection)
                .order_by(DocumentRow.file_name)
            ).all()
            return [self._document_info(row, counts.get(row.id, 0)) for row in rows]

    @staticmethod
    def _document_info(row: DocumentRow, chunks: int) -> DocumentInfo:
        return DocumentInfo(
            collection=row.collection_name,
            file_name=row.file_name,
            content_hash=row.content_hash,
            size_bytes=row.size_bytes,
            page_count=row.page_count,
            title=row.title,
            abbreviation=row.abbreviation,
            is_legal=row.is_legal,
            chunks=chunks,
            warnings=list(json.loads(row.warnings_json)),
            language=row.language or "",
        )

    def replace_document(
        self,
        collection: str,
        parsed: ParsedDocument,
        content_hash: str,
        size_bytes: int,
        chunks: Sequence[Chunk],
        *,
        language: str = "",
        source_path: str = "",
        ocr_languages: str = "",
    ) -> None:
        """Insert or replace one document with its pages and chunks, atomically. ``source_path``: the file
        it was read from (served as the document's PDF); ``ocr_languages``: the languages ("deu+eng") its
        pages read by OCR were read in."""
        with self._sessions.begin() as session:
            session.execute(
                delete(DocumentRow).where(
                    DocumentRow.collection_name == collection, DocumentRow.file_name == parsed.file_name
                )
            )
            row = DocumentRow(
                collection_name=collection,
                file_name=parsed.file_name,
                content_hash=content_hash,
                size_bytes=size_bytes,
                page_count=len(parsed.pages),
                title=parsed.title,
                abbreviation=parsed.abbreviation,
                is_legal=parsed.is_legal,
                language=language,
                warnings_json=json.dumps(parsed.warnings, ensure_ascii=False),
                source_path=source_path,
                ocr_languages=ocr_languages,
            )
            session.add(row)
            session.flush()
            # Pages and chunks as bulk inserts (one executemany each): ORM objects for a large law's
            # thousand rows cost twice as much CPU, on the thread that should leave it to the embedder.
            if parsed.pages:
                session.execute(
                    insert(PageRow),
                    [
                        {
                            "document_id": row.id,
                            "number": p.number,
                            "offset": p.offset,
                            "text": p.text,
                            "source": p.source,
                            "ocr_confidence": p.ocr_confidence,
                            "words_json": encode_words(p.words),
                        }
                        for p in parsed.pages
                    ],
                )
            if chunks:
                session.execute(insert(ChunkRow), [self._chunk_values(row.id, chunk) for chunk in chunks])
            self._bump_revision(session, collection)

    @staticmethod
    def _chunk_values(document_id: int, chunk: Chunk) -> dict[str, Any]:
        return {
            "id": chunk.id,
            "document_id": document_id,
            "ordinal": chunk.ordinal,
            "start": chunk.start,
            "end": chunk.end,
            "page": chunk.page,
            "page_end": chunk.page_end,
            "section": chunk.section,
            "heading": chunk.heading,
            "section_path_json": json.dumps(list(chunk.section_path), ensure_ascii=False),
            "text": chunk.text,
            "token_count": chunk.token_count,
        }

    def delete_document(self, collection: str, file_name: str) -> None:
        with self._sessions.begin() as session:
            result = session.execute(
                delete(DocumentRow).where(
                    DocumentRow.collection_name == collection, DocumentRow.file_name == file_name
                )
            )
            if result.rowcount:  # type: ignore[attr-defined]
                self._bump_revision(session, collection)

    def pages(self, collection: str, file_name: str) -> list[PageText]:
        with self._sessions() as session:
            doc_id = self._document_id(session, collection, file_name)
            rows = session.scalars(
                select(PageRow).where(PageRow.document_id == doc_id).order_by(PageRow.number)
            ).all()
            return [
                PageText(r.number, r.text, r.offset, r.source, r.ocr_confidence, decode_words(r.words_json))
                for r in rows
            ]

    def ocr_confidences(self, collection: str) -> dict[tuple[str, int], float]:
        """OCR's mean word confidence (percent) per (document, page) of the pages read by OCR."""
        with self._sessions() as session:
            rows = session.execute(
                select(DocumentRow.file_name, PageRow.number, PageRow.ocr_confidence)
                .join(PageRow, PageRow.document_id == DocumentRow.id)
                .where(DocumentRow.collection_name == collection, PageRow.source == "ocr")
            ).all()
        return {(name, number): float(confidence or 0.0) for name, number, confidence in rows}

    def document_languages(self, collection: str) -> dict[str, str]:
        """Language code per document ("" where ingestion did not record one)."""
        with self._sessions() as session:
            rows = session.execute(
                select(DocumentRow.file_name, DocumentRow.language).where(
                    DocumentRow.collection_name == collection
                )
            ).all()
        return {name: language or "" for name, language in rows}

    def set_document_language(self, collection: str, file_name: str, language: str) -> None:
        with self._sessions.begin() as session:
            session.execute(
                update(DocumentRow)
                .where(DocumentRow.collection_name == collection, DocumentRow.file_name == file_name)
                .values(language=language)
            )

    def document_texts(self, collection: str) -> dict[str, str]:
        """Full text of every document of a collection (pages joined as in ParsedDocument.text)."""
        with self._sessions() as session:
            rows = session.execute(
                select(DocumentRow.file_name, PageRow.text)
                .join(PageRow, PageRow.document_id == DocumentRow.id)
                .where(DocumentRow.collection_name == collection)
                .order_by(DocumentRow.file_name, PageRow.number)
            ).all()
        texts: dict[str, list[str]] = {}
        for name, page_text in rows:
            texts.setdefault(name, []).append(page_text)
        return {name: ParsedDocument.PAGE_SEPARATOR.join(parts) for name, parts in texts.items()}

    def document_ids(self, collection: str) -> dict[str, int]:
        """File name → the document's id (stable until the document is deleted or its collection is)."""
        with self._sessions() as session:
            rows = session.execute(
                select(DocumentRow.file_name, DocumentRow.id).where(DocumentRow.collection_name == collection)
            ).all()
        return {file_name: doc_id for file_name, doc_id in rows}

    def record_sources(self, collection: str, sources: dict[str, str]) -> None:
        """Record where unchanged documents were found by this ingestion (file name → path as
        ``source_paths.encode_source`` stores it)."""
        if not sources:
            return
        with self._sessions.begin() as session:
            for file_name, path in sources.items():
                session.execute(
                    update(DocumentRow)
                    .where(DocumentRow.collection_name == collection, DocumentRow.file_name == file_name)
                    .values(source_path=path)
                )

    def document_source(self, collection: str, file_name: str) -> tuple[Path, int] | None:
        """(source path, size in bytes) the document was ingested from; None if unknown."""
        with self._sessions() as session:
            row = session.execute(
                select(DocumentRow.source_path, DocumentRow.size_bytes).where(
                    DocumentRow.collection_name == collection, DocumentRow.file_name == file_name
                )
            ).first()
        path = decode_source(str(row[0])) if row is not None else None
        if row is None or path is None:
            return None
        return path, int(row[1])

    def locate_document(self, document_id: int) -> tuple[str, str]:
        """(collection, file name) of the document with this id; DocumentNotFoundError if there is none."""
        with self._sessions() as session:
            row = session.execute(
                select(DocumentRow.collection_name, DocumentRow.file_name).where(
                    DocumentRow.id == document_id
                )
            ).first()
        if row is None:
            raise DocumentNotFoundError(f"document {document_id} does not exist")
        return row[0], row[1]

    @staticmethod
    def _document_id(session: Session, collection: str, file_name: str) -> int:
        doc_id = session.scalar(
            select(DocumentRow.id).where(
                DocumentRow.collection_name == collection, DocumentRow.file_name == file_name
            )
        )
        if doc_id is None:
            raise DocumentNotFoundError(f"document '{file_name}' is not in collection '{collection}'")
        return doc_id

    # -- chunks ------------------------------------------------------------------------------------

    _CHUNK_COLUMNS = (
        ChunkRow.id,
        DocumentRow.collection_name,
        DocumentRow.file_name,
        ChunkRow.ordinal,
        ChunkRow.text,
        ChunkRow.start,
        ChunkRow.end,
        ChunkRow.page,
        ChunkRow.page_end,
        ChunkRow.section,
        ChunkRow.heading,
        ChunkRow.section_path_json,
        ChunkRow.token_count,
    )

    @staticmethod
    def _chunk(row: Any) -> Chunk:
        return Chunk(
            id=row[0],
            collection=row[1],
            document=row[2],
            ordinal=row[3],
            text=row[4],
            start=row[5],
            end=row[6],
            page=row[7],
            page_end=row[8],
            section=row[9],
            heading=row[10],
            section_path=tuple(json.loads(row[11])),
            token_count=row[12],
        )

    def chunks(self, collection: str, document: str | None = None) -> list[Chunk]:
        query = (
            select(*self._CHUNK_COLUMNS)
            .join(DocumentRow, ChunkRow.document_id == DocumentRow.id)
            .where(DocumentRow.collection_name == collection)
        )
        if document is not None:
            query = query.where(DocumentRow.file_name == document)
        query = query.order_by(DocumentRow.file_name, ChunkRow.ordinal)
        with self._sessions() as session:
            return [self._chunk(row) for row in session.execute(query)]

    def get_chunks(self, collection: str, ids: Iterable[str]) -> dict[str, Chunk]:
        """Chunks by id. On every search's path, so it is one plain SQL statement: CROSS JOIN makes SQLite
        look the chunks up by primary key first (its planner, without statistics, would otherwise walk the
        whole collection; PostgreSQL plans a plain JOIN by its statistics), and no ORM or expression
        building happens per call."""
        wanted = list(dict.fromkeys(ids))
        found: dict[str, Chunk] = {}
        for i in range(0, len(wanted), 500):
            part = wanted[i : i + 500]
            sql = self._chunks_sql.format(placeholders=",".join([self._marker] * len(part)))
            for row in self._plain_query(sql, (*part, collection)):
                chunk = self._chunk(row)
                found[chunk.id] = chunk
        return found

    def _plain_query(self, sql: str, parameters: tuple[Any, ...]) -> list[Any]:
        """Rows of one read statement on a pooled DB-API connection, without SQLAlchemy's Connection and
        result layers (half the time of ``exec_driver_sql`` on the search path)."""
        connection = self.engine.raw_connection()
        try:
            cursor = connection.cursor()
            try:
                return list(cursor.execute(sql, parameters).fetchall())
            finally:
                cursor.close()
        finally:
            connection.close()

    # -- registry and problems ---------------------------------------------------------------------

    def save_registry(self, collection: str, registry: dict[str, Any]) -> None:
        with self._sessions.begin() as session:
            session.execute(
                update(CollectionRow)
                .where(CollectionRow.name == collection)
                .values(registry_json=json.dumps(registry, ensure_ascii=False))
            )

    def load_registry(self, collection: str) -> dict[str, Any]:
        with self._sessions() as session:
            raw = session.scalar(select(CollectionRow.registry_json).where(CollectionRow.name == collection))
            if raw is None:
                raise CollectionNotFoundError(collection)
            data: dict[str, Any] = json.loads(raw)
            return data

    def record_problems(self, collection: str, problems: Sequence[IngestProblem]) -> None:
        with self._sessions.begin() as session:
            session.execute(delete(IngestProblemRow).where(IngestProblemRow.collection_name == collection))
            session.add_all(
                IngestProblemRow(
                    collection_name=collection,
                    file_name=p.file_name,
                    kind=p.kind,
                    reason=p.reason,
                    severity=p.severity,
                )
                for p in problems
            )

    def problems(self, collection: str) -> list[IngestProblem]:
        with self._sessions() as session:
            rows = session.scalars(
                select(IngestProblemRow)
                .where(IngestProblemRow.collection_name == collection)
                .order_by(IngestProblemRow.file_name)
            ).all()
            return [IngestProblem(r.file_name, r.kind, r.reason, r.severity) for r in rows]


_CHUNK_SELECT = (
    'SELECT c.id, d.collection_name, d.file_name, c.ordinal, c.text, c.start, c."end", c.page, c.page_end, '
    "c.section, c.heading, c.section_path_json, c.token_count FROM chunks AS c "
)
#: get_chunks' statement: [SQLite, PostgreSQL] (PostgreSQL has no CROSS JOIN ... ON, and marks with %s).
_GET_CHUNKS_SQL = (
    _CHUNK_SELECT + "CROSS JOIN documents AS d ON d.id = c.document_id "
    "WHERE c.id IN ({placeholders}) AND d.collection_name = ?",
    _CHUNK_SELECT + "JOIN documents AS d ON d.id = c.document_id "
    "WHERE c.id IN ({placeholders}) AND d.collection_name = %s",
)
