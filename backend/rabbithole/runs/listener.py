"""Run events and run-list changes from the other workers, for the clients of this one (server backend).

A worker's clients may watch a run that another worker executes. Each append of run events notifies on
PostgreSQL's ``EVENTS_CHANNEL`` (``RunEventLog.append_batch``, in the appending transaction:
``"<run_id> <first> <last>"``); this listener holds a connection of its own that LISTENs, in a thread, and
for each notified run its clients watch (``wants``) reads the new rows from the event log by seq, after the
last one it delivered (``after``), and hands them on (``on_events``) in order. No polling: it blocks until
PostgreSQL sends a notification. Run-list changes of other workers (``CHANGES_CHANNEL``, ``ChangeSender``)
go to ``on_change``; this worker's own are skipped (it published them itself).

A connection that drops (PostgreSQL restarted) is opened again, every ``retry_s``; once it LISTENs again, the
listener reads what was appended meanwhile for every run it delivered before (from its last delivered seq)
and for every run a client started watching meanwhile (``watch``: the last seq that client has). Nothing is
lost and nothing repeats: a client drops what it already has by seq.

    listener = RunEventListener(events, origin=owner, wants=watched, on_events=publish, on_change=changed)
    listener.start()
    listener.watch(run_id, last_seq)      # a client has the run's events up to last_seq
    listener.stop()

Callbacks run in the listener's thread.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

import psycopg

from rabbithole.catalog.db import CONNECT_TIMEOUT_S
from rabbithole.runs.channels import CHANGES_CHANNEL, EVENTS_CHANNEL, Appended, parse_change
from rabbithole.runs.event_log import RunEvent, RunEventLog

log = logging.getLogger(__name__)

#: Seconds between attempts to open the listening connection again.
RETRY_S = 1.0
#: Longest wait for a notification before the thread looks whether it should stop.
WAKE_S = 1.0


class RunEventListener:
    def __init__(
        self,
        events: RunEventLog,
        *,
        origin: str,
        wants: Callable[[str], bool],
        on_events: Callable[[list[RunEvent]], None],
        on_change: Callable[[dict[str, Any]], None],
        retry_s: float = RETRY_S,
    ) -> None:
        """``origin``: this worker's name in the changes it sends; ``wants(run_id)``: whether a client of
        this worker watches the run and its events do not reach it otherwise (it executes elsewhere)."""
        self.events = events
        self.origin = origin
        self.wants = wants
        self.on_events = on_events
        self.on_change = on_change
        self.retry_s = retry_s
        self._cursor: dict[str, int] = {}  # run -> the last seq handed on (or that its clients have)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._listening = threading.Event()
        self._thread: threading.Thread | None = None
        self._conn: psycopg.Connection[Any] | None = None

    def start(self) -> None:
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="run-event-listener", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=WAKE_S + 10)

    def listening(self, timeout_s: float = 0.0) -> bool:
        """Whether the connection LISTENs (waiting up to ``timeout_s`` for it)."""
        return self._listening.wait(timeout_s)

    def watch(self, run_id: str, seq: int) -> None:
        """A client has the run's events up to ``seq`` and waits for the next ones: a reconnect catches up
        from there (or from what was handed on since)."""
        with self._lock:
            self._cursor.setdefault(run_id, seq)

    def drop_connection(self) -> None:
        """Close the listening connection (as a PostgreSQL restart would); it is opened again. For tests."""
        conn = self._conn
        if conn is not None:
            conn.pgconn.finish()

    # -- the thread ------------------------------------------------------------------------------------

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self._listen()
            except Exception as exc:  # PostgreSQL down or restarted, the connection dropped
                if self._stop.is_set():
                    return
                log.warning("listening for run events failed (%s); connecting again", _first_line(exc))
            finally:
                self._listening.clear()
                self._conn = None
            self._stop.wait(self.retry_s)

    def _listen(self) -> None:
        with self._connect() as conn:
            self._conn = conn
            conn.execute(f"LISTEN {EVENTS_CHANNEL}")
            conn.execute(f"LISTEN {CHANGES_CHANNEL}")
            self._catch_up()  # what was appended while no connection listened
            self._listening.set()
            while not self._stop.is_set():
                notes = list(conn.notifies(timeout=WAKE_S, stop_after=1))
                if notes:
                    notes += conn.notifies(timeout=0)  # the rest that arrived meanwhile: one read per run
                    self._handle(notes)

    def _connect(self) -> psycopg.Connection[Any]:
        url = self.events.engine.url
        args: dict[str, Any] = url.translate_connect_args(username="user", database="dbname")
        args.update({key: value for key, value in url.query.items() if isinstance(value, str)})
        return psycopg.connect(autocommit=True, connect_timeout=CONNECT_TIMEOUT_S, **args)

    def _handle(self, notes: list[psycopg.Notify]) -> None:
        appended: dict[str, tuple[int, int]] = {}  # run -> (first, last) of its notifications
        for note in notes:
            if note.channel == EVENTS_CHANNEL:
                batch = Appended.parse(note.payload)
                if batch is None:
                    log.warning("a run event notification of an unknown shape: %r", note.payload)
                    continue
                first, last = appended.get(batch.run_id, (batch.first, batch.last))
                appended[batch.run_id] = (min(first, batch.first), max(last, batch.last))
            elif note.channel == CHANGES_CHANNEL:
                change = parse_change(note.payload)
                if change is None:
                    log.warning("a run change notification of an unknown shape: %r", note.payload)
                elif change[0] != self.origin:
                    self.on_change(change[1])
        for run_id, (first, last) in appended.items():
            self._deliver(run_id, first - 1, last)

    def _catch_up(self) -> None:
        with self._lock:
            runs = dict(self._cursor)
        for run_id, seq in runs.items():
            self._deliver(run_id, seq, None)

    def _deliver(self, run_id: str, after: int, last: int | None) -> None:
        """Hand on the run's events after the cursor (``after`` where there is none yet) up to what the log
        holds now; nothing for a run no client here watches (its cursor is dropped)."""
        if not self.wants(run_id):
            with self._lock:
                self._cursor.pop(run_id, None)
            return
        with self._lock:
            after = self._cursor.get(run_id, after)
        if last is not None and last <= after:
            return  # handed on already (read with an earlier batch)
        events = self.events.after(run_id, after)
        if not events:
            return
        with self._lock:
            self._cursor[run_id] = max(self._cursor.get(run_id, 0), events[-1].seq)
        self.on_events(events)


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__
