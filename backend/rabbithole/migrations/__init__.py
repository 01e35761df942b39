"""The database schema's migrations (Alembic), for PostgreSQL (``database.url``): one revision per change of
the tables in ``catalog/tables.py``, ``runs/store.py``, ``runs/event_log.py`` and
``accounts/tables.py``, applied at every start
(``Services``: a no-op at head) and by ``rabbithole migrate``. Several servers starting at once take turns
(a PostgreSQL advisory lock held by the migrating transaction), so the schema is migrated once.

The embedded SQLite catalog keeps creating its tables with ``create_all`` and adding later columns by hand
(``catalog/db.py``, ``add_missing_columns``): every existing data folder opens as before, with no version
table to stamp. A test checks that the schema these revisions build equals the ORM's tables, so both
backends hold the same schema.
"""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import Connection, Engine, MetaData, text

#: The advisory lock the migrating transaction holds (any constant the application uses for nothing else).
MIGRATION_LOCK = 0x5241_4242  # "RABB"
SCRIPTS = Path(__file__).resolve().parent


def _config(connection: Connection | None = None) -> object:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(SCRIPTS))
    config.attributes["connection"] = connection
    return config


def head_revision() -> str:
    """The revision the code's schema is at."""
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    config = _config()
    assert isinstance(config, Config)
    head = ScriptDirectory.from_config(config).get_current_head()
    if head is None:  # pragma: no cover - the package ships its revisions
        raise RuntimeError(f"no migrations in {SCRIPTS}")
    return head


def current_revision(connection: Connection) -> str | None:
    """The revision the database is at (None: never migrated)."""
    from alembic.runtime.migration import MigrationContext

    return MigrationContext.configure(connection).get_current_revision()


def upgrade(engine: Engine) -> tuple[str | None, str]:
    """Migrate the database to the head revision (nothing to do when it is there): (before, after)."""
    from alembic import command

    head = head_revision()
    with engine.connect() as conn:
        before = current_revision(conn)
    if before == head:
        return before, head
    with engine.begin() as conn:
        conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK})
        before = current_revision(conn)  # another process may have migrated it while this one waited
        if before != head:
            command.upgrade(_config(conn), "head")  # type: ignore[arg-type]
    return before, head


def schema_metadata() -> MetaData:
    """Every table of the database as the code declares it (catalog, runs, events), in one MetaData."""
    import rabbithole.runs.event_log  # noqa: F401  (declares run_events on RunsBase)
    from rabbithole.accounts.tables import AccountsBase
    from rabbithole.catalog.tables import Base
    from rabbithole.runs.store import RunsBase

    metadata = MetaData()
    for declared in (Base.metadata, RunsBase.metadata, AccountsBase.metadata):
        for table in declared.sorted_tables:
            table.to_metadata(metadata)
    return metadata


def migrate(database_url: str, sqlite_path: Path, busy_timeout_ms: int = 30_000) -> str:
    """Bring the database of ``database.url`` (or, unset, the SQLite catalog at ``sqlite_path``) up to date;
    what was done, for a person. ConfigurationError (host and database named, no password) when PostgreSQL
    cannot be reached."""
    from rabbithole.catalog.db import (
        ADDED_COLUMNS,
        create_engine_for,
        prepare_tables,
        shown_url,
        unreachable_as_configuration_error,
    )
    from rabbithole.runs.store import ADDED_RUN_COLUMNS

    engine = create_engine_for(database_url, sqlite_path, busy_timeout_ms)
    try:
        if engine.dialect.name != "postgresql":
            prepare_tables(engine, schema_metadata(), (*ADDED_COLUMNS, *ADDED_RUN_COLUMNS))
            return f"SQLite catalog {sqlite_path}: its tables are up to date (created and upgraded at start)"
        with unreachable_as_configuration_error(engine):
            before, after = upgrade(engine)
        where = f"PostgreSQL {shown_url(engine.url)}"
        if before == after:
            return f"{where}: the schema is up to date (revision {after})"
        return f"{where}: migrated from {before or 'an empty database'} to revision {after}"
    finally:
        engine.dispose()
