"""The run store for async code: each call runs the synchronous ``RunStore`` call in a thread
(``asyncio.to_thread``), so the event loop never waits for the database.

    runs = AsyncRunStore(store)
    record = await runs.get(run_id, with_result=False)
    record = await runs.update(run_id, status="running", error=None)
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

from rabbithole.research.models import ResearchResult, RunMode, RunStatus
from rabbithole.runs.store import Keep, RunOrigin, RunRecord, RunStore


class AsyncRunStore:
    def __init__(self, store: RunStore) -> None:
        self.store = store

    async def create(
        self,
        question: str,
        collections: Sequence[str],
        mode: RunMode,
        overrides: dict[str, Any] | None = None,
        *,
        origin: RunOrigin = "cli",
        claim: tuple[str, datetime] | None = None,
    ) -> RunRecord:
        return await asyncio.to_thread(
            self.store.create, question, collections, mode, overrides, origin=origin, claim=claim
        )

    async def get(self, run_id: str, *, with_result: bool = True) -> RunRecord:
        return await asyncio.to_thread(self.store.get, run_id, with_result=with_result)

    async def list(
        self,
        *,
        status: Sequence[str] | None = None,
        question: str | None = None,
        limit: int = 50,
        offset: int = 0,
    ) -> list[RunRecord]:
        return await asyncio.to_thread(
            self.store.list, status=status, question=question, limit=limit, offset=offset
        )

    async def visible(
        self,
        sees: Callable[[RunRecord], bool],
        *,
        status: Sequence[str] | None = None,
        question: str | None = None,
    ) -> Sequence[RunRecord]:
        """Every run matching the filters that ``sees`` lets through, newest first."""
        return await asyncio.to_thread(self.store.visible, sees, status=status, question=question)

    async def count(self, *, status: Sequence[str] | None = None, question: str | None = None) -> int:
        return await asyncio.to_thread(self.store.count, status=status, question=question)

    async def update(
        self,
        run_id: str,
        *,
        status: RunStatus | None = None,
        phase: str | None = None,
        language: str | None = None,
        error: str | type[Keep] | None = Keep,
        result: ResearchResult | None = None,
    ) -> RunRecord:
        return await asyncio.to_thread(
            self.store.update,
            run_id,
            status=status,
            phase=phase,
            language=language,
            error=error,
            result=result,
        )

    async def delete(self, run_id: str) -> None:
        await asyncio.to_thread(self.store.delete, run_id)
