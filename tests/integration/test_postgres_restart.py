"""PostgreSQL restarted in the middle of a run (issue 25's fault).

What a restart does to the pieces: a statement issued while the server is down waits for it (the engines
of ``catalog/db.py``); a batch of run events whose connection dies in its transaction is written on a new
connection, once only (the event writer's appender on PostgreSQL).

The whole: a real uvicorn server on the throwaway PostgreSQL and a Chroma server, a quick run slowed by the
fake Ollama's latency, and the database stopped (``pg_ctl stop -m fast``: every session ended), down for two
seconds and started again while the run is past its plan. The run ends ``done``, or in ``error`` with a
message that says how to resume it, and then finishes after POST /api/runs/{id}/resume; its events in the
database are numbered 1..n without a gap or a repeat; a client that followed the run across the restart
(reconnecting with Last-Event-ID, as the web app's EventSource does) received every event exactly once, in
order, as a replay from the start shows them; the server answers afterwards (/health, GET /api/runs)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import psycopg
import pytest
from sqlalchemy import text

from fixtures.api_server import serving, wait_ready
from fixtures.run_http import QUICK
from fixtures.sse import Sse, read_stream
from fixtures.team import TeamBackend
from rabbithole.api.main import create_app
from rabbithole.catalog.db import create_engine_for
from rabbithole.devtools.fake_ollama import FakeOllama
from rabbithole.devtools.postgres_cluster import PostgresCluster
from rabbithole.runs.event_appenders import appender_for
from rabbithole.runs.event_log import NewEvent, RunEventLog

pytestmark = pytest.mark.timeout(300)

WAIT_S = 120.0
#: Seconds the database stays down.
DOWN_S = 2.0
WAITING_FOR_A_LOCK = (
    "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
)


class Follower:
    """A client of the run's stream that reconnects as the web app's EventSource does: after a dropped
    connection, or a stream that ended without the run's end, it connects again with Last-Event-ID (the
    number of the last event it got). It stops at ``done`` or ``error``; ``follow`` again goes on from there
    (after a resume)."""

    def __init__(self, url: str, run_id: str) -> None:
        self.url = f"{url}/api/runs/{run_id}/events"
        self.events: list[Sse] = []
        self.connections = 0
        self.lock = threading.Lock()

    def seen(self) -> list[Sse]:
        with self.lock:
            return list(self.events)

    def follow(self) -> Sse:
        deadline = time.monotonic() + WAIT_S
        while time.monotonic() < deadline:
            headers = {"Last-Event-ID": str(self.events[-1].id)} if self.events else {}
            self.connections += 1
            try:
                ended = self._read(headers, deadline)
            except httpx.TransportError:  # the server dropped the connection: reconnect
                ended = None
            if ended is not None:
                return ended
            time.sleep(0.5)
        raise AssertionError(f"the run did not end within {WAIT_S:.0f} s: {self.seen()[-3:]}")

    def _read(self, headers: dict[str, str], deadline: float) -> Sse | None:
        fields: dict[str, str] = {}
        timeout = httpx.Timeout(10, read=30)
        with httpx.stream("GET", self.url, headers=headers, timeout=timeout) as response:
            assert response.status_code == 200, response.read()
            for line in response.iter_lines():
                assert time.monotonic() < deadline, self.seen()[-3:]
                if line.startswith(":"):
                    continue
                if line:
                    key, _, value = line.partition(":")
                    fields[key] = value.removeprefix(" ")
                    continue
                if "data" in fields:
                    event = Sse(int(fields["id"]), fields.get("event", ""), json.loads(fields["data"]))
                    with self.lock:
                        self.events.append(event)
                    if event.type in ("done", "error"):
                        return event
                fields = {}
        return None


def _wait_for(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + WAIT_S
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.05)


def _stored_numbers(database_url: str, run_id: str) -> list[int]:
    with psycopg.connect(database_url) as conn:
        rows = conn.execute("SELECT seq FROM run_events WHERE run_id = %s ORDER BY seq", (run_id,))
        return [int(seq) for (seq,) in rows]


def test_a_statement_issued_while_postgresql_restarts_waits_for_it(
    postgres_cluster: PostgresCluster, tmp_path: Path
) -> None:
    engine = create_engine_for(postgres_cluster.create_database(), tmp_path / "unused.sqlite3")
    try:
        with engine.connect() as conn:  # reached once: a pooled connection, which the restart kills
            assert conn.scalar(text("SELECT 1")) == 1
        postgres_cluster.down()
        try:
            with ThreadPoolExecutor(1) as pool:
                back = pool.submit(lambda: (time.sleep(DOWN_S), postgres_cluster.up()))
                with engine.begin() as conn:  # issued while the server is down
                    conn.execute(text("CREATE TABLE written_during_a_restart (n integer)"))
                    conn.execute(text("INSERT INTO written_during_a_restart VALUES (1)"))
                back.result()
        finally:
            _ensure_up(postgres_cluster)
        with engine.connect() as conn:
            assert conn.scalar(text("SELECT n FROM written_during_a_restart")) == 1
    finally:
        engine.dispose()


def test_a_batch_of_events_whose_connection_dies_mid_transaction_is_written_once(
    postgres_cluster: PostgresCluster, tmp_path: Path
) -> None:
    url = postgres_cluster.create_database()
    events = RunEventLog(tmp_path / "unused.sqlite3", url=url)
    appender = appender_for(events)
    try:
        appender.append([NewEvent.of("r1", "status", {"status": "running"})])
        batch = [NewEvent.of("r1", "phase", {"phase": "plan"}), NewEvent.of("r1", "todo", {"n": 1})]
        with psycopg.connect(url) as blocker, psycopg.connect(url, autocommit=True) as admin:
            blocker.execute("LOCK TABLE run_events IN ACCESS EXCLUSIVE MODE")  # the batch waits for it
            with ThreadPoolExecutor(1) as pool:
                appended = pool.submit(appender.append, batch)
                waiting = WAITING_FOR_A_LOCK
                _wait_for(lambda: bool(admin.execute(waiting).fetchall()), "the batch did not wait")
                (pid,) = admin.execute(waiting).fetchone() or (0,)
                admin.execute(
                    "SELECT pg_terminate_backend(%s)", (pid,)
                )  # its connection dies mid-transaction
                blocker.rollback()
                stored = appended.result(timeout=WAIT_S)
        assert [(e.seq, e.type) for e in stored] == [(2, "phase"), (3, "todo")]
        assert [(e.seq, e.type) for e in events.after("r1")] == [(1, "status"), (2, "phase"), (3, "todo")]
    finally:
        appender.close()
        events.close()


def test_the_events_of_a_committed_batch_are_found_and_others_are_not(
    database_url: str, tmp_path: Path
) -> None:
    events = RunEventLog(tmp_path / "catalog.sqlite3", url=database_url)
    try:
        batch = [NewEvent.of("r1", "status", {"status": "running"}), NewEvent.of("r2", "phase", {"p": 1})]
        stored = events.append_batch(batch)
        assert events.committed(batch) == stored
        assert events.committed([NewEvent.of("r1", "status", {"status": "running"})]) is None
        assert events.committed([*batch, NewEvent.of("r2", "todo", {})]) is None
    finally:
        events.close()


def test_a_lost_database_connection_is_named_and_sqlites_errors_are_not() -> None:
    import sqlite3

    from sqlalchemy.exc import OperationalError

    from rabbithole.runs.database_lost import database_lost_error

    cut = psycopg.OperationalError(
        "consuming input failed: server closed the connection unexpectedly\n\tmore"
    )
    wrapped = OperationalError("INSERT ...", {}, cut)
    for exc in (cut, wrapped, RuntimeError("the graph failed")):
        if exc.__class__ is RuntimeError:
            exc.__cause__ = wrapped  # anywhere in the cause chain
        found = database_lost_error(exc)
        assert found is not None and "server closed the connection unexpectedly" in str(found), exc
        assert "more" not in str(found)  # its first line
    assert database_lost_error(sqlite3.OperationalError("database is locked")) is None
    assert database_lost_error(OperationalError("x", {}, sqlite3.OperationalError("locked"))) is None
    assert database_lost_error(ValueError("no")) is None


def _ensure_up(cluster: PostgresCluster) -> None:
    """The session's cluster running again, whatever a test left (others use it after)."""
    if not (cluster.data_dir / "postmaster.pid").exists():
        cluster.up()


