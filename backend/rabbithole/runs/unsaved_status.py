"""Final statuses of runs that the store could not take (a full disk, a locked database): kept in memory,
shown in place of the stored status, and written again later, so a run that failed is never left
``running`` for its clients.

    unsaved = UnsavedStatuses(store)
    unsaved.record(run_id, "error", "the disk is full ...")   # written now, or kept for later
    record = unsaved.overlay(store.get(run_id))            # what clients are shown
    unsaved.retry()                                           # now and then (the server's adopter loop)

A status kept here is forgotten once written, or when the run's status is set anew (``forget``: a resume, a
cancel, a run that starts executing).
"""

from __future__ import annotations

import dataclasses
import logging
import threading
from dataclasses import dataclass

from rabbithole.core.errors import RunNotFoundError
from rabbithole.research.models import RunStatus
from rabbithole.runs.store import RunRecord, RunStore

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class _Unsaved:
    status: RunStatus
    error: str | None


class UnsavedStatuses:
    def __init__(self, store: RunStore) -> None:
        self.store = store
        self._pending: dict[str, _Unsaved] = {}
        self._lock = threading.Lock()

    def record(self, run_id: str, status: RunStatus, error: str | None) -> RunRecord | None:
        """Write the run's status and error (one write); never raises. Returns the run as written; None
        when it is kept here, to be written by ``retry``, or was deleted meanwhile (then dropped).
        Synchronous: async code calls it in a thread."""
        unsaved = _Unsaved(status, error)
        try:
            written = self.store.update(run_id, status=status, error=error)
        except RunNotFoundError:
            self.forget(run_id)
            return None
        except Exception:
            log.exception("run %s: its status '%s' could not be written; kept and retried", run_id, status)
            with self._lock:
                self._pending[run_id] = unsaved
            return None
        self.forget(run_id)
        return written

    def forget(self, run_id: str) -> None:
        with self._lock:
            self._pending.pop(run_id, None)

    def pending(self, run_id: str) -> bool:
        with self._lock:
            return run_id in self._pending

    def overlay(self, record: RunRecord) -> RunRecord:
        """The record as clients should see it: with the unsaved status, if any."""
        with self._lock:
            unsaved = self._pending.get(record.id)
        if unsaved is None:
            return record
        return dataclasses.replace(record, status=unsaved.status, error=unsaved.error)

    def retry(self) -> None:
        """Write the kept statuses; keep what still fails."""
        with self._lock:
            pending = dict(self._pending)
        for run_id, unsaved in pending.items():
            try:
                self.store.update(run_id, status=unsaved.status, error=unsaved.error)
            except RunNotFoundError:
                self.forget(run_id)
            except Exception:
                log.warning("run %s: its status still cannot be written; retrying later", run_id)
            else:
                with self._lock:
                    if self._pending.get(run_id) is unsaved:
                        del self._pending[run_id]
