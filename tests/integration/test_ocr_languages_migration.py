"""The OCR language columns reach existing catalogs: a PostgreSQL database at revision 0004 migrated by
revision 0005, and a SQLite catalog of a version before them opened (the columns added at start). Documents
read by OCR before the languages were recorded show those of their warning; the collection reads in the
server's default until it is given its own."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from alembic import command
from sqlalchemy import Engine, inspect, text

from rabbithole.catalog.db import create_postgres_engine, create_sqlite_engine
from rabbithole.catalog.repository import Catalog
from rabbithole.migrations import _config, head_revision

WARNING = "pages 1-2 read by OCR (Tesseract, deu+eng), mean confidence 93 %"


def _insert_read_by_ocr(engine: Engine) -> None:
    """A collection with one document whose pages OCR read, as version 0004 stored it."""
    now = datetime.now(UTC).replace(tzinfo=None)
    with engine.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO collections (name, embedding_model, embedding_dim, revision, registry_json, "
                "created_at, updated_at) VALUES ('scans', 'm', 4, 1, '{}', :now, :now)"
            ),
            {"now": now},
        )
        conn.execute(
            text(
                "INSERT INTO documents (id, collection_name, file_name, content_hash, size_bytes, "
                "page_count, title, abbreviation, is_legal, language, warnings_json, source_path, "
                "ingested_at) VALUES "
                "(1, 'scans', 'permit.pdf', 'h', 10, 1, 't', '', false, 'de', :warnings, '', :now)"
            ),
            {"now": now, "warnings": json.dumps([WARNING])},
        )
        conn.execute(
            text(
                'INSERT INTO pages (document_id, number, "offset", text, source, ocr_confidence, words_json) '
                "VALUES (1, 1, 0, 'Genehmigung', 'ocr', 93.0, '')"
            )
        )


def _check_upgraded(catalog: Catalog) -> None:
    assert catalog.require_collection("scans").ocr_languages == ()
    assert catalog.documents_read_by_ocr("scans") == {"permit.pdf": ("deu", "eng")}
    catalog.set_ocr_languages("scans", ("deu",))
    assert catalog.ocr_languages("scans") == ("deu",)


def test_revision_0005_migrates_a_database_at_0004(postgres_url: str, tmp_path: Path) -> None:
    engine = create_postgres_engine(postgres_url)
    try:
        with engine.begin() as conn:
            command.upgrade(_config(conn), "0004")  # type: ignore[arg-type]
        assert "ocr_languages" not in {c["name"] for c in inspect(engine).get_columns("collections")}
        _insert_read_by_ocr(engine)
        catalog = Catalog(tmp_path / "unused.sqlite3", url=postgres_url)  # migrates to head at start
        try:
            with engine.connect() as conn:
                assert conn.scalar(text("SELECT version_num FROM alembic_version")) == head_revision()
            _check_upgraded(catalog)
        finally:
            catalog.close()
    finally:
        engine.dispose()


def test_a_sqlite_catalog_of_an_earlier_version_gets_the_columns(tmp_path: Path) -> None:
    path = tmp_path / "catalog.sqlite3"
    Catalog(path).close()
    engine = create_sqlite_engine(path)
    try:
        with engine.begin() as conn:  # the catalog as the version before stored it
            conn.execute(text("ALTER TABLE collections DROP COLUMN ocr_languages"))
            conn.execute(text("ALTER TABLE documents DROP COLUMN ocr_languages"))
        _insert_read_by_ocr(engine)
    finally:
        engine.dispose()
    catalog = Catalog(path)
    try:
        _check_upgraded(catalog)
    finally:
        catalog.close()
