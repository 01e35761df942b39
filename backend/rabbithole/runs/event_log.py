"""The progress events of research runs, persisted in SQLite through SQLAlchemy (``run_events`` in the
catalog database): one row per event, numbered per run from 1 without gaps, so a client that saw event N
asks for what came after it (the API's SSE replay) and a restarted server continues the numbering.

    log = RunEventLog(catalog_path)
    event = log.append(run_id, "phase", {"phase": "plan"})    # -> RunEvent(seq=7, ...)
    events = log.append_batch([NewEvent(...), ...])           # one transaction, numbered per run
    later = log.after(run_id, 5)                              # events 6, 7, ...

A run's result is stored once, with the run (``research_runs.result_json``, ``store.py``): its ``report``
event is persisted as a reference to it (``RESULT_IN_STORE``) and read back whole (``after``, ``latest``), so
a replay carries the same ``report`` event as the live stream.

The server writes through ``runs/event_writer.py`` (one thread, a batch of all runs' events per
transaction); the numbering is safe for one writer per run (the process that executes it), and the table's
primary key (run_id, seq) refuses a number taken twice. On PostgreSQL each append notifies the other workers
(``runs/channels.py``; they read the new rows and hand them to their clients, ``runs/listener.py``).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import Integer, String, Text, delete, func, insert, or_, select
from sqlalchemy.orm import Mapped, Session, mapped_column, sessionmaker

from rabbithole.catalog.db import create_engine_for, is_postgresql, prepare_tables
from rabbithole.runs.channels import EVENTS_CHANNEL, NOTIFY, Appended
from rabbithole.runs.store import RunRow, RunsBase

#: In a persisted ``report`` event, in place of the result: the result is the run's (``result_json``).
RESULT_IN_STORE = "result_in_store"


class RunEventRow(RunsBase):
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


@dataclass(frozen=True, slots=True)
class NewEvent:
    """An event not persisted yet: its number is given when it is written."""

    run_id: str
    type: str
    data: dict[str, Any]
    created_at: datetime

    @classmethod
    def of(cls, run_id: str, event_type: str, data: dict[str, Any]) -> NewEvent:
        """The event as emitted now (a ``type`` key in ``data`` is dropped: the event's type is its own)."""
        body = {key: value for key, value in data.items() if key != "type"}
        return cls(run_id, event_type, body, datetime.now(UTC))


def encode(event: NewEvent) -> tuple[str, dict[str, Any]]:
    """The event's data as persisted (JSON; a ``report`` event's result replaced by ``RESULT_IN_STORE``) and
    as handed on to live clients (its JSON round trip: what a replay reads, the result included)."""
    whole = json.dumps(event.data, ensure_ascii=False, default=str)
    data = dict(json.loads(whole))
    if event.type != "report" or "result" not in event.data:
        return whole, data
    reference = {key: value for key, value in event.data.items() if key != "result"}
    reference[RESULT_IN_STORE] = True
    return json.dumps(reference, ensure_ascii=False, default=str), data


def _refers_to_result(event: RunEvent) -> bool:
    return event.type == "report" and bool(event.data.get(RESULT_IN_STORE))


def hydrate(session: Session, events: list[RunEvent]) -> list[RunEvent]:
    """The events with each ``report`` event's result read from its run (one query for all of them)."""
    runs = {event.run_id for event in events if _refers_to_result(event)}
    if not runs:
        return events
    query = select(RunRow.id, RunRow.result_json).where(RunRow.id.in_(runs))
    results = {str(run_id): raw for run_id, raw in session.execute(query).all()}
    whole: list[RunEvent] = []
    for event in events:
        if _refers_to_result(event):
            data = {key: value for key, value in event.data.items() if key != RESULT_IN_STORE}
            raw = results.get(event.run_id)
            data["result"] = json.loads(raw) if raw else None
            event = dataclasses.replace(event, data=data)
        whole.append(event)
    return whole


def _utc(moment: datetime) -> datetime:
    """A time as the tables keep it (UTC, stored without a zone) with its zone."""
    return moment.astimezone(UTC) if moment.tzinfo else moment.replace(tzinfo=UTC)


def _event(row: RunEventRow) -> RunEvent:
    created = row.created_at if row.created_at.tzinfo else row.created_at.replace(tzinfo=UTC)
    return RunEvent(row.run_id, row.seq, row.type, dict(json.loads(row.data_json)), created)


class RunEventLog:
    """Append and read run events. One short transaction per call; WAL + busy timeout. The numbering is
    safe for one writer per run (the process that executes it). The server appends through its event
    writer (``runs/event_writer.py``, ``runs/event_batches.py``)."""

    def __init__(self, path: Path, busy_timeout_ms: int = 30_000, *, url: str = "") -> None:
        """``path``: the SQLite catalog database; ``url``: a ``database.url`` in its place (the engine and
        the tables as the catalog's, ``catalog/db.py``; the server's event writer appends through
        ``runs/event_appenders.py``)."""
        self.path = path
        self.busy_timeout_ms = busy_timeout_ms
        self.engine = create_engine_for(url, path, busy_timeout_ms)
        prepare_tables(self.engine, RunsBase.metadata)
        self._sessions = sessionmaker(self.engine, expire_on_commit=False)
        self._notifies = is_postgresql(self.engine)  # other workers learn of new events (``channels.py``)

    def close(self) -> None:
        self.engine.dispose()

    def append(self, run_id: str, event_type: str, data: dict[str, Any]) -> RunEvent:
        return self.append_batch([NewEvent.of(run_id, event_type, data)])[0]

    def append_batch(self, new: Sequence[NewEvent]) -> list[RunEvent]:
        """Persist ``new`` in one transaction, each run's events numbered after its last one in the order
        given; all or nothing. The events returned carry their data as a replay reads it (a JSON round
        trip; a ``report`` event's result is persisted as a reference to the run's, ``encode``). On
        PostgreSQL the same transaction notifies the other workers, one notification per run (its run id
        and the numbers appended, ``channels.py``), sent by PostgreSQL when it commits."""
        if not new:
            return []
        runs = sorted({event.run_id for event in new})
        rows: list[dict[str, Any]] = []
        stored: list[RunEvent] = []
        with self.engine.begin() as conn:
            query = (
                select(RunEventRow.run_id, func.max(RunEventRow.seq))
                .where(RunEventRow.run_id.in_(runs))
                .group_by(RunEventRow.run_id)
            )
            last: dict[str, int] = {str(run_id): int(seq) for run_id, seq in conn.execute(query)}
            first: dict[str, int] = {}
            for event in new:
                seq = last.get(event.run_id, 0) + 1
                first.setdefault(event.run_id, seq)
                last[event.run_id] = seq
                data_json, data = encode(event)
                rows.append(
                    {
                        "run_id": event.run_id,
                        "seq": seq,
                        "type": event.type,
                        "data_json": data_json,
                        "created_at": event.created_at,
                    }
                )
                stored.append(RunEvent(event.run_id, seq, event.type, data, event.created_at))
            conn.execute(insert(RunEventRow), rows)
            if self._notifies:  # delivered to the listening workers when this transaction commits
                payloads = [Appended(run, first[run], last[run]).payload() for run in sorted(first)]
                conn.execute(NOTIFY, {"channel": EVENTS_CHANNEL, "payloads": payloads})
        return stored

    def committed(self, new: Sequence[NewEvent]) -> list[RunEvent] | None:
        """The events of a batch given to ``append_batch``, as stored, when its transaction committed; None
        when it did not (one transaction: all or none). Its rows are found by run, type and time of each
        event. For a batch whose connection was lost as it committed (PostgreSQL restarted): written
        again only when it is not there, so no event is stored twice."""
        if not new:
            return []
        query = select(RunEventRow.run_id, RunEventRow.type, RunEventRow.created_at, RunEventRow.seq).where(
            RunEventRow.run_id.in_(sorted({event.run_id for event in new})),
            RunEventRow.created_at.in_(sorted({event.created_at for event in new})),
        )
        with self._sessions() as session:
            rows = session.execute(query).all()
        found = {(str(run), str(kind), _utc(created)): int(seq) for run, kind, created, seq in rows}
        stored: list[RunEvent] = []
        for event in new:
            seq = found.get((event.run_id, event.type, _utc(event.created_at)))
            if seq is None:
                return None
            stored.append(RunEvent(event.run_id, seq, event.type, encode(event)[1], event.created_at))
        return stored

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
            return hydrate(session, [_event(row) for row in session.scalars(query).all()])

    def latest(self, run_id: str) -> RunEvent | None:
        """The run's last event, if any."""
        query = select(RunEventRow).where(RunEventRow.run_id == run_id).order_by(RunEventRow.seq.desc())
        with self._sessions() as session:
            row = session.scalars(query.limit(1)).first()
            return hydrate(session, [_event(row)])[0] if row is not None else None

    def progress_events(self, run_id: str, types: tuple[str, ...]) -> tuple[list[RunEvent], int]:
        """The run's events of ``types`` and the number of its last event, read together (one statement:
        one snapshot, so no event falls between the two)."""
        last = select(func.max(RunEventRow.seq)).where(RunEventRow.run_id == run_id).scalar_subquery()
        query = (
            select(RunEventRow)
            .where(RunEventRow.run_id == run_id, or_(RunEventRow.type.in_(types), RunEventRow.seq == last))
            .order_by(RunEventRow.seq)
        )
        with self._sessions() as session:
            rows = session.scalars(query).all()
            events = hydrate(session, [_event(row) for row in rows])
        last_seq = events[-1].seq if events else 0
        return [event for event in events if event.type in types], last_seq

    def last_seq(self, run_id: str) -> int:
        with self._sessions() as session:
            last = session.scalar(select(func.max(RunEventRow.seq)).where(RunEventRow.run_id == run_id))
            return int(last or 0)

    def delete_run(self, run_id: str) -> None:
        with self._sessions.begin() as session:
            session.execute(delete(RunEventRow).where(RunEventRow.run_id == run_id))
