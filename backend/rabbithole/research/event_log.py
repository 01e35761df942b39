"""The progress events of research runs, persisted in SQLite through SQLAlchemy (``run_events`` in the
catalog database): one row per event, numbered per run from 1 without gaps, so a client that saw event N
asks for what came after it (the API's SSE replay) and a restarted server continues the numbering.

    log = RunEventLog(catalog_path)
    event = log.append(run_id, "phase", {"phase": "plan"})    # -> RunEvent(seq=7, ...)
    later = log.after(run_id, 5)                              # events 6, 7, ...
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import Integer, String, Text, delete, func, select
from sqlalchemy.orm import Mapped, mapped_column, sessionmaker

from rabbithole.catalog.db import create_sqlite_engine
from rabbithole.research.registry import ResearchBase


class RunEventRow(ResearchBase):
    __tablename__ = "run_events"

    run_id: Mapped[str] = mapped_column(String, primary_key=True)
    seq: Mapped[int] = mapped_column(Integer, primary_key=True)
    type: Mapped[str] = mapped_column(String)
    data_json: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column()


@dataclass(frozen=True, slots=True)
class RunEvent:
    run_id: str
    seq: int
    type: str
    data: dict[str, Any]
    created_at: datetime

    def payload(self) -> dict[str, Any]:
        """What a client receives: the event's data with its type, run id, number and time."""
        return {
            **self.data,
            "type": self.type,
            "run_id": self.run_id,
            "seq": self.seq,
            "created_at": self.created_at.isoformat(),
        }


def _event(row: RunEventRow) -> RunEvent:
    created = row.created_at if row.created_at.tzinfo else row.created_at.replace(tzinfo=UTC)
    return RunEvent(row.run_id, row.seq, row.type, dict(json.loads(row.data_json)), created)


class RunEventLog:
    """Append and read run events. One short transaction per call; WAL + busy timeout. The numbering is
    safe for one writer per run (the process that executes it)."""

    def __init__(self, path: Path, busy_timeout_ms: int = 30_000) -> None:
        self.engine = create_sqlite_engine(path, busy_timeout_ms)
        ResearchBase.metadata.create_all(self.engine)
        self._sessions = sessionmaker(self.engine, expire_on_commit=False)

    def close(self) -> None:
        self.engine.dispose()

    def append(self, run_id: str, event_type: str, data: dict[str, Any]) -> RunEvent:
        body = {key: value for key, value in data.items() if key != "type"}
        with self._sessions.begin() as session:
            last = session.scalar(select(func.max(RunEventRow.seq)).where(RunEventRow.run_id == run_id))
            row = RunEventRow(
                run_id=run_id,
                seq=(last or 0) + 1,
                type=event_type,
                data_json=json.dumps(body, ensure_ascii=False, default=str),
                created_at=datetime.now(UTC),
            )
            session.add(row)
            session.flush()
            return _event(row)

    def after(self, run_id: str, seq: int = 0, *, types: tuple[str, ...] = ()) -> list[RunEvent]:
        """The run's events numbered above ``seq``, in order (only ``types`` when given)."""
        query = (
            select(RunEventRow)
            .where(RunEventRow.run_id == run_id, RunEventRow.seq > seq)
            .order_by(RunEventRow.seq)
        )
        if types:
            query = query.where(RunEventRow.type.in_(types))
        with self._sessions() as session:
            return [_event(row) for row in session.scalars(query).all()]

    def latest(self, run_id: str) -> RunEvent | None:
        """The run's last event, if any."""
        query = select(RunEventRow).where(RunEventRow.run_id == run_id).order_by(RunEventRow.seq.desc())
        with self._sessions() as session:
            row = session.scalars(query.limit(1)).first()
            return _event(row) if row is not None else None

    def last_seq(self, run_id: str) -> int:
        with self._sessions() as session:
            last = session.scalar(select(func.max(RunEventRow.seq)).where(RunEventRow.run_id == run_id))
            return int(last or 0)

    def delete_run(self, run_id: str) -> None:
        with self._sessions.begin() as session:
            session.execute(delete(RunEventRow).where(RunEventRow.run_id == run_id))
