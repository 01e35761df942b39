"""Which server process executes a run: a lease in the runs table, so that servers sharing one data
directory never execute one run twice.

A process claims a run with one atomic UPDATE that succeeds only where no live lease is held (no owner,
its own, or an expired ``lease_until``); SQLite serialises writers, so of two processes claiming one run
exactly one gets the row. The owner renews its leases while the run is queued or executing there (a
heartbeat thread, so a busy event loop does not let them lapse) and releases them when the run stops
executing (interrupt, end, error, cancel, shutdown). A process that dies leaves its leases to expire; then
any live server may claim the run.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import uuid
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime, timedelta

from sqlalchemy import Engine, and_, or_, select, update

from rabbithole.research.registry import RunRow

log = logging.getLogger(__name__)


def process_owner() -> str:
    """A name for this process that no other process shares: host, pid and a random part."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


class RunLeases:
    def __init__(self, engine: Engine, owner: str, lease_s: float) -> None:
        self.engine = engine
        self.owner = owner
        self.lease_s = lease_s
        self.lease = timedelta(seconds=lease_s)
        self._held: set[str] = set()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def claim(
        self, run_id: str, *, expired_only: bool = False, statuses: Sequence[str] | None = None
    ) -> bool:
        """Take the run's lease (or renew this process's own); False when another live process holds it.
        ``expired_only``: only a lease another process let expire (not a run nobody ever claimed);
        ``statuses``: only while the run has one of these (checked in the same UPDATE)."""
        now = datetime.now(UTC)
        free = (
            and_(RunRow.owner.is_not(None), RunRow.owner != self.owner, RunRow.lease_until < now)
            if expired_only
            else or_(RunRow.owner.is_(None), RunRow.owner == self.owner, RunRow.lease_until < now)
        )
        query = update(RunRow).where(RunRow.id == run_id, free)
        if statuses is not None:
            query = query.where(RunRow.status.in_(list(statuses)))
        with self.engine.begin() as conn:
            won = conn.execute(query.values(owner=self.owner, lease_until=now + self.lease)).rowcount == 1
        if won:
            with self._lock:
                self._held.add(run_id)
        return won

    def start_heartbeat(self) -> None:
        """Renew the leases this process holds every third of the lease, in a daemon thread."""
        self._stop.clear()
        self._thread = threading.Thread(target=self._beat, name="run-lease-heartbeat", daemon=True)
        self._thread.start()

    def stop_heartbeat(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=10)

    def _beat(self) -> None:
        while not self._stop.wait(self.lease_s / 3):
            with self._lock:
                held = set(self._held)
            try:
                lost = self.renew(held)
            except Exception:  # a locked database: the next beat tries again, well within the lease
                log.exception("renewing run leases failed; retrying")
                continue
            for run_id in lost:
                log.error("run %s: this process lost its lease (it stalled longer than the lease)", run_id)
            with self._lock:
                self._held -= lost

    def renew(self, run_ids: Iterable[str]) -> set[str]:
        """Extend this process's leases of ``run_ids``; the ids whose lease it no longer holds."""
        ids = set(run_ids)
        if not ids:
            return set()
        until = datetime.now(UTC) + self.lease
        with self.engine.begin() as conn:
            conn.execute(
                update(RunRow).where(RunRow.id.in_(ids), RunRow.owner == self.owner).values(lease_until=until)
            )
            held = set(
                conn.scalars(select(RunRow.id).where(RunRow.id.in_(ids), RunRow.owner == self.owner)).all()
            )
        return ids - held

    def release(self, run_id: str) -> None:
        with self._lock:
            self._held.discard(run_id)
        with self.engine.begin() as conn:
            conn.execute(
                update(RunRow)
                .where(RunRow.id == run_id, RunRow.owner == self.owner)
                .values(owner=None, lease_until=None)
            )

    def holder(self, run_id: str) -> str | None:
        """The process holding a live lease of the run, if any."""
        now = datetime.now(UTC)
        with self.engine.connect() as conn:
            row = conn.execute(select(RunRow.owner, RunRow.lease_until).where(RunRow.id == run_id)).first()
        if row is None or row[0] is None or row[1] is None:
            return None
        until = row[1] if row[1].tzinfo is not None else row[1].replace(tzinfo=UTC)
        return str(row[0]) if until >= now else None
