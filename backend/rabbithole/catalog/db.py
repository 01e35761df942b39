"""The engines of the catalog's database, which also holds the runs, their events and leases: SQLite (the
embedded default: WAL and a busy timeout, so concurrent readers and a writer do not lock each other) or
PostgreSQL (``database.url``; psycopg 3, sessions in UTC, schema by Alembic: ``rabbithole.migrations``).

Every store opens its engine with :func:`create_engine_for` and its tables with :func:`prepare_tables`, so
one setting moves all of them. A URL is shown only through :func:`shown_url` (no password)."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, MetaData, create_engine, event, text
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import DBAPIError

from rabbithole.core.config.database import check_database_url
from rabbithole.core.errors import ConfigurationError

#: Seconds a PostgreSQL connection attempt may take before the server counts as unreachable.
CONNECT_TIMEOUT_S = 10
#: Seconds a new connection waits for a server that was reached before (a restart) before it fails.
RECONNECT_S = 30.0
#: Seconds between two connection attempts while it waits.
RECONNECT_INTERVAL_S = 0.5

log = logging.getLogger(__name__)


def create_sqlite_engine(path: Path, busy_timeout_ms: int = 30_000) -> Engine:
    path.parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(
        f"sqlite:///{path}",
        connect_args={"timeout": busy_timeout_ms / 1000, "check_same_thread": False},
    )

    @event.listens_for(engine, "connect")
    def _configure(dbapi_connection: Any, _record: Any) -> None:
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA busy_timeout={int(busy_timeout_ms)}")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.close()

    return engine


def postgres_url(url: str) -> URL:
    """The SQLAlchemy URL of a ``database.url`` (postgresql://, postgres://): the psycopg 3 driver."""
    parsed = make_url(check_database_url(url))
    return parsed.set(drivername="postgresql+psycopg")


def shown_url(url: str | URL) -> str:
    """The URL as a message may show it: without its password."""
    parsed = url if isinstance(url, URL) else make_url(url)
    return parsed.render_as_string(hide_password=True)


def create_postgres_engine(url: str) -> Engine:
    """An engine on PostgreSQL: connections checked before use (a restarted server's are replaced), every
    session in UTC (the tables' timestamps are UTC without a zone, as in SQLite), SQL parameters kept out of
    error messages. Once the server was reached, a new connection waits for it while it restarts
    (``wait_for_restarts``)."""
    engine = create_engine(
        postgres_url(url),
        pool_pre_ping=True,
        hide_parameters=True,
        connect_args={"connect_timeout": CONNECT_TIMEOUT_S, "options": "-c timezone=UTC"},
    )
    wait_for_restarts(engine)
    return engine


def wait_for_restarts(engine: Engine, wait_s: float = RECONNECT_S) -> None:
    """Connections of ``engine`` that cannot be made (the server refuses them, or says it is starting up or
    shutting down) are tried again every ``RECONNECT_INTERVAL_S`` for up to ``wait_s`` seconds once the
    engine has reached the server: a statement issued while PostgreSQL restarts waits for it instead of
    failing. A server never reached (down at start, a wrong URL) fails at once, as before."""
    reached = threading.Event()

    @event.listens_for(engine, "do_connect")
    def _connect(dialect: Any, _record: Any, cargs: Any, cparams: Any) -> Any:
        if not reached.is_set():
            connection = dialect.connect(*cargs, **cparams)
            reached.set()
            return connection
        deadline = time.monotonic() + wait_s
        warned = False
        while True:
            try:
                return dialect.connect(*cargs, **cparams)
            except dialect.loaded_dbapi.OperationalError as exc:
                if time.monotonic() >= deadline:
                    raise
                if not warned:
                    log.warning("PostgreSQL cannot be reached (%s); waiting for it", _first_line(exc))
                    warned = True
                time.sleep(RECONNECT_INTERVAL_S)


def create_engine_for(url: str, sqlite_path: Path, busy_timeout_ms: int = 30_000) -> Engine:
    """The engine of the stores: PostgreSQL when ``url`` (``database.url``) is set, else the SQLite file
    ``sqlite_path``."""
    if url:
        return create_postgres_engine(url)
    return create_sqlite_engine(sqlite_path, busy_timeout_ms)


def is_postgresql(engine: Engine) -> bool:
    return engine.dialect.name == "postgresql"


def prepare_tables(
    engine: Engine, metadata: MetaData, added_columns: tuple[tuple[str, str, str], ...] = ()
) -> None:
    """Make ``metadata``'s tables ready. SQLite: created where missing, columns of later versions added
    (``add_missing_columns``), as every version did. PostgreSQL: the schema migrated to Alembic's head
    (all tables at once; nothing to do when it is there); ConfigurationError naming the host and the
    database when the server cannot be reached."""
    if not is_postgresql(engine):
        metadata.create_all(engine)
        if added_columns:
            add_missing_columns(engine, added_columns)
        return
    from rabbithole.migrations import upgrade

    with unreachable_as_configuration_error(engine):
        upgrade(engine)


@contextmanager
def unreachable_as_configuration_error(engine: Engine) -> Iterator[None]:
    """A database that cannot be reached (down, a wrong password, no such database) as ConfigurationError:
    the host, port and database named, the password not; the server's own reason kept."""
    try:
        yield
    except DBAPIError as exc:
        if not exc.connection_invalidated and not _is_connect_error(exc):
            raise
        url = engine.url
        reason = _first_line(exc.orig) if exc.orig else type(exc).__name__
        if url.password:
            reason = reason.replace(url.password, "***")
        raise ConfigurationError(
            f"the database cannot be reached: PostgreSQL at {url.host}:{url.port or 5432}, database "
            f"'{url.database}' ({shown_url(url)}): {reason}. Check RABBITHOLE_DATABASE__URL and that the "
            "server runs."
        ) from None


def _is_connect_error(exc: DBAPIError) -> bool:
    import psycopg

    return isinstance(exc.orig, psycopg.OperationalError)


def _first_line(error: BaseException) -> str:
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    return lines[0] if lines else type(error).__name__


#: Columns added after a catalog was first created: (table, column, SQL type and default).
ADDED_COLUMNS = (
    ("documents", "language", "VARCHAR NOT NULL DEFAULT ''"),
    ("documents", "source_path", "TEXT NOT NULL DEFAULT ''"),
    ("pages", "source", "VARCHAR NOT NULL DEFAULT 'text'"),
    ("pages", "ocr_confidence", "FLOAT"),
    ("pages", "words_json", "TEXT NOT NULL DEFAULT ''"),
    ("collections", "ocr_languages", "VARCHAR NOT NULL DEFAULT ''"),
    ("documents", "ocr_languages", "VARCHAR NOT NULL DEFAULT ''"),
)


def add_missing_columns(engine: Engine, columns: tuple[tuple[str, str, str], ...] = ADDED_COLUMNS) -> None:
    """Bring a SQLite catalog created by an older version up to date (ALTER TABLE ADD COLUMN): ``columns``
    are (table, column, SQL type and default); a table that does not exist is left alone. (PostgreSQL
    databases are migrated by Alembic instead.)"""
    with engine.begin() as conn:
        for table, column, definition in columns:
            existing = {row[1] for row in conn.execute(text(f"PRAGMA table_info({table})"))}
            if existing and column not in existing:
                conn.execute(text(f"ALTER TABLE {table} ADD COLUMN {column} {definition}"))
