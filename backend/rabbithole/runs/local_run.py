"""A run executed outside the server (the CLI's ``research`` and ``report``, their ``--resume``), the way the
server executes one: under the run's lease (``leases.py``), so a server or another CLI never executes it
at the same time, and with its events and status events in the run event log, so the server's view of the
run (GET /api/runs/{id}, a stream that connects, the web app) shows its progress and its end.

    async with LocalRun(services, run_id) as local:           # RunBusyError: another process executes it
        view = await local.advance(runner, on_event=progress)
        view = await local.advance(runner, answer, on_event=progress)

The lease is claimed on entry, renewed by a heartbeat thread while the run executes (and while the terminal
waits for an answer), and released on exit, whatever ends it (the end, an error, Ctrl-C).
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from datetime import datetime
from types import TracebackType
from typing import TYPE_CHECKING, Any

from rabbithole.core.errors import RunBusyError, RunStateError
from rabbithole.runs.leases import RunLeases, describe_owner, process_owner

if TYPE_CHECKING:
    from rabbithole.runs.event_log import RunEventLog
    from rabbithole.runs.runner import EventSink, ResearchRunner, RunView
    from rabbithole.runs.store import RunStore
    from rabbithole.services import Services

log = logging.getLogger(__name__)


class LocalRun:
    def __init__(self, services: Services, run_id: str, owner: str | None = None) -> None:
        """``owner``: the lease owner (default: a new one for this process), the one a run this process
        created was inserted with (:meth:`new_claim`)."""
        self.run_id = run_id
        self.store: RunStore = services.runs
        self.events: RunEventLog = services.run_events
        lease_s = services.settings.research.run_lease_s
        self.leases = RunLeases(self.store.engine, owner or process_owner(), lease_s)

    @staticmethod
    def new_claim(services: Services) -> tuple[str, datetime]:
        """The lease a run this process creates is inserted with; ``LocalRun(services, run_id, owner)``
        with its owner then claims it."""
        lease_s = services.settings.research.run_lease_s
        return RunLeases(services.runs.engine, process_owner(), lease_s).new_claim()

    def __enter__(self) -> LocalRun:
        self.store.get(self.run_id, with_result=False)  # RunNotFoundError before any claim
        if not self.leases.claim(self.run_id):
            holder = self.leases.holder(self.run_id)
            who = f" ({describe_owner(holder)})" if holder else ""
            raise RunBusyError(
                f"run {self.run_id} is being executed by another process{who}: a server, or another "
                f"rabbithole command; follow it there (the web app, GET /api/runs/{self.run_id}), and resume "
                "it only once it stopped"
            )
        self.leases.start_heartbeat()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.leases.stop_heartbeat()
        try:
            self.leases.release(self.run_id)
        except Exception:  # a full disk: the lease expires on its own; the run's own outcome goes on
            log.exception("run %s: its lease could not be released", self.run_id)

    async def __aenter__(self) -> LocalRun:
        """``__enter__`` in a thread (the store and the claim are database calls)."""
        return await asyncio.to_thread(self.__enter__)

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await asyncio.shield(asyncio.to_thread(self.__exit__, kind, exc, tb))

    async def advance(self, runner: ResearchRunner, resume: Any = None, *, on_event: EventSink) -> RunView:
        """``runner.advance`` with the run's events recorded as the server records them (its ``status``
        events included: the runner's lifecycle publishes them here), each appended to the run's event log
        (in a thread) and then handed to ``on_event`` (all but the ``status`` events). A cancelled run
        (Ctrl-C) ends ``cancelled`` with its final ``done`` event. An event that cannot be recorded ends the
        run in error (the runner's way)."""
        record = await asyncio.to_thread(self.store.get, self.run_id, with_result=False)
        if record.status == "done":
            raise RunStateError(f"run {self.run_id} is finished; there is nothing to resume")

        async def record_event(event: dict[str, Any]) -> None:
            kind = str(event.get("type", "event"))
            await asyncio.to_thread(self.events.append, self.run_id, kind, event)
            if kind != "status":
                forwarded = on_event(event)
                if inspect.isawaitable(forwarded):
                    await forwarded

        try:
            return await runner.advance(self.run_id, resume, on_event=record_event)
        except asyncio.CancelledError:  # the runner ended it cancelled (its status event is recorded)
            try:
                await asyncio.to_thread(self.events.append, self.run_id, "done", {"status": "cancelled"})
            except Exception:  # a full disk: the store says cancelled (or the runner keeps it)
                log.exception("run %s: its cancellation event could not be recorded", self.run_id)
            raise
