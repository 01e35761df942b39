"""Ctrl-C (SIGINT) and SIGTERM while the CLI executes a run (`rabbithole research`, `rabbithole report`).

Both stop the run the same way: the first signal cancels the task that drives it, so the run's own
cancellation path runs (``runs/local_run.py``: the run is marked cancelled, its final event written, its
lease released as the CLI's ``LocalRun`` exits) and the command exits with ``EXIT_CANCELLED``. Without this,
SIGTERM (a service manager stopping the CLI, ``kill``, a closed terminal session) ended the process at once
and left its run "running" with no process executing it.

While the terminal waits for an answer (a prompt blocks the event loop: a cancelled task would only notice
once the prompt returns) a signal interrupts the prompt at once (``KeyboardInterrupt``, which the prompt
turns into ``typer.Abort``); the run keeps waiting for input. A second signal raises ``KeyboardInterrupt``
wherever the process is, as a second Ctrl-C does under ``asyncio.run`` (typer exits with 130).
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType, TracebackType
from typing import Any

#: The signals that stop a local run.
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


class StopSignals:
    """Entered inside the event loop, by the task that drives the run: SIGINT and SIGTERM cancel that task
    (the first; the previous handlers come back on exit). ``received``: the first signal, if any."""

    def __init__(self) -> None:
        self.received: signal.Signals | None = None
        self._prompting = False
        self._task: asyncio.Task[Any] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._previous: dict[signal.Signals, Any] = {}

    def __enter__(self) -> StopSignals:
        self._task = asyncio.current_task()
        self._loop = asyncio.get_running_loop()
        for sig in STOP_SIGNALS:
            self._previous[sig] = signal.signal(sig, self._on_signal)
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        for sig, handler in self._previous.items():
            signal.signal(sig, handler)
        self._previous.clear()

    @contextmanager
    def prompting(self) -> Iterator[None]:
        """While the terminal waits for an answer: a signal interrupts the prompt (``KeyboardInterrupt``)."""
        self._prompting = True
        try:
            yield
        finally:
            self._prompting = False

    @property
    def name(self) -> str:
        """The first signal as a user knows it: "Ctrl-C" or "SIGTERM"."""
        return "Ctrl-C" if self.received in (None, signal.SIGINT) else signal.Signals(self.received).name

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        first = self.received is None
        if first:
            self.received = signal.Signals(signum)
        if self._prompting or not first or self._task is None or self._task.done():
            raise KeyboardInterrupt
        self._task.cancel()
        if self._loop is not None:  # wake the loop if it waits in select() with a long timeout
            self._loop.call_soon_threadsafe(lambda: None)
