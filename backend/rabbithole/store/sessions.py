"""Which processes have the embedded vector store open: one marker file per process
(``data_dir/store-sessions/<pid>-<start time>``), written when a process opens the store and removed when it
closes it. A marker whose process is gone means that process ended without closing the store (killed,
crashed): its last writes may have left an index damaged, so the next server start checks the indexes
(:mod:`rabbithole.store.probe`) before it opens any. A clean stop leaves no marker and costs nothing."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import psutil

log = logging.getLogger(__name__)

SESSIONS_DIR = "store-sessions"


def _start_time(pid: int) -> str | None:
    try:
        return f"{psutil.Process(pid).create_time():.2f}"
    except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
        return None


class StoreSessions:
    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._mine: Path | None = None

    def begin(self) -> None:
        """Mark this process as having the store open (once)."""
        if self._mine is not None:
            return
        pid = os.getpid()
        marker = self.directory / f"{pid}-{_start_time(pid)}"
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            marker.touch()
        except OSError as exc:  # a read-only data folder: the check after a crash is lost, nothing else
            log.warning("cannot mark the vector store as open (%s): %s", marker, exc)
            return
        self._mine = marker

    def end(self) -> None:
        """This process closed the store cleanly."""
        marker, self._mine = self._mine, None
        if marker is not None:
            marker.unlink(missing_ok=True)

    def unclean(self) -> list[Path]:
        """The markers of processes that ended without closing the store."""
        if not self.directory.is_dir():
            return []
        gone = []
        for marker in self.directory.iterdir():
            pid_text, _, started = marker.name.partition("-")
            if not pid_text.isdigit():
                continue
            if marker == self._mine:
                continue
            if _start_time(int(pid_text)) != started:  # the process is gone (or its pid was reused)
                gone.append(marker)
        return sorted(gone)

    @staticmethod
    def settle(markers: list[Path]) -> None:
        """Forget the markers of ended processes once the store was checked."""
        for marker in markers:
            marker.unlink(missing_ok=True)
