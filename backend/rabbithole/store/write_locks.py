"""One writer per collection at a time, in this process and across processes on one data folder.

Ingesting into a collection, deleting a document or the collection, and rebuilding its vectors hold the
collection's write lock from the first write to the last: the vector store, the catalog rows and the
collection's revision then change in one writer's order, and a second upload into the same collection waits
instead of writing the same index at the same time. Within a process a thread lock per collection orders
the writers; across processes (a `rabbithole ingest` beside a server) an advisory file lock
(``data_dir/locks/<store name>.lock``, ``flock``) does.
"""

from __future__ import annotations

import fcntl
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from rabbithole.store.names import chroma_collection_name


class CollectionWriteLocks:
    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._guard = threading.Lock()
        self._locks: dict[str, threading.Lock] = {}

    def _thread_lock(self, collection: str) -> threading.Lock:
        with self._guard:
            return self._locks.setdefault(collection, threading.Lock())

    @contextmanager
    def hold(self, collection: str) -> Iterator[None]:
        """Hold ``collection``'s write lock (waiting for the writer before, in this or another process)."""
        with self._thread_lock(collection):
            self.directory.mkdir(parents=True, exist_ok=True)
            path = self.directory / f"{chroma_collection_name(collection)}.lock"
            with path.open("a") as file:
                fcntl.flock(file.fileno(), fcntl.LOCK_EX)
                try:
                    yield
                finally:
                    fcntl.flock(file.fileno(), fcntl.LOCK_UN)
