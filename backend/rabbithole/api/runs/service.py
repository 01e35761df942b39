"""Executes research runs in the server's background, independent of any client connection.

Runs are asyncio tasks owned by the app's lifespan (``start()`` / ``stop()``). At most
``research.max_running_runs`` execute at once; the rest wait as ``queued``, in the order they were
submitted. Every event the runner emits, and every status change, is persisted (``RunEventLog``) before it
is published to the clients watching the run (``EventBroker``), so a client that reconnects replays what it
missed from the database; the writes happen in a thread of their own, batched across runs, and the events
are published once their transaction committed (``publisher.py``), so the event loop never waits for
SQLite. An event that could not be persisted ends its run in ``error`` (``_unsaved``). Every change of a run's
state goes through the run lifecycle (``runs/lifecycle.py``): the status written once, its ``status`` event
published; the runner's transitions and this service's (queued, cancelled, an error before the run could
start) alike. Store, event log and lease calls run in threads (``AsyncRunStore``, ``asyncio.to_thread``).
Answers to an interrupt are serialised by a per-run lock: the first wins, a second finds the run busy
(``RunStateError``, 409).

At start-up, runs a stopped process left ``running`` or ``queued`` are resumed from their last checkpoint
(``research.resume_on_start``; otherwise the running ones are marked ``error``, resumable).

Servers may share one data directory: a process executes a run only while it holds the run's lease
(``runs/leases.py``), claimed atomically when the run is submitted or picked up at start-up, renewed
by a heartbeat, released when the run stops executing. So each run executes in exactly one process; the runs
of a process that died are taken over by a live one once their leases expire, or at once where the owner
is known to be gone (a process of this host that no longer lives: a server restarted after ``kill -9``).
The CLI executes runs under the same lease; a request for a run another process executes is refused
(``RunBusyError``, 409). Several workers over one PostgreSQL (``database.url``) share the runs the same way;
a run taken over continues from its checkpoint, its events numbered on from the log's last one. The events
of runs other workers execute reach this worker's clients through ``relay.py`` (LISTEN/NOTIFY).
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

from rabbithole.api.runs.broker import EventBroker
from rabbithole.api.runs.endings import UnsavedEndings
from rabbithole.api.runs.progress import PROGRESS_TYPES, RunProgress
from rabbithole.api.runs.publisher import EventPublisher
from rabbithole.api.runs.relay import WorkerRelay
from rabbithole.api.runs.schemas import ResumeBody, check_fits
from rabbithole.catalog.db import is_postgresql
from rabbithole.core.disk_full import disk_full_error
from rabbithole.core.errors import RabbitholeError, RunBusyError, RunStateError
from rabbithole.research.context import RunOverrides
from rabbithole.research.models import RunMode, RunStatus
from rabbithole.runs.aio import AsyncRunStore
from rabbithole.runs.event_log import NewEvent, RunEvent, RunEventLog
from rabbithole.runs.leases import RunLeases, describe_owner, process_owner
from rabbithole.runs.lifecycle import RunLifecycle
from rabbithole.runs.run_events import DoneEvent
from rabbithole.runs.runner import ResearchRunner, resume_advice
from rabbithole.runs.store import RunRecord, RunStore

if TYPE_CHECKING:
    from rabbithole.services import Services

log = logging.getLogger(__name__)

#: Events after which a run's stream ends (until the run is resumed).
TERMINAL = frozenset({"done", "error"})
FINISHED: frozenset[RunStatus] = frozenset({"done"})
RESTART_MESSAGE = "the server stopped while the run was running; resume it with POST /api/runs/{id}/resume"
#: Seconds an answer waits for a run that announced its interrupt to end its task (it releases its lease).
WRAP_UP_S = 10.0


@dataclass(frozen=True, slots=True)
class _Job:
    run_id: str
    resume: dict[str, Any] | None


class RunService:
    def __init__(self, services: Services) -> None:
        self.services = services
        self.store: RunStore = services.runs
        self.runs = AsyncRunStore(self.store)
        self.events: RunEventLog = services.run_events
        self.broker = EventBroker()
        self.runner = ResearchRunner(services, self.store, on_change=self.broker.publish_change)
        self.lifecycle = RunLifecycle(
            self.runs, self.runner.unsaved, self._publish, on_change=self.broker.publish_change
        )
        self.endings = UnsavedEndings(self.events, self.broker)
        self.limit = services.settings.research.max_running_runs
        self._waiting: deque[_Job] = deque()
        self._active: dict[str, asyncio.Task[None]] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        self._progress: dict[str, RunProgress] = {}  # runs executing here, updated as events are published
        self.publisher = EventPublisher(self.events, self.broker, self._progress, on_unsaved=self._unsaved)
        self._ending: set[asyncio.Task[None]] = set()  # runs being ended after an unsaved event
        self._keeping = asyncio.Lock()  # final events kept in memory are numbered one after the other
        self._begun: set[str] = set()  # runs whose task started (and releases the lease itself)
        self._closing = False
        self.lease_s = services.settings.research.run_lease_s
        self.leases = RunLeases(self.store.engine, process_owner(), self.lease_s)
        self._adopter: asyncio.Task[None] | None = None
        #: Several workers over one PostgreSQL: the events and run-list changes of the others, and ours
        #: for them (None on the embedded backend: one server process sees everything).
        self.relay: WorkerRelay | None = None
        if is_postgresql(self.events.engine):
            executing = self._active.__contains__
            self.relay = WorkerRelay(self.events, self.broker, origin=self.leases.owner, executing=executing)

    # -- lifecycle -----------------------------------------------------------------------------------

    async def start(self) -> None:
        """Pick up the runs a stopped process left running or queued, oldest first (those no live process
        holds), then keep the leases of this process's runs and take over the runs of dead processes."""
        await self.runner.graph()
        if self.relay is not None:
            await self.relay.start()
        self.leases.start_heartbeat()
        await self._adopt(expired_only=False)
        self._adopter = asyncio.create_task(self._adopt_forever(), name="run-adopter")

    async def _adopt(self, *, expired_only: bool) -> None:
        """Claim and continue stopped runs: at start-up those without a live lease, later only those whose
        owner's lease expired or whose owner is gone (a process that died; ``RunLeases.claim``). A run the
        CLI executes holds a lease like a server's."""
        stopped = list(reversed(await self.runs.list(status=["running", "queued"], limit=1_000_000)))
        for record in stopped:
            if self.busy(record.id):
                continue
            claimed = await asyncio.to_thread(
                self.leases.claim, record.id, expired_only=expired_only, statuses=("running", "queued")
            )
            if not claimed:
                continue  # another process holds it, or it ended since it was listed
            if record.status == "running" and not self.services.settings.research.resume_on_start:
                await self.lifecycle.transition(
                    record.id, "error", error=RESTART_MESSAGE.format(id=record.id)
                )
                await self._release(record.id)
                continue
            view = await self.runner.view(record.id)
            if view.interrupt is not None:  # stopped between its interrupt and the status update
                await self.lifecycle.transition(record.id, "waiting_for_input")
                await self._release(record.id)
                continue
            await self._submit(_Job(record.id, None))

    async def _adopt_forever(self) -> None:
        """Every third of the lease: write what a full disk kept in memory (final statuses and events), and
        take over the runs of processes that died."""
        while True:
            await asyncio.sleep(self.lease_s / 3)
            await asyncio.to_thread(self.runner.unsaved.retry)
            await asyncio.to_thread(self.endings.retry)
            try:
                await self._adopt(expired_only=True)
            except Exception:  # a locked database, a run deleted meanwhile: the next round tries again
                log.exception("taking over runs failed; retrying")

    async def stop(self) -> None:
        """Cancel what executes; those runs stay ``queued``, released, and resume at the next start."""
        self._closing = True
        if self._adopter is not None:
            self._adopter.cancel()
            await asyncio.gather(self._adopter, return_exceptions=True)
        waiting = [job.run_id for job in self._waiting]
        self._waiting.clear()
        for run_id in waiting:
            await self._release(run_id)
        tasks = list(self._active.values())
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks)
        await self.publisher.close()  # the events still queued are written (and published)
        if self.relay is not None:
            await self.relay.stop()
        await asyncio.to_thread(self.leases.stop_heartbeat)

    # -- requests ------------------------------------------------------------------------------------

    async def create(
        self,
        question: str,
        collections: list[str],
        mode: RunMode,
        overrides: RunOverrides,
        *,
        run_id: str | None = None,
        created_by: int | None = None,
        private: bool = False,
    ) -> RunRecord:
        """A new run, submitted. ``run_id``: its id when the caller chose it (an Agent Protocol thread's);
        ``created_by``, ``private``: its account and whether only that account may see it (accounts mode)."""
        claim = self.leases.new_claim()  # no other server adopts it before this one submits it
        create = partial(
            self.runner.create,
            origin="server",
            claim=claim,
            run_id=run_id,
            created_by=created_by,
            private=private,
        )
        record = await asyncio.to_thread(create, question, collections, mode, overrides)
        await self.lifecycle.announce(record)  # queued, as inserted
        await self._submit(_Job(record.id, None))
        return record

    async def resume(self, run_id: str, body: ResumeBody) -> RunRecord:
        """Answer the pending interrupt, or continue a stopped run. One caller at a time per run."""
        async with self._lock(run_id):
            record = await self.runs.get(run_id, with_result=False)
            await self._wrapped_up(run_id, record)
            if self.busy(run_id):
                raise RunStateError(f"run {run_id} is {record.status}; it does not wait for input")
            if record.status in FINISHED:
                raise RunStateError(f"run {run_id} is finished; there is nothing to resume")
            if not await asyncio.to_thread(self.leases.claim, run_id):
                raise await self._busy_elsewhere(run_id)
            try:
                interrupt = (await self.runner.view(run_id)).interrupt
                check_fits(run_id, interrupt, body)
            except BaseException:
                await self._release(run_id)
                raise
            resume = body.model_dump(mode="json") if interrupt is not None else None
            self.endings.forget(run_id)
            record = await self.lifecycle.transition(run_id, "queued", error=None)
            await self._submit(_Job(run_id, resume))
            return record

    async def cancel(self, run_id: str) -> RunRecord:
        async with self._lock(run_id):
            record = await self.runs.get(run_id, with_result=False)
            if record.status in FINISHED or record.status == "cancelled":
                raise RunStateError(f"run {run_id} is {record.status}; there is nothing to cancel")
            await self._refuse_if_elsewhere(run_id)
            await self._drop_waiting(run_id)
            task = self._active.get(run_id)
            if task is not None:
                task.cancel()
                await asyncio.wait({task})
            self.endings.forget(run_id)
            record = await self.lifecycle.transition(run_id, "cancelled", error="cancelled")
            await self._publish(run_id, DoneEvent(status="cancelled").model_dump(mode="json"))
            await self.publisher.flush()  # answered once the run's final events are persisted
            return record

    async def delete(self, run_id: str) -> None:
        async with self._lock(run_id):
            await self.runs.get(run_id, with_result=False)
            await self._refuse_if_elsewhere(run_id)
            await self._drop_waiting(run_id)
            task = self._active.get(run_id)
            if task is not None:
                task.cancel()
                await asyncio.wait({task})
            await self.runs.delete(run_id)
            await self.publisher.delete_run(run_id)  # after the run's events still on their way
            checkpointer = await self.services.checkpointer()
            await checkpointer.adelete_thread(run_id)
        self._locks.pop(run_id, None)
        self.broker.close_run(run_id)
        self.broker.publish_change({"change": "deleted", "run_id": run_id})

    async def progress(self, run_id: str) -> RunProgress:
        """The run's todo list, warnings and last event number: live for a run executing here (no
        database read), folded from its persisted events otherwise (read in a thread)."""
        live = self._progress.get(run_id)
        if live is not None:
            return live
        return await asyncio.to_thread(self._stored_progress, run_id)

    async def last_event(self, run_id: str) -> int:
        """The number of the run's last published event."""
        live = self._progress.get(run_id)
        if live is not None:
            return live.last_seq
        return await asyncio.to_thread(self.events.last_seq, run_id)

    def _stored_progress(self, run_id: str) -> RunProgress:
        return RunProgress.of(*self.events.progress_events(run_id, PROGRESS_TYPES))

    async def _wrapped_up(self, run_id: str, record: RunRecord) -> None:
        """A run that announced its interrupt (status and ``interrupt`` event) is still wrapping up here for
        a moment (its lease released, its task ended): an answer sent the moment the interrupt arrived waits
        for that instead of being refused as busy."""
        task = self._active.get(run_id)
        if task is not None and record.status == "waiting_for_input":
            await asyncio.wait({task}, timeout=WRAP_UP_S)

    def busy(self, run_id: str) -> bool:
        """Executing, or queued to execute."""
        return run_id in self._active or any(job.run_id == run_id for job in self._waiting)

    # -- execution -----------------------------------------------------------------------------------

    async def _submit(self, job: _Job) -> None:
        """Queue the job if this process holds (or can take) the run's lease; another process that holds
        it executes the run."""
        if self._closing or not await asyncio.to_thread(self.leases.claim, job.run_id):
            return
        self._waiting.append(job)
        self._pump()

    def _pump(self) -> None:
        while self._waiting and len(self._active) < self.limit and not self._closing:
            job = self._waiting.popleft()
            task = asyncio.create_task(self._execute(job), name=f"run-{job.run_id}")
            self._active[job.run_id] = task
            task.add_done_callback(partial(self._finished, job.run_id))

    def _finished(self, run_id: str, task: asyncio.Task[None]) -> None:
        self._active.pop(run_id, None)
        self._progress.pop(run_id, None)
        if run_id not in self._begun and not self.busy(run_id):  # cancelled before it began
            self._in_background(self._release(run_id), f"run-{run_id}-release")
        self._begun.discard(run_id)
        self._pump()

    async def _execute(self, job: _Job) -> None:
        """Execute the job. A run that cannot start ends in ``error`` here; once it started, the runner ends
        it (once) whatever fails. A cancelled run's end is its canceller's: ``cancel`` (cancelled), ``stop``
        (queued again, here), an unsaved event (error)."""
        run_id = job.run_id
        self._begun.add(run_id)
        try:
            await self._run(job)
        except asyncio.CancelledError:
            if self._closing:  # the server stops: the run continues at the next start
                await self.lifecycle.park(run_id)
            raise
        except Exception:  # ended by the runner (``RunFailedError``; a bug: logged there)
            pass
        finally:
            if not any(job.run_id == run_id for job in self._waiting):  # not queued again meanwhile
                await self._release(run_id)

    async def _run(self, job: _Job) -> None:
        run_id = job.run_id
        try:
            if not await asyncio.to_thread(self.leases.claim, run_id):
                log.error("run %s: another process holds its lease; not executed here", run_id)
                return
            self._progress[run_id] = await asyncio.to_thread(self._stored_progress, run_id)
            start = await self.runner.prepare(run_id, job.resume)
        except Exception as exc:  # a run that cannot start (collection gone), a full disk, a bug
            if not isinstance(exc, RabbitholeError) and disk_full_error(exc) is None:
                log.exception("run %s failed", run_id)
            await self.lifecycle.fail(run_id, await self._failure_message(run_id, exc))
            return

        async def sink(event: dict[str, Any]) -> None:
            await self._publish(run_id, event)

        await self.runner.execute(start, on_event=sink, on_cancel=None)

    async def _failure_message(self, run_id: str, exc: Exception) -> str:
        if isinstance(exc, RabbitholeError):
            return str(exc)
        full = disk_full_error(exc)
        if full is None:
            return f"internal error: {exc!r}"
        try:
            advice = resume_advice(await self.runs.get(run_id, with_result=False))
        except Exception:
            advice = f"POST /api/runs/{run_id}/resume"
        return f"{full}. The run can be resumed from its last checkpoint: {advice}"

    def unsaved_events(self, run_id: str, after: int) -> list[RunEvent]:
        """The run's final events that could not be persisted yet, numbered above ``after``."""
        return self.endings.after(run_id, after)

    # -- events --------------------------------------------------------------------------------------

    async def _publish(self, run_id: str, event: dict[str, Any]) -> None:
        """Persist the event (in the writer's thread), then publish it and fold it into the live progress."""
        self.publisher.emit(run_id, str(event.get("type", "event")), event)

    def _unsaved(self, run_id: str, events: list[NewEvent], exc: Exception) -> None:
        """Events of the run could not be persisted (nobody saw them): a run executing or queued here
        cannot go on without them and ends in ``error`` with the reason; otherwise its streams end (a
        client that reconnects replays what was persisted)."""
        kinds = ", ".join(event.type for event in events)
        log.error("run %s: its events (%s) could not be persisted: %s", run_id, kinds, exc)
        final = [e for e in events if e.type == "error" or e.data.get("status") == "error"]
        if final:  # the run's end (a full disk): published from memory, kept for later streams
            self._in_background(self._keep(run_id, final), f"run-{run_id}-kept")
            return
        if not self.busy(run_id):
            self.broker.close_run(run_id)
            return
        reason = disk_full_error(exc) or f"{type(exc).__name__}: {exc}"
        message = f"the run's progress events could not be saved ({reason})"
        message += f". The run can be resumed from its last checkpoint: POST /api/runs/{run_id}/resume"
        self._in_background(self._end_unsaved(run_id, message), f"run-{run_id}-unsaved")

    def _in_background(self, work: Any, name: str) -> None:
        task = asyncio.create_task(work, name=name)
        self._ending.add(task)
        task.add_done_callback(self._ending.discard)

    async def _keep(self, run_id: str, final: list[NewEvent]) -> None:
        """The run's final events that could not be persisted, published from memory (``endings``), in
        order."""
        async with self._keeping:
            live = self._progress.get(run_id)
            try:
                last = (
                    live.last_seq
                    if live is not None
                    else await asyncio.to_thread(self.events.last_seq, run_id)
                )
            except Exception:
                last = 0
            for new in final:
                event = self.endings.publish(run_id, new.type, new.data, last_seq=last)
                last = event.seq
                if live is not None:
                    live.add(event)

    async def _end_unsaved(self, run_id: str, message: str) -> None:
        async with self._lock(run_id):
            if not self.busy(run_id):
                return  # it ended meanwhile (a cancel, the end)
            await self._drop_waiting(run_id)
            task = self._active.get(run_id)
            if task is not None:
                task.cancel()
                await asyncio.wait({task})
            await self.lifecycle.fail(run_id, message)

    # -- helpers -------------------------------------------------------------------------------------

    def _lock(self, run_id: str) -> asyncio.Lock:
        return self._locks.setdefault(run_id, asyncio.Lock())

    async def _release(self, run_id: str) -> None:
        try:
            await asyncio.to_thread(self.leases.release, run_id)
        except Exception:  # a full disk: the lease expires on its own
            log.exception("run %s: its lease could not be released", run_id)

    async def _drop_waiting(self, run_id: str) -> None:
        if any(job.run_id == run_id for job in self._waiting):
            self._waiting = deque(job for job in self._waiting if job.run_id != run_id)
            await self._release(run_id)

    async def _refuse_if_elsewhere(self, run_id: str) -> None:
        holder = await asyncio.to_thread(self.leases.holder, run_id)
        if holder is not None and holder != self.leases.owner:
            raise await self._busy_elsewhere(run_id, holder)

    async def _busy_elsewhere(self, run_id: str, holder: str | None = None) -> RunBusyError:
        """The run is executed by another process (another server, or the CLI): it holds the lease."""
        holder = holder or await asyncio.to_thread(self.leases.holder, run_id)
        who = f" ({describe_owner(holder)})" if holder else ""
        return RunBusyError(
            f"run {run_id} is being executed by another process{who}: another server, or the CLI "
            f"(rabbithole research/report); follow it with GET /api/runs/{run_id}, and resume it only once "
            "it stopped"
        )
