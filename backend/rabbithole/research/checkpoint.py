"""The research graphs' checkpointer: LangGraph's async SQLite saver on a connection with WAL and a busy
timeout, so several runs (and processes) can write checkpoints at once without "database is locked"."""

from __future__ import annotations

from pathlib import Path

import aiosqlite
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver


async def open_checkpointer(
    path: Path, busy_timeout_ms: int
) -> tuple[aiosqlite.Connection, AsyncSqliteSaver]:
    """An open connection and the saver on it (close the connection when done)."""
    from rabbithole.research.state_types import CHECKPOINTED_TYPES

    path.parent.mkdir(parents=True, exist_ok=True)
    conn = await aiosqlite.connect(str(path), timeout=busy_timeout_ms / 1000)
    await conn.execute("PRAGMA journal_mode=WAL")
    await conn.execute(f"PRAGMA busy_timeout={int(busy_timeout_ms)}")
    await conn.execute("PRAGMA synchronous=NORMAL")
    await conn.commit()
    serde = JsonPlusSerializer(allowed_msgpack_modules=list(CHECKPOINTED_TYPES))
    saver = AsyncSqliteSaver(conn, serde=serde)
    await saver.setup()
    return conn, saver
