"""The research graphs' checkpointer, chosen by ``database.url``: unset, LangGraph's async SQLite saver on a
connection with WAL and a busy timeout, so several runs (and processes) can write checkpoints at once without
"database is locked"; a PostgreSQL URL, LangGraph's async PostgreSQL saver
(``langgraph-checkpoint-postgres``) on a small connection pool in that database (its own tables, created by
its ``setup()``), so any server sharing the database can continue any run from its last checkpoint."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, Protocol

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

from rabbithole.core.errors import ConfigurationError

#: Connections of the PostgreSQL saver's pool (the saver runs one statement at a time; a second connection
#: stands by while the first is replaced after a restart of the server).
POOL_SIZE = 2
#: The advisory lock held while the saver creates its tables (``migrations.MIGRATION_LOCK`` + 1).
SETUP_LOCK = 0x5241_4243
#: Seconds between two tries for that lock.
SETUP_RETRY_S = 0.05
#: Seconds the pool waits for its first connection before the database counts as unreachable.
OPEN_TIMEOUT_S = 10.0


class Closable(Protocol):
    async def close(self) -> None: ...


def _serde() -> JsonPlusSerializer:
    from rabbithole.research.state_types import CHECKPOINTED_TYPES

    return JsonPlusSerializer(allowed_msgpack_modules=list(CHECKPOINTED_TYPES))


async def open_checkpointer(
    path: Path, busy_timeout_ms: int, database_url: str = ""
) -> tuple[Closable, BaseCheckpointSaver[Any]]:
    """What holds the connections (close it when done) and the saver on them: PostgreSQL when
    ``database_url`` is set, else the SQLite file ``path``."""
    if database_url:
        return await _open_postgres(database_url)
    return await _open_sqlite(path, busy_timeout_ms)


async def _open_sqlite(path: Path, busy_timeout_ms: int) -> tuple[Closable, BaseCheckpointSaver[Any]]:
    import aiosqlite
    from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

    path.parent.mkdir(parents=True, exist_ok=True)
    conn = await aiosqlite.connect(str(path), timeout=busy_timeout_ms / 1000)
    await conn.execute(f"PRAGMA busy_timeout={int(busy_timeout_ms)}")
    await _journal_mode_wal(conn, busy_timeout_ms)
    await conn.execute("PRAGMA synchronous=NORMAL")
    await conn.commit()
    saver = AsyncSqliteSaver(conn, serde=_serde())
    await saver.setup()
    return conn, saver


async def _journal_mode_wal(conn: Any, busy_timeout_ms: int) -> None:
    """``PRAGMA journal_mode=WAL``, tried again while another connection holds the new file's lock: SQLite
    answers "database is locked" at once there, without waiting the busy timeout (several checkpointers
    opening a new file together: processes starting at once on a new data folder)."""
    import sqlite3

    loop = asyncio.get_running_loop()
    deadline = loop.time() + busy_timeout_ms / 1000
    while True:
        try:
            await conn.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or loop.time() >= deadline:
                raise
            await asyncio.sleep(SETUP_RETRY_S)


async def _open_postgres(database_url: str) -> tuple[Closable, BaseCheckpointSaver[Any]]:
    from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
    from psycopg.rows import dict_row
    from psycopg_pool import AsyncConnectionPool, PoolTimeout

    from rabbithole.catalog.db import postgres_url, shown_url

    url = postgres_url(database_url)
    conninfo = url.set(drivername="postgresql").render_as_string(hide_password=False)
    pool: AsyncConnectionPool[Any] = AsyncConnectionPool(
        conninfo,
        min_size=1,
        max_size=POOL_SIZE,
        open=False,
        check=AsyncConnectionPool.check_connection,  # a connection a restarted server dropped is replaced
        # what the saver needs (its from_conn_string connects the same way)
        kwargs={"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row},
    )
    try:
        await pool.open(wait=True, timeout=OPEN_TIMEOUT_S)
    except PoolTimeout:
        await pool.close()
        raise ConfigurationError(
            f"the database cannot be reached: PostgreSQL at {url.host}:{url.port or 5432}, database "
            f"'{url.database}' ({shown_url(url)}): no connection within {OPEN_TIMEOUT_S:g} s. Check "
            "RABBITHOLE_DATABASE__URL and that the server runs."
        ) from None
    saver = AsyncPostgresSaver(pool, serde=_serde())
    try:
        await _setup(pool, saver)
    except BaseException:
        await pool.close()
        raise
    return pool, saver


async def _setup(pool: Any, saver: Any) -> None:
    """The saver's ``setup()`` (its tables and their migrations), one server at a time: servers starting at
    once would otherwise create the same tables side by side. The turn is an advisory lock taken by trying
    (a session waiting inside ``pg_advisory_lock`` would hold a snapshot that the saver's ``CREATE INDEX
    CONCURRENTLY`` waits for: a deadlock PostgreSQL cannot see)."""
    async with pool.connection() as conn:
        while True:
            cursor = await conn.execute("SELECT pg_try_advisory_lock(%s) AS locked", (SETUP_LOCK,))
            row = await cursor.fetchone()
            if row is not None and row["locked"]:
                break
            await asyncio.sleep(SETUP_RETRY_S)
        try:
            await saver.setup()
        finally:
            await conn.execute("SELECT pg_advisory_unlock(%s)", (SETUP_LOCK,))
