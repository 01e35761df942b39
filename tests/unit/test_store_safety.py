"""The pieces that keep the vector store whole: the client gate, one writer per collection, the record of
damaged indexes, the markers of processes that have the store open, the check in a child process, and the
order of a collection's jobs."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from rabbithole.api.job_queue import ExclusiveWork, UploadWork, next_turn
from rabbithole.store.client_gate import ClientGate
from rabbithole.store.damage import DamageRecord
from rabbithole.store.probe import probe_collections
from rabbithole.store.sessions import StoreSessions
from rabbithole.store.write_locks import CollectionWriteLocks

# -- the client gate ---------------------------------------------------------------------------------


def test_a_swap_waits_for_the_calls_in_flight_and_moves_the_generation_on() -> None:
    gate = ClientGate()
    order: list[str] = []
    in_call = threading.Event()
    release = threading.Event()

    def call() -> None:
        with gate.shared() as generation:
            assert generation == 0
            in_call.set()
            release.wait(5)
            order.append("call done")

    def swap() -> None:
        with gate.exclusive():
            order.append("swapped")

    caller = threading.Thread(target=call)
    caller.start()
    assert in_call.wait(5)
    swapper = threading.Thread(target=swap)
    swapper.start()
    swapper.join(0.2)
    assert swapper.is_alive() and order == []  # the swap waits for the call
    release.set()
    caller.join(5)
    swapper.join(5)
    assert order == ["call done", "swapped"]
    with gate.shared() as generation:
        assert generation == 1


def test_a_waiting_swap_goes_before_new_calls_and_nested_calls_do_not_deadlock() -> None:
    gate = ClientGate()
    events: list[str] = []
    first_in = threading.Event()
    release_first = threading.Event()

    def first_call() -> None:
        with gate.shared():
            first_in.set()
            release_first.wait(5)
            with gate.shared():  # nested in the same thread: does not wait for the waiting swap
                events.append("nested")

    def swap() -> None:
        with gate.exclusive():
            events.append("swap")

    def later_call() -> None:
        with gate.shared():
            events.append("later")

    first = threading.Thread(target=first_call)
    first.start()
    assert first_in.wait(5)
    swapper = threading.Thread(target=swap)
    swapper.start()
    time.sleep(0.1)  # the swap is waiting now
    later = threading.Thread(target=later_call)
    later.start()
    time.sleep(0.1)
    assert events == []  # the later call waits behind the swap
    release_first.set()
    for thread in (first, swapper, later):
        thread.join(5)
    assert events == ["nested", "swap", "later"]


def test_a_swap_from_inside_a_call_is_refused() -> None:
    gate = ClientGate()
    with gate.shared(), pytest.raises(RuntimeError), gate.exclusive():
        pass


# -- one writer per collection -----------------------------------------------------------------------


def test_writers_of_one_collection_take_turns_and_other_collections_do_not_wait(tmp_path: Path) -> None:
    locks = CollectionWriteLocks(tmp_path / "locks")
    holding = threading.Event()
    release = threading.Event()
    entered: list[str] = []

    def first() -> None:
        with locks.hold("a"):
            holding.set()
            release.wait(5)
            entered.append("first done")

    def second() -> None:
        with locks.hold("a"):
            entered.append("second")

    one = threading.Thread(target=first)
    one.start()
    assert holding.wait(5)
    two = threading.Thread(target=second)
    two.start()
    with locks.hold("b"):  # another collection: no wait
        entered.append("b")
    two.join(0.2)
    assert two.is_alive()
    release.set()
    one.join(5)
    two.join(5)
    assert entered == ["b", "first done", "second"]


def test_a_writer_in_another_process_holds_the_collection(tmp_path: Path) -> None:
    code = textwrap.dedent(
        f"""
        import time
        from pathlib import Path
        from rabbithole.store.write_locks import CollectionWriteLocks
        with CollectionWriteLocks(Path({str(tmp_path / "locks")!r})).hold("a"):
            print("holding", flush=True)
            time.sleep(1.0)
            released = time.time()
        print(f"released {{released}}", flush=True)
        """
    )
    child = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert child.stdout is not None and child.stdout.readline().strip() == "holding"
    with CollectionWriteLocks(tmp_path / "locks").hold("a"):
        acquired = time.time()
    released = float(child.stdout.readline().split()[1])
    assert child.wait(5) == 0
    assert acquired >= released  # ours waited for the child's


# -- damaged indexes and open-store markers ------------------------------------------------------------


def test_the_damage_record_survives_processes_and_forgets_a_rebuilt_collection(tmp_path: Path) -> None:
    record = DamageRecord(tmp_path / "damage.json")
    assert record.load() == {}
    record.mark({"a": "crashed", "b": "hung"})
    assert DamageRecord(tmp_path / "damage.json").reason("a") == "crashed"  # another process reads it
    record.clear("a")
    assert record.load() == {"b": "hung"}
    record.clear("b")
    assert not (tmp_path / "damage.json").exists()
    (tmp_path / "damage.json").write_text("{not json")
    assert record.load() == {}


def test_markers_of_processes_that_ended_without_closing_the_store(tmp_path: Path) -> None:
    mine = StoreSessions(tmp_path)
    mine.begin()
    assert StoreSessions(tmp_path).unclean() == []  # this process is alive
    code = (
        f"from pathlib import Path\nfrom rabbithole.store.sessions import StoreSessions\n"
        f"StoreSessions(Path({str(tmp_path)!r})).begin()\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)  # it ends without end()
    stale = StoreSessions(tmp_path).unclean()
    assert len(stale) == 1 and not stale[0].name.startswith(f"{os.getpid()}-")
    StoreSessions.settle(stale)
    assert StoreSessions(tmp_path).unclean() == []
    mine.end()
    assert list(tmp_path.iterdir()) == []


# -- the check in a child process ----------------------------------------------------------------------

#: a stand-in for the checking child: crashes, hangs or fails on the names that say so
FAKE_CHILD = textwrap.dedent(
    """
    import json, os, signal, sys, time
    names = json.loads(sys.stdin.read())
    for index, name in enumerate(names):
        print(f"start {index}", flush=True)
        if name == "crash":
            os.kill(os.getpid(), signal.SIGSEGV)
        elif name == "hang":
            time.sleep(60)
        elif name == "fail":
            print(f"fail {index} InternalError: Error loading hnsw index", flush=True)
            continue
        print(f"ok {index}", flush=True)
    """
)


def test_the_check_names_each_collection_that_crashes_hangs_or_fails_its_reader(tmp_path: Path) -> None:
    names = {n: n for n in ("good", "crash", "after_crash", "hang", "fail", "last")}
    damaged = probe_collections(tmp_path, names, 2.0, child=(sys.executable, "-c", FAKE_CHILD))
    assert damaged == {
        "crash": "reading it crashed the process (signal 11)",
        "hang": "reading it did not finish within 2 s",
        "fail": "InternalError: Error loading hnsw index",
    }


# -- the order of a collection's jobs ------------------------------------------------------------------


def test_waiting_uploads_of_one_folder_share_a_turn_and_a_rebuild_runs_alone() -> None:
    folder, other = Path("/uploads/c"), Path("/kb/c")
    a, b = UploadWork("a", folder, []), UploadWork("b", folder, [])
    rebuild = ExclusiveWork("r", lambda: None)
    c, d = UploadWork("c", folder, []), UploadWork("d", other, [])
    waiting: list[UploadWork | ExclusiveWork] = [a, b, rebuild, c, d]
    turns = []
    while waiting:
        turn, waiting = next_turn(waiting)
        turns.append([w.job_id for w in turn])
    assert turns == [["a", "b"], ["r"], ["c"], ["d"]]
