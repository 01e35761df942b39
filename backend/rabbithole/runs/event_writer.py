"""One thread that persists the progress events of all runs, so no caller waits for SQLite.

Callers ``submit`` events and go on; the thread takes everything queued at that moment (up to
``max_batch``) and writes it as one transaction (``BatchAppender``: one INSERT statement), numbered per
run in the order submitted, then hands the numbered events to ``on_persisted`` in that order. Nothing is
handed on before its transaction committed: whoever publishes from ``on_persisted`` shows only what a
restart (or a ``kill -9``) keeps. Under load a batch gathers what arrived while the previous one was
written (one commit for many events); an event that arrives alone is written at once.

A batch that fails is written again run by run, so one run's failure does not take the others' events
with it; the events of a run that still fail go to ``on_failed`` with the error (they got no number and
were never handed on: nobody saw them). Deletes and ``barrier`` (a flush) take their place in the same
queue, after the events submitted before them. ``close`` writes what is queued, then stops the thread.

    writer = EventWriter(log, on_persisted=publish, on_failed=report)
    writer.submit(NewEvent.of(run_id, "phase", {"phase": "plan"}))
    writer.barrier().result()     # everything submitted before is persisted (or failed) and handed on
    writer.close()
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field

from rabbithole.runs.event_appenders import appender_for
from rabbithole.runs.event_log import NewEvent, RunEvent, RunEventLog

log = logging.getLogger(__name__)

#: Events written in one transaction at most.
MAX_BATCH = 500

Persisted = Callable[[list[RunEvent]], None]
Failed = Callable[[str, list[NewEvent], Exception], None]


class EventWriterClosedError(RuntimeError):
    """An event submitted after the writer was closed (the server is stopping)."""


@dataclass(frozen=True, slots=True)
class _Barrier:
    done: Future[None] = field(default_factory=Future)


@dataclass(frozen=True, slots=True)
class _Delete:
    run_id: str
    done: Future[None] = field(default_factory=Future)


@dataclass(frozen=True, slots=True)
class _Stop:
    pass


_Item = NewEvent | _Barrier | _Delete | _Stop


class EventWriter:
    def __init__(
        self, events: RunEventLog, *, on_persisted: Persisted, on_failed: Failed, max_batch: int = MAX_BATCH
    ) -> None:
        self.events = events
        self.on_persisted = on_persisted
        self.on_failed = on_failed
        self.max_batch = max_batch
        self._appender = appender_for(events)  # SQLite: one INSERT per batch; PostgreSQL: a transaction
        self._queue: queue.SimpleQueue[_Item] = queue.SimpleQueue()
        self._lock = threading.Lock()  # submit vs. close: nothing is queued behind the stop
        self._closed = False
        self._thread = threading.Thread(target=self._run, name="run-event-writer", daemon=True)
        self._thread.start()

    def submit(self, event: NewEvent) -> None:
        self._put(event)

    def delete_run(self, run_id: str) -> Future[None]:
        """Delete the run's events once those submitted before are written."""
        item = _Delete(run_id)
        self._put(item)
        return item.done

    def barrier(self) -> Future[None]:
        """Done when every event submitted before it is persisted and handed on (or failed and reported)."""
        item = _Barrier()
        self._put(item)
        return item.done

    def close(self) -> None:
        """Write what is queued, then stop the thread (blocks until it stopped). Idempotent."""
        with self._lock:
            if not self._closed:
                self._closed = True
                self._queue.put(_Stop())
        self._thread.join()

    def _put(self, item: _Item) -> None:
        with self._lock:
            if self._closed:
                raise EventWriterClosedError("the run event writer is closed")
            self._queue.put(item)

    # -- the thread ----------------------------------------------------------------------------------

    def _run(self) -> None:
        while True:
            items = [self._queue.get()]
            while len(items) < self.max_batch:
                try:
                    items.append(self._queue.get_nowait())
                except queue.Empty:
                    break
            pending: list[NewEvent] = []
            for item in items:
                if isinstance(item, NewEvent):
                    pending.append(item)
                    continue
                self._write(pending)
                pending = []
                if isinstance(item, _Stop):
                    self._appender.close()
                    return
                self._settle(item)
            self._write(pending)

    def _settle(self, item: _Barrier | _Delete) -> None:
        if isinstance(item, _Barrier):
            item.done.set_result(None)
            return
        try:
            self.events.delete_run(item.run_id)
            self._appender.forget(item.run_id)
        except Exception as exc:
            item.done.set_exception(exc)
        else:
            item.done.set_result(None)

    def _write(self, pending: list[NewEvent]) -> None:
        if not pending:
            return
        try:
            self._hand_on(self._appender.append(pending))
            return
        except Exception as exc:
            runs: dict[str, list[NewEvent]] = {}
            for event in pending:
                runs.setdefault(event.run_id, []).append(event)
            if len(runs) == 1:
                self._fail(pending[0].run_id, pending, exc)
                return
        for run_id, group in runs.items():  # one run's failure must not take the others' events with it
            try:
                self._hand_on(self._appender.append(group))
            except Exception as exc:
                self._fail(run_id, group, exc)

    def _hand_on(self, events: list[RunEvent]) -> None:
        try:
            self.on_persisted(events)
        except Exception:  # the events are persisted; a replay shows them
            log.exception("handing on %d persisted run events failed", len(events))

    def _fail(self, run_id: str, events: list[NewEvent], exc: Exception) -> None:
        try:
            self.on_failed(run_id, events, exc)
        except Exception:
            log.exception("run %s: %d events could not be persisted (%s)", run_id, len(events), exc)
