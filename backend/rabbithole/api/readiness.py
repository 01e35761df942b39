"""Start-up warm-up: the lifespan loads the search stack in the background and records here when it is done
(or why it failed), for /health to report."""

from __future__ import annotations

import logging
import threading

from rabbithole.services import Services

log = logging.getLogger(__name__)


class Readiness:
    """Whether the server has loaded what it needs; one per app (on ``app.state``)."""

    def __init__(self) -> None:
        self._done = threading.Event()
        self.error: str | None = None
        #: collections the warm-up could not load (a damaged index, another embedding model): why, and the
        #: collection's revision then (an error stops counting once the collection changed: re-ingested,
        #: rebuilt)
        self.collection_errors: dict[str, tuple[str, str]] = {}

    @property
    def ready(self) -> bool:
        return self._done.is_set() and self.error is None

    @property
    def state(self) -> str:
        """ "starting", "ready" or "failed"."""
        if not self._done.is_set():
            return "starting"
        return "failed" if self.error else "ready"

    def mark_ready(self) -> None:
        self._done.set()

    def warm_up(self, services: Services) -> None:
        """Load the embedder, the searcher and the collections' indexes (run in a worker thread)."""
        try:
            failed = services.warm_up()
            self.collection_errors = {
                name: (services.catalog.revision(name), reason) for name, reason in failed.items()
            }
        except Exception as exc:  # reported by /health; searches report it again with their own status
            log.warning("warm-up failed: %s", exc)
            self.error = f"{type(exc).__name__}: {exc}"
        finally:
            self._done.set()

    def wait(self, timeout_s: float | None = None) -> bool:
        return self._done.wait(timeout_s)
