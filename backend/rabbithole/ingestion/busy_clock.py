"""How long at least one of several overlapping tasks was running: the union of their intervals."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")


class BusyClock:
    """Counts the time during which one or more timed calls were running, whatever their overlap: two
    files embedded at once for 3 s each, overlapping by 1 s, make 5 s busy, not 6."""

    def __init__(self, now: Callable[[], float] = time.perf_counter) -> None:
        self._now = now
        self._lock = threading.Lock()
        self._running = 0
        self._since = 0.0
        self._seconds = 0.0

    def timed(self, call: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
        self.start()
        try:
            return call(*args, **kwargs)
        finally:
            self.stop()

    def start(self) -> None:
        with self._lock:
            if self._running == 0:
                self._since = self._now()
            self._running += 1

    def stop(self) -> None:
        with self._lock:
            self._running -= 1
            if self._running == 0:
                self._seconds += self._now() - self._since

    @property
    def seconds(self) -> float:
        with self._lock:
            return self._seconds + (self._now() - self._since if self._running else 0.0)
