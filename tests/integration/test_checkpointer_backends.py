"""The research checkpointer on both backends (``database_url``): a graph's state checkpointed through one
checkpointer is read back through another opened later (another process, after a restart), and two opened
side by side (servers starting at once) both set up."""

from __future__ import annotations

import asyncio
import operator
from pathlib import Path
from typing import Annotated, Any, TypedDict

import pytest
from langgraph.graph import END, START, StateGraph

from rabbithole.research.checkpoint import open_checkpointer

#: Rounds of checkpointers opened side by side (each on a new file, or a new database: slower to set up).
ROUNDS = {"sqlite": 40, "postgresql": 3}


class _State(TypedDict):
    steps: Annotated[list[str], operator.add]


def _graph(saver: Any) -> Any:
    builder = StateGraph(_State)
    builder.add_node("first", lambda state: {"steps": ["first"]})
    builder.add_node("second", lambda state: {"steps": ["second"]})
    builder.add_edge(START, "first")
    builder.add_edge("first", "second")
    builder.add_edge("second", END)
    return builder.compile(checkpointer=saver, interrupt_before=["second"])


async def _interrupt_then_resume(path: Path, url: str) -> tuple[list[str], list[str], tuple[str, ...]]:
    config = {"configurable": {"thread_id": "run-1"}}
    conn, saver = await open_checkpointer(path, 5_000, url)
    try:
        first = await _graph(saver).ainvoke({"steps": ["start"]}, config)
    finally:
        await conn.close()
    conn, saver = await open_checkpointer(path, 5_000, url)  # another process, later
    try:
        graph = _graph(saver)
        waiting = (await graph.aget_state(config)).next
        resumed = await graph.ainvoke(None, config)
    finally:
        await conn.close()
    return first["steps"], resumed["steps"], waiting


def test_a_run_interrupted_in_one_process_resumes_in_another(tmp_path: Path, database_url: str) -> None:
    first, resumed, waiting = asyncio.run(
        _interrupt_then_resume(tmp_path / "checkpoints.sqlite3", database_url)
    )
    assert first == ["start", "first"]
    assert waiting == ("second",)
    assert resumed == ["start", "first", "second"]


async def _open_side_by_side(path: Path, url: str, count: int) -> int:
    opened = await asyncio.gather(*(open_checkpointer(path, 5_000, url) for _ in range(count)))
    for conn, _ in opened:
        await conn.close()
    return len(opened)


def test_checkpointers_opened_side_by_side(
    tmp_path_factory: pytest.TempPathFactory, database_url: str, request: pytest.FixtureRequest
) -> None:
    """Eight at once, on a new SQLite file each round (SQLite answered "database is locked" to a second
    connection switching a new file to WAL: about one round in forty failed) or a new PostgreSQL database
    (the saver's setup one server at a time)."""
    for _ in range(ROUNDS["postgresql" if database_url else "sqlite"]):
        folder = tmp_path_factory.mktemp("side-by-side")
        url = request.getfixturevalue("postgres_cluster").create_database() if database_url else ""
        assert asyncio.run(_open_side_by_side(folder / "checkpoints.sqlite3", url, 8)) == 8
