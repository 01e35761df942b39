"""Run-list changes of this worker for the other workers (server backend): each change a worker publishes to
its own clients (``{change: status | phase | deleted, run_id, ...}``) is also sent on PostgreSQL's
``CHANGES_CHANNEL`` with the worker's name (``channels.py``), where the other workers' listeners
(``listener.py``) hand it to their clients.

Sending happens in a thread of its own (the event loop never waits for the database): what is queued is sent
in one transaction, in the order published. A change that cannot be sent (PostgreSQL down) is logged and
dropped: it is a hint to refresh a list, and the runs themselves are in the store.

    sender = ChangeSender(engine, origin=owner)
    sender.send({"change": "status", "run_id": run_id, "status": "running", "phase": "dig"})
    sender.close()
"""

from __future__ import annotations

import logging
import queue
import threading
from typing import Any

from sqlalchemy import Engine

from rabbithole.runs.channels import CHANGES_CHANNEL, NOTIFY, change_payload

log = logging.getLogger(__name__)

#: Changes sent in one transaction at most.
MAX_BATCH = 200


class ChangeSender:
    def __init__(self, engine: Engine, *, origin: str) -> None:
        self.engine = engine
        self.origin = origin
        self._queue: queue.SimpleQueue[dict[str, Any] | None] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name="run-change-sender", daemon=True)
        self._thread.start()

    def send(self, change: dict[str, Any]) -> None:
        self._queue.put(dict(change))

    def close(self) -> None:
        """Send what is queued, then stop the thread."""
        self._queue.put(None)
        self._thread.join(timeout=30)

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            batch: list[dict[str, Any]] = []
            while item is not None:
                batch.append(item)
                if len(batch) >= MAX_BATCH:
                    break
                try:
                    item = self._queue.get_nowait()
                except queue.Empty:
                    break
            self._notify(batch)
            if item is None:
                return

    def _notify(self, batch: list[dict[str, Any]]) -> None:
        if not batch:
            return
        payloads = [change_payload(self.origin, change) for change in batch]
        try:
            with self.engine.begin() as conn:
                conn.execute(NOTIFY, {"channel": CHANGES_CHANNEL, "payloads": payloads})
        except Exception:
            log.exception("%d run-list changes could not be sent to the other workers", len(batch))
