"""The run lease in the runs table (real SQLite): of two processes' claims on one run exactly one wins;
a released or expired lease can be taken; ``expired_only`` leaves unclaimed runs alone."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from rabbithole.runs.leases import RunLeases
from rabbithole.runs.store import RunStore


def test_one_claim_wins_release_and_expiry_hand_over(tmp_path: Path) -> None:
    registry = RunStore(tmp_path / "catalog.db")
    run = registry.create("q", ["c"], "quick")
    a = RunLeases(registry.engine, "a", lease_s=60)
    b = RunLeases(registry.engine, "b", lease_s=60)

    assert not b.claim(run.id, expired_only=True)  # nobody held it: only a start-up claim takes it
    assert a.claim(run.id) and a.claim(run.id)  # its own lease is renewed
    assert not b.claim(run.id) and b.holder(run.id) == "a"
    assert a.renew([run.id, "gone"]) == {"gone"}

    a.release(run.id)
    assert a.holder(run.id) is None and b.claim(run.id)
    assert b.renew([run.id]) == set() and a.renew([run.id]) == {run.id}

    short = RunLeases(registry.engine, "short", lease_s=0.2)
    other = registry.create("q2", ["c"], "quick")
    assert short.claim(other.id)
    assert not a.claim(other.id, expired_only=True)
    time.sleep(0.3)  # the holder stopped renewing (a process that died)
    assert short.holder(other.id) is None
    assert a.claim(other.id, expired_only=True) and not short.claim(other.id)
    registry.close()


def test_concurrent_claims_from_many_owners(tmp_path: Path) -> None:
    registry = RunStore(tmp_path / "catalog.db")
    runs = [registry.create(f"q{i}", ["c"], "quick").id for i in range(20)]
    owners = [RunLeases(RunStore(tmp_path / "catalog.db").engine, f"p{i}", lease_s=60) for i in range(4)]

    def claim_all(leases: RunLeases) -> list[str]:
        return [run_id for run_id in runs if leases.claim(run_id)]

    with ThreadPoolExecutor(4) as pool:
        claimed = list(pool.map(claim_all, owners))
    every = [run_id for won in claimed for run_id in won]
    assert sorted(every) == sorted(runs), "a run was claimed twice or not at all"


def test_the_heartbeat_keeps_a_lease_and_a_claim_can_require_a_status(tmp_path: Path) -> None:
    registry = RunStore(tmp_path / "catalog.db")
    run = registry.create("q", ["c"], "quick")
    holder = RunLeases(registry.engine, "holder", lease_s=0.3)
    other = RunLeases(registry.engine, "other", lease_s=60)
    assert not holder.claim(run.id, statuses=("running",))  # it is queued
    holder.start_heartbeat()
    try:
        assert holder.claim(run.id, statuses=("queued",))
        time.sleep(1.0)  # three times the lease: only the heartbeat keeps it
        assert not other.claim(run.id) and other.holder(run.id) == "holder"
        holder.release(run.id)
        time.sleep(0.3)  # a released run is not renewed again
        assert holder.holder(run.id) is None and other.claim(run.id)
    finally:
        holder.stop_heartbeat()
    registry.close()


def test_a_run_is_created_with_its_creators_lease(tmp_path: Path) -> None:
    """A run its creator executes is never adopted by another process between its creation and the
    creator's claim (a server starting then claims the runs nobody holds)."""
    registry = RunStore(tmp_path / "catalog.db")
    creator = RunLeases(registry.engine, "creator", lease_s=60)
    starting = RunLeases(registry.engine, "a starting server", lease_s=60)
    run = registry.create("q", ["c"], "quick", claim=creator.new_claim())
    assert not starting.claim(run.id, statuses=("running", "queued"))
    assert starting.holder(run.id) == "creator"
    assert creator.claim(run.id)  # the creator's claim renews the lease it was created with
    registry.close()
