"""The final events of runs that could not be persisted (a full disk): published to the clients watching the
run all the same, kept for the streams that connect later, and persisted once the database takes them.

    endings = UnsavedEndings(run_events, broker)
    endings.publish(run_id, "error", {"message": ...}, last_seq=12)   # event 13, in memory
    endings.after(run_id, 12)                                         # what a new stream replays
    endings.retry()                                                   # now and then

A kept event is persisted only where nothing else was written for its run since (so its number holds);
a run that is resumed or deleted forgets it.
"""

from __future__ import annotations

import logging
import threading
from datetime import UTC, datetime
from typing import Any

from rabbithole.api.runs.broker import EventBroker
from rabbithole.runs.event_log import RunEvent, RunEventLog

log = logging.getLogger(__name__)


class UnsavedEndings:
    def __init__(self, events: RunEventLog, broker: EventBroker) -> None:
        self.events = events
        self.broker = broker
        self._kept: dict[str, list[RunEvent]] = {}
        self._lock = threading.Lock()

    def publish(self, run_id: str, kind: str, data: dict[str, Any], *, last_seq: int) -> RunEvent:
        """The event numbered after ``last_seq`` (the run's last event, persisted or kept), published now."""
        body = {key: value for key, value in data.items() if key != "type"}
        with self._lock:
            kept = self._kept.setdefault(run_id, [])
            seq = max([last_seq, *(e.seq for e in kept)]) + 1
            event = RunEvent(run_id, seq, kind, body, datetime.now(UTC))
            kept.append(event)
        self.broker.publish(event)
        return event

    def after(self, run_id: str, seq: int) -> list[RunEvent]:
        """The run's kept events numbered above ``seq``."""
        with self._lock:
            return [e for e in self._kept.get(run_id, ()) if e.seq > seq]

    def forget(self, run_id: str) -> None:
        with self._lock:
            self._kept.pop(run_id, None)

    def retry(self) -> None:
        """Persist the kept events, in order, where their numbers still hold; keep what still fails."""
        with self._lock:
            runs = {run_id: list(kept) for run_id, kept in self._kept.items()}
        for run_id, kept in runs.items():
            try:
                for event in kept:
                    if self.events.last_seq(run_id) != event.seq - 1:
                        log.warning("run %s: event %d is not persisted (the log moved on)", run_id, event.seq)
                    else:
                        self.events.append(run_id, event.type, event.data)
                    with self._lock:
                        current = self._kept.get(run_id, [])
                        if current and current[0] is event:
                            current.pop(0)
                        if not current:
                            self._kept.pop(run_id, None)
            except Exception:
                log.warning("run %s: its final events still cannot be persisted; retrying later", run_id)
