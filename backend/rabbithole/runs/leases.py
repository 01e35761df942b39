"""Which server process executes a run: a lease in the runs table, so that servers sharing one data
directory never execute one run twice.

A process claims a run with one atomic UPDATE that succeeds only where no live lease is held (no owner,
its own, or an expired ``lease_until``); SQLite serialises writers, so of two processes claiming one run
exactly one gets the row. The owner renews its leases while the run is queued or executing there (a
heartbeat thread, so a busy event loop does not let them lapse) and releases them when the run stops
executing (interrupt, end, error, cancel, shutdown). A process that dies leaves its leases to expire; then
any live server may claim the run. The CLI claims the same lease for the run it executes (``research``,
``report``, their ``--resume``), so a run executes in one process whoever started or resumed it.

A lease's owner names its process (``process_owner``: host, pid, the process's start time, a random part),
so a process on the same host can tell that the owner is gone (``owner_is_dead``: its pid is not alive, or
now belongs to a process started at another time) and takes such a lease over at once instead of waiting
for it to expire: a server restarted after a ``kill -9`` resumes its predecessor's runs right away. Owners
on other hosts, and owner strings of an older format, are respected until their lease expires.
"""

from __future__ import annotations

import logging
import os
import re
import socket
import threading
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import psutil
from sqlalchemy import Engine, and_, or_, select, update

from rabbithole.runs.store import RunRow

log = logging.getLogger(__name__)


#: Seconds two readings of one process's start time may differ by (psutil reads it in clock ticks).
START_TOLERANCE_S = 1.0
_OWNER = re.compile(r"^(?P<host>.+):(?P<pid>\d+):(?P<started>\d+\.\d+):(?P<nonce>[0-9a-f]{8})$")


@dataclass(frozen=True, slots=True)
class OwnerProcess:
    """The process a lease's owner string names."""

    host: str
    pid: int
    started: float  # its start time (seconds since the epoch, as psutil reports it)


def process_owner() -> str:
    """A name for this process that no other process shares: host, pid, start time and a random part."""
    started = psutil.Process(os.getpid()).create_time()
    return f"{socket.gethostname()}:{os.getpid()}:{started:.2f}:{uuid.uuid4().hex[:8]}"


def parse_owner(owner: str) -> OwnerProcess | None:
    """The process of an owner string ``process_owner`` wrote; None for any other string (an older format
    without the start time, a name a test chose)."""
    match = _OWNER.match(owner)
    if match is None:
        return None
    return OwnerProcess(match["host"], int(match["pid"]), float(match["started"]))


def owner_is_dead(owner: str) -> bool:
    """Whether the owner is known to be gone: a process of this host whose pid is not alive (or a zombie),
    or alive but started at another time (its pid was reused). False when that cannot be told: another
    host, an owner string that cannot be parsed, a process this user may not inspect."""
    process = parse_owner(owner)
    if process is None or process.host != socket.gethostname():
        return False
    try:
        found = psutil.Process(process.pid)
        if found.status() == psutil.STATUS_ZOMBIE:
            return True
        started = float(found.create_time())
    except psutil.NoSuchProcess:
        return True
    except psutil.Error:  # access denied: it may be alive
        return False
    return abs(started - process.started) > START_TOLERANCE_S


def describe_owner(owner: str) -> str:
    """The owner for a message: its pid and host, or the string itself."""
    process = parse_owner(owner)
    return f"process {process.pid} on {process.host}" if process is not None else owner


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

    def new_claim(self) -> tuple[str, datetime]:
        """The lease a run this process creates is inserted with (``RunStore.create(claim=...)``); the
        process then holds it with :meth:`claim`, which renews its own lease."""
        return self.owner, datetime.now(UTC) + self.lease

    def claim(
        self, run_id: str, *, expired_only: bool = False, statuses: Sequence[str] | None = None
    ) -> bool:
        """Take the run's lease (or renew this process's own); False when another live process holds it.
        A lease whose owner is known to be dead (``owner_is_dead``) is taken over at once, expired or not.
        ``expired_only``: only a lease another process let expire or left dying (not a run nobody ever
        claimed); ``statuses``: only while the run has one of these (checked in the same UPDATE)."""
        if self._claim(run_id, expired_only=expired_only, statuses=statuses) or self._take_over(
            run_id, statuses
        ):
            with self._lock:
                self._held.add(run_id)
            return True
        return False

    def _claim(self, run_id: str, *, expired_only: bool, statuses: Sequence[str] | None) -> bool:
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
            return bool(
                conn.execute(query.values(owner=self.owner, lease_until=now + self.lease)).rowcount == 1
            )

    def _take_over(self, run_id: str, statuses: Sequence[str] | None) -> bool:
        """Take the lease from a holder known to be dead: an UPDATE that succeeds only while that dead
        process still holds it, so of two processes taking it over one wins."""
        with self.engine.connect() as conn:
            owner = conn.scalar(select(RunRow.owner).where(RunRow.id == run_id))
        if owner is None or owner == self.owner or not owner_is_dead(owner):
            return False
        query = update(RunRow).where(RunRow.id == run_id, RunRow.owner == owner)
        if statuses is not None:
            query = query.where(RunRow.status.in_(list(statuses)))
        until = datetime.now(UTC) + self.lease
        with self.engine.begin() as conn:
            won = bool(conn.execute(query.values(owner=self.owner, lease_until=until)).rowcount == 1)
        if won:
            log.info("run %s: took over the lease of %s, which is gone", run_id, describe_owner(owner))
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
        """The process holding a live lease of the run, if any (not one known to be dead)."""
        now = datetime.now(UTC)
        with self.engine.connect() as conn:
            row = conn.execute(select(RunRow.owner, RunRow.lease_until).where(RunRow.id == run_id)).first()
        if row is None or row[0] is None or row[1] is None:
            return None
        until = row[1] if row[1].tzinfo is not None else row[1].replace(tzinfo=UTC)
        if until < now or owner_is_dead(str(row[0])):
            return None
        return str(row[0])
