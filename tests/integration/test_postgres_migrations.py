"""The PostgreSQL schema through Alembic: an empty database migrated to head, a second migration changes
nothing, the schema the revisions build is the ORM's (no difference autogenerate could find), and
`rabbithole migrate` does it from the command line (and says what it did, without the password)."""

from __future__ import annotations

import os
from pathlib import Path

from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import inspect

from fixtures.cli_runs import rabbithole
from rabbithole.catalog.db import create_postgres_engine
from rabbithole.devtools.postgres_cluster import PostgresCluster
from rabbithole.migrations import current_revision, head_revision, schema_metadata, upgrade

TABLES = {"collections", "documents", "pages", "chunks", "ingest_problems", "research_runs", "run_events"}


def test_an_empty_database_is_migrated_to_head_once(postgres_url: str) -> None:
    engine = create_postgres_engine(postgres_url)
    try:
        assert upgrade(engine) == (None, head_revision())
        assert set(inspect(engine).get_table_names()) >= TABLES
        assert upgrade(engine) == (head_revision(), head_revision())  # idempotent
        with engine.connect() as conn:
            assert current_revision(conn) == head_revision()
    finally:
        engine.dispose()


def test_the_migrated_schema_is_the_orm_schema(postgres_url: str) -> None:
    engine = create_postgres_engine(postgres_url)
    try:
        upgrade(engine)
        with engine.connect() as conn:
            context = MigrationContext.configure(conn, opts={"compare_type": True})
            differences = compare_metadata(context, schema_metadata())
        assert differences == []
        indexes = {ix["name"] for table in TABLES for ix in inspect(engine).get_indexes(table)}
        assert {
            "ix_chunks_document_ordinal",
            "ix_ingest_problems_collection_name",
            "ix_research_runs_seq",
            "ix_research_runs_status",
        } <= indexes
    finally:
        engine.dispose()


def test_the_migrate_command(postgres_cluster: PostgresCluster, tmp_path: Path) -> None:
    url = postgres_cluster.create_database()
    env = {
        **os.environ,
        "RABBITHOLE_STORAGE__DATA_DIR": str(tmp_path / "data"),
        "RABBITHOLE_DATABASE__URL": url,
    }
    first = rabbithole(["migrate"], env, None, timeout=120)
    assert first.returncode == 0, first.stderr
    assert f"to revision {head_revision()}" in first.stdout
    again = rabbithole(["migrate"], env, None, timeout=120)
    assert again.returncode == 0, again.stderr
    assert "up to date" in again.stdout
    for output in (first.stdout, first.stderr, again.stdout, again.stderr):
        assert postgres_cluster.password not in output
    assert "rabbithole:***@127.0.0.1" in first.stdout

    embedded = rabbithole(["migrate"], {**env, "RABBITHOLE_DATABASE__URL": ""}, None, timeout=120)
    assert embedded.returncode == 0, embedded.stderr
    assert "SQLite catalog" in embedded.stdout
    assert (tmp_path / "data" / "catalog.sqlite3").is_file()