def test_a_run_survives_a_restart_of_postgresql_and_no_event_is_lost(
    team: TeamBackend, postgres_cluster: PostgresCluster, fake_ollama: FakeOllama
) -> None:
    ends = _run_across(
        team, postgres_cluster, fake_ollama, lambda _url: postgres_cluster.restart(down_s=DOWN_S)
    )
    assert ends in (["done"], ["error", "done"]), ends  # continued, or stopped and resumed


def test_a_run_whose_checkpoint_write_the_restart_cuts_off_finishes_and_no_event_is_lost(
    team: TeamBackend, postgres_cluster: PostgresCluster, fake_ollama: FakeOllama
) -> None:
    def restart_during_a_checkpoint_write(database_url: str) -> None:
        blocker = psycopg.connect(database_url)
        try:
            blocker.execute("LOCK TABLE checkpoints IN ACCESS EXCLUSIVE MODE")  # the next write waits
            with psycopg.connect(database_url, autocommit=True) as admin:
                _wait_for(lambda: bool(admin.execute(WAITING_FOR_A_LOCK).fetchall()), "no write waited")
            postgres_cluster.restart(down_s=DOWN_S)  # ends the waiting write's session, mid-statement
        finally:
            blocker.close()

    ends = _run_across(team, postgres_cluster, fake_ollama, restart_during_a_checkpoint_write)
    # mostly the run stops, saying how to resume it (checked in _run_across), and is resumed; a write of a
    # subgraph's checkpoint fails its node, which the node's retry may run again once the server is back
    assert ends in (["error", "done"], ["done"]), ends


