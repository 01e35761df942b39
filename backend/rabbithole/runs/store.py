"""The run store: one row per research run (id = the LangGraph thread id) in SQLite through SQLAlchemy.

The checkpointer holds a run's full state; this table is what lists, filters and the API read without
loading a graph: question, collections, mode, status, phase, timestamps, error, and the result once done.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal, TypeVar

from sqlalchemy import Integer, Select, String, Text, func, select
from sqlalchemy.orm import DeclarativeBase, Mapped, defer, mapped_column, sessionmaker

from rabbithole.catalog.db import create_engine_for, prepare_tables
from rabbithole.core.errors import RunNotFoundError
from rabbithole.research.context import RunOverrides
from rabbithole.research.models import ResearchResult, RunMode, RunStatus, RunSummary

#: Where a run was created: by the server (the API, the web app) or by the CLI (or the library).
RunOrigin = Literal["server", "cli"]


class Keep:
    """Marker: leave the error column as it is (``RunStore.update``'s default)."""


def utcnow() -> datetime:
    return datetime.now(UTC)


class RunsBase(DeclarativeBase):
    """The research tables (runs, their events) in the catalog database."""


class RunRow(RunsBase):
    __tablename__ = "research_runs"

    id: Mapped[str] = mapped_column(String, primary_key=True)
    seq: Mapped[int] = mapped_column(Integer, index=True)
    question: Mapped[str] = mapped_column(Text)
    collections_json: Mapped[str] = mapped_column(Text)
    mode: Mapped[str] = mapped_column(String)
    status: Mapped[str] = mapped_column(String, index=True)
    phase: Mapped[str] = mapped_column(String, default="")
    language: Mapped[str] = mapped_column(String, default="")
    overrides_json: Mapped[str] = mapped_column(Text, default="{}")
    error: Mapped[str | None] = mapped_column(Text, nullable=True)
    result_json: Mapped[str | None] = mapped_column(Text, nullable=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow, onupdate=utcnow)
    # the server process executing (or about to execute) the run, until lease_until (leases.py)
    owner: Mapped[str | None] = mapped_column(String, nullable=True)
    lease_until: Mapped[datetime | None] = mapped_column(nullable=True)
    # where the run was created: "server" (the API) or "cli" (the command, or the library); says how to
    # resume it
    origin: Mapped[str] = mapped_column(String, default="cli")
    # accounts mode (accounts/): the account that started the run (None: before accounts, or none in use)
    # and whether only it (and admins) may see the run, rather than the members of all its collections
    created_by: Mapped[int | None] = mapped_column(Integer, nullable=True)
    private: Mapped[bool] = mapped_column(default=False)


#: Columns added to research_runs after it was first created: (table, column, SQL type and default).
ADDED_RUN_COLUMNS = (
    ("research_runs", "owner", "VARCHAR"),
    ("research_runs", "lease_until", "DATETIME"),
    ("research_runs", "origin", "VARCHAR DEFAULT 'cli'"),
    ("research_runs", "created_by", "INTEGER"),
    ("research_runs", "private", "BOOLEAN DEFAULT 0 NOT NULL"),
)


@dataclass(frozen=True, slots=True)
class RunRecord:
    id: str
    question: str
    collections: list[str]
    mode: RunMode
    status: RunStatus
    phase: str
    language: str
    overrides: dict[str, Any]
    error: str | None
    created_at: datetime
    updated_at: datetime
    result: ResearchResult | None = field(default=None, repr=False)
    origin: RunOrigin = "cli"
    # accounts mode: the account that started it (None: no account), and whether only it may see the run
    created_by: int | None = None
    private: bool = False

    def settings(self) -> RunOverrides:
        """The run's overrides, validated once when it was created (``ResearchRunner.create``): read back as
        stored, not validated again."""
        return RunOverrides.model_construct(**self.overrides)

    def summary(self) -> RunSummary:
        return RunSummary(
            run_id=self.id,
            status=self.status,
            phase=self.phase,
            mode=self.mode,
            question=self.question,
            collections=self.collections,
            language=self.language,
            created_at=self.created_at,
            updated_at=self.updated_at,
            error=self.error,
        )


def _aware(value: datetime) -> datetime:
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


_Query = TypeVar("_Query", bound=Select[Any])


def _matching(query: _Query, status: Sequence[str] | None, question: str | None) -> _Query:
    """``query`` narrowed to runs with one of ``status`` and a question that contains ``question``."""
    if status:
        query = query.where(RunRow.status.in_(list(status)))
    if question is not None and question.strip():
        query = query.where(RunRow.question.icontains(question.strip(), autoescape=True))
    return query


def _record(row: RunRow, with_result: bool) -> RunRecord:
    result = None
    if with_result and row.result_json:
        result = ResearchResult.model_validate_json(row.result_json)
    return RunRecord(
        id=row.id,
        question=row.question,
        collections=list(json.loads(row.collections_json)),
        mode=row.mode,  # type: ignore[arg-type]
        status=row.status,  # type: ignore[arg-type]
        phase=row.phase,
        language=row.language,
        overrides=dict(json.loads(row.overrides_json or "{}")),
        error=row.error,
        created_at=_aware(row.created_at),
        updated_at=_aware(row.updated_at),
        result=result,
        origin="server" if row.origin == "server" else "cli",
        created_by=row.created_by,
        private=bool(row.private),
    )


class RunStore:
    """Create, read, list and update runs. Thread-safe (one short session per call); WAL + busy timeout.
    Synchronous: async code reaches it through ``AsyncRunStore`` (``runs/aio.py``), in a thread."""

    def __init__(self, path: Path, busy_timeout_ms: int = 30_000, *, url: str = "") -> None:
        """``path``: the SQLite catalog database; ``url``: a ``database.url`` in its place (the engine and
        the tables as the catalog's, ``catalog/db.py``)."""
        self.engine = create_engine_for(url, path, busy_timeout_ms)
        prepare_tables(self.engine, RunsBase.metadata, ADDED_RUN_COLUMNS)
        self._sessions = sessionmaker(self.engine, expire_on_commit=False)

    def close(self) -> None:
        self.engine.dispose()

    def create(
        self,
        question: str,
        collections: Sequence[str],
        mode: RunMode,
        overrides: dict[str, Any] | None = None,
        *,
        status: RunStatus = "queued",
        origin: RunOrigin = "cli",
        claim: tuple[str, datetime] | None = None,
        run_id: str | None = None,
        created_by: int | None = None,
        private: bool = False,
    ) -> RunRecord:
        """A new run. ``claim``: the lease (owner, until) it is created with, in the same insert, so no other
        process adopts it between its creation and its creator's claim (``leases.RunLeases.new_claim``);
        ``run_id``: its id when the caller chose it (an Agent Protocol thread's), a new one otherwise."""
        owner, lease_until = claim if claim is not None else (None, None)
        with self._sessions.begin() as session:
            last = session.scalar(select(RunRow.seq).order_by(RunRow.seq.desc()).limit(1)) or 0
            row = RunRow(
                id=run_id or uuid.uuid4().hex,
                seq=last + 1,
                question=question,
                collections_json=json.dumps(list(collections)),
                mode=mode,
                status=status,
                overrides_json=json.dumps(overrides or {}),
                origin=origin,
                owner=owner,
                lease_until=lease_until,
                created_by=created_by,
                private=private,
            )
            session.add(row)
            session.flush()
            return _record(row, with_result=False)

    def get(self, run_id: str, *, with_result: bool = True) -> RunRecord:
        with self._sessions() as session:
            row = session.get(RunRow, run_id)
            if row is None:
                raise RunNotFoundError(run_id)
            return _record(row, with_result)

    def list(
        self,
        *,
        status: Sequence[str] | None = None,
        question: str | None = None,
        limit: int = 50,
        offset: int = 0,
    ) -> list[RunRecord]:
        """Newest first; ``status``, ``question``: as :meth:`count`."""
        query = _matching(select(RunRow), status, question).order_by(RunRow.seq.desc())
        query = query.limit(limit).offset(offset)
        with self._sessions() as session:
            return [_record(row, with_result=False) for row in session.scalars(query).all()]

    def visible(
        self,
        sees: Callable[[RunRecord], bool],
        *,
        status: Sequence[str] | None = None,
        question: str | None = None,
    ) -> Sequence[RunRecord]:
        """Every run matching the filters (as :meth:`list`) that ``sees`` lets through, newest first: the
        run list of an account (accounts mode), whose visibility depends on its memberships."""
        query = _matching(select(RunRow), status, question).order_by(RunRow.seq.desc())
        query = query.options(defer(RunRow.result_json))
        with self._sessions() as session:
            records = (_record(row, with_result=False) for row in session.scalars(query))
            return [record for record in records if sees(record)]

    def ids_starting_with(self, prefix: str, limit: int = 10) -> Sequence[str]:
        """The ids of runs that start with ``prefix`` (at most ``limit``, newest first)."""
        query = (
            select(RunRow.id)
            .where(RunRow.id.startswith(prefix, autoescape=True))
            .order_by(RunRow.seq.desc())
            .limit(limit)
        )
        with self._sessions() as session:
            return list(session.scalars(query).all())

    def count(self, *, status: Sequence[str] | None = None, question: str | None = None) -> int:
        """The runs with one of these statuses (None: any) whose question contains ``question`` (None or
        blank: any; letters of the ASCII range in either case, on PostgreSQL every letter)."""
        query = _matching(select(func.count()).select_from(RunRow), status, question)
        with self._sessions() as session:
            return int(session.scalar(query) or 0)

    def update(
        self,
        run_id: str,
        *,
        status: RunStatus | None = None,
        phase: str | None = None,
        language: str | None = None,
        error: str | type[Keep] | None = Keep,
        result: ResearchResult | None = None,
    ) -> RunRecord:
        """Set the given fields in one write; ``error`` is left as it is unless given (None clears it).
        Returns the run as written (without its result)."""
        with self._sessions.begin() as session:
            row = session.get(RunRow, run_id)
            if row is None:
                raise RunNotFoundError(run_id)
            if status is not None:
                row.status = status
            if phase is not None:
                row.phase = phase
            if language is not None:
                row.language = language
            if error is not Keep:
                row.error = error  # type: ignore[assignment]
            if result is not None:
                row.result_json = result.model_dump_json()
            row.updated_at = utcnow()
            session.flush()
            return _record(row, with_result=False)

    def delete(self, run_id: str) -> None:
        with self._sessions.begin() as session:
            row = session.get(RunRow, run_id)
            if row is None:
                raise RunNotFoundError(run_id)
            session.delete(row)
