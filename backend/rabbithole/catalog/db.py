"""SQLite engine with WAL and a busy timeout, so concurrent readers and a writer do not lock each other."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event, text


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


#: Columns added after a catalog was first created: (table, column, SQL type and default).
ADDED_COLUMNS = (
    ("documents", "language", "VARCHAR NOT NULL DEFAULT ''"),
    ("documents", "source_path", "TEXT NOT NULL DEFAULT ''"),
)


def add_missing_columns(engine: Engine, columns: tuple[tuple[str, str, str], ...] = ADDED_COLUMNS) -> None:
    """Bring a catalog created by an older version up to date (SQLite ALTER TABLE ADD COLUMN):
    ``columns`` are (table, column, SQL type and default); a table that does not exist is left alone."""
    with engine.begin() as conn:
        for table, column, definition in columns:
            existing = {row[1] for row in conn.execute(text(f"PRAGMA table_info({table})"))}
            if existing and column not in existing:
                conn.execute(text(f"ALTER TABLE {table} ADD COLUMN {column} {definition}"))