def _run_across(
    team: TeamBackend,
    cluster: PostgresCluster,
    fake_ollama: FakeOllama,
    restart: Callable[[str], None],
) -> list[str]:
    """A quick run on a real server, ``restart(database_url)`` once it is past its plan; checks what every
    restart must keep (below) and returns how the run ended each time it did: ["done"], or ["error",
    "done"] for a run that stopped (saying how to resume it) and finished once resumed."""
    fake_ollama.set_latency(250)  # the run is mid-way when the database goes down
    settings = team.settings(fake_ollama)
    with serving(create_app(settings)) as url, ThreadPoolExecutor(1) as pool:
        wait_ready(url)
        created = httpx.post(f"{url}/api/runs", json=QUICK, timeout=60)
        assert created.status_code == 201, created.text
        run_id = created.json()["run_id"]
        client = Follower(url, run_id)
        ending = pool.submit(client.follow)

        def past_its_plan() -> bool:
            seen = client.seen()
            assert not any(e.type in ("done", "error") for e in seen), seen[-3:]
            return sum(1 for e in seen if e.type == "phase") >= 2

        _wait_for(past_its_plan, "the run did not get past its plan")
        try:
            restart(team.database_url)
        finally:
            _ensure_up(cluster)
        end = ending.result(timeout=WAIT_S)
        ends = [end.type]
        if end.type == "error":  # stopped, saying how to go on; it finishes once resumed
            assert f"POST /api/runs/{run_id}/resume" in str(end.data.get("message")), end.data
            resumed = httpx.post(f"{url}/api/runs/{run_id}/resume", json={}, timeout=60)
            assert resumed.status_code == 202, resumed.text
            ends.append(client.follow().type)

        detail = httpx.get(f"{url}/api/runs/{run_id}", timeout=60).json()
        assert detail["run"]["status"] == "done", detail["run"]
        assert detail["result"]["sources"]
        stored = _stored_numbers(team.database_url, run_id)
        assert stored == list(range(1, len(stored) + 1)), stored  # no gap, no number twice
        received = client.seen()
        assert [e.id for e in received] == stored  # each once, in order, across the restart
        replayed = read_stream(f"{url}/api/runs/{run_id}/events")
        assert [(e.id, e.type, e.data) for e in received] == [(e.id, e.type, e.data) for e in replayed]

        health = httpx.get(f"{url}/health", timeout=30)
        assert health.status_code == 200 and health.json()["database"]["ok"], health.text
        runs = httpx.get(f"{url}/api/runs", timeout=30)
        assert runs.status_code == 200 and run_id in [r["run_id"] for r in runs.json()["items"]], runs.text
        return ends
