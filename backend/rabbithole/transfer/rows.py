"""The database's tables as JSON Lines, one file per table, and back: every table of the schema
(``rabbithole.migrations.schema_metadata``: catalog, ingestion jobs, runs, events), streamed in batches so a
large catalog never sits in memory. Timestamps as ISO text; everything else as JSON holds it."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

from sqlalchemy import DateTime, Engine, Table, delete, func, select, text

from rabbithole.migrations import schema_metadata

BATCH = 1000
#: Tables whose integer key PostgreSQL numbers from a sequence (moved on past the imported rows).
SERIAL_KEYS = (("documents", "id"), ("ingest_problems", "id"))

RowChange = Callable[[str, dict[str, Any]], dict[str, Any]]


def tables() -> list[Table]:
    """Every table, parents before children."""
    return list(schema_metadata().sorted_tables)


def dump_table(engine: Engine, table: Table, path: Path) -> int:
    """Write ``table``'s rows into ``path`` (JSON Lines, in key order); how many."""
    written = 0
    order = list(table.primary_key.columns)
    with engine.connect() as conn, path.open("w", encoding="utf-8") as out:
        result = conn.execution_options(stream_results=True, yield_per=BATCH).execute(
            select(table).order_by(*order)
        )
        for row in result.mappings():
            out.write(json.dumps({k: _plain(v) for k, v in row.items()}, ensure_ascii=False))
            out.write("\n")
            written += 1
    return written


def load_table(engine: Engine, table: Table, path: Path, change: RowChange | None = None) -> int:
    """Insert the rows of ``path`` into ``table`` (``change`` may rewrite each first); how many."""
    stamps = {c.name for c in table.columns if isinstance(c.type, DateTime)}
    loaded = 0
    with engine.begin() as conn:
        for batch in _batches(path):
            rows = [_typed(row, stamps) for row in batch]
            if change is not None:
                rows = [change(table.name, row) for row in rows]
            conn.execute(table.insert(), rows)
            loaded += len(rows)
    return loaded


def table_rows(engine: Engine, table: Table) -> int:
    with engine.connect() as conn:
        return int(conn.scalar(select(func.count()).select_from(table)) or 0)


def clear_tables(engine: Engine) -> None:
    """Delete every row of every table (children first)."""
    with engine.begin() as conn:
        for table in reversed(tables()):
            conn.execute(delete(table))


def advance_sequences(engine: Engine) -> None:
    """PostgreSQL: move each serial key's sequence past the imported rows (else the next insert collides)."""
    if engine.dialect.name != "postgresql":
        return
    with engine.begin() as conn:
        for name, column in SERIAL_KEYS:
            conn.execute(
                text(
                    f"SELECT setval(pg_get_serial_sequence('{name}', '{column}'), "
                    f"COALESCE((SELECT MAX({column}) FROM {name}), 0) + 1, false)"
                )
            )


def _plain(value: Any) -> Any:
    return value.isoformat() if isinstance(value, datetime) else value


def _typed(row: dict[str, Any], stamps: set[str]) -> dict[str, Any]:
    for name in stamps:
        if isinstance(row.get(name), str):
            row[name] = datetime.fromisoformat(row[name])
    return row


def _batches(path: Path) -> Iterator[list[dict[str, Any]]]:
    batch: list[dict[str, Any]] = []
    with path.open(encoding="utf-8") as lines:
        for line in lines:
            if line.strip():
                batch.append(json.loads(line))
            if len(batch) == BATCH:
                yield batch
                batch = []
    if batch:
        yield batch
