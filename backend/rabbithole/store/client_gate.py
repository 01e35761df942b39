"""The gate in front of the vector store's client: many calls at once, or one swap of the client alone.

An embedded Chroma keeps each collection's index in memory; reading what another process wrote takes a new
client (:meth:`ChromaStore.refresh`). Two clients of one folder in one process must never write at the same
time (that corrupts the index: 50 parallel uploads crashed the server and left a store that crashed every
start). So every call through the client holds the gate's shared side, a swap holds it alone, and a handle
opened before a swap finds the new client by the gate's generation before its next call.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager


class ClientGate:
    """A readers-writer lock with a generation number. Writers (swaps) go first once they wait, so a stream
    of calls cannot keep a swap out for ever. Shared holds are re-entrant per thread (a call made while the
    same thread holds the gate, e.g. a handle opening inside a listing, does not wait for a waiting swap)."""

    def __init__(self) -> None:
        self._cond = threading.Condition(threading.Lock())
        self._readers = 0
        self._writing = False
        self._writers_waiting = 0
        self._local = threading.local()
        #: bumped by every swap; a handle compares it with the generation it was opened at
        self.generation = 0

    def _depth(self) -> int:
        return int(getattr(self._local, "depth", 0))

    @contextmanager
    def shared(self) -> Iterator[int]:
        """Hold the gate for one call through the client; yields the client's generation."""
        depth = self._depth()
        if depth == 0:
            with self._cond:
                while self._writing or self._writers_waiting:
                    self._cond.wait()
                self._readers += 1
        self._local.depth = depth + 1
        try:
            yield self.generation
        finally:
            self._local.depth = depth
            if depth == 0:
                with self._cond:
                    self._readers -= 1
                    if self._readers == 0:
                        self._cond.notify_all()

    @contextmanager
    def exclusive(self) -> Iterator[None]:
        """Hold the gate alone (no call in flight) to swap the client; the generation moves on."""
        if self._depth():
            raise RuntimeError("the vector store's client cannot be swapped from inside a call through it")
        with self._cond:
            self._writers_waiting += 1
            try:
                while self._writing or self._readers:
                    self._cond.wait()
            finally:
                self._writers_waiting -= 1
            self._writing = True
        try:
            yield
            self.generation += 1
        finally:
            with self._cond:
                self._writing = False
                self._cond.notify_all()
