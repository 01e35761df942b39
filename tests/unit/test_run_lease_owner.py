"""The owner string of a run lease names its process (host, pid, start time): a process on the same host can
tell an owner that is gone (pid not alive, or reused by a process started at another time); owners on other
hosts, and strings of an older format, are never judged dead."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time

import psutil

from rabbithole.runs.leases import (
    OwnerProcess,
    describe_owner,
    owner_is_dead,
    parse_owner,
    process_owner,
)


def _owner(host: str, pid: int, started: float) -> str:
    return f"{host}:{pid}:{started:.2f}:0123abcd"


def test_this_process_owner_parses_and_is_alive() -> None:
    owner = process_owner()
    parsed = parse_owner(owner)
    assert parsed is not None
    assert parsed.host == socket.gethostname() and parsed.pid == os.getpid()
    assert abs(parsed.started - psutil.Process().create_time()) < 0.01
    assert not owner_is_dead(owner)
    assert process_owner() != owner  # a random part: two leases sets of one process differ
    assert describe_owner(owner) == f"process {os.getpid()} on {socket.gethostname()}"


def test_unparseable_owners_are_respected() -> None:
    old_format = f"{socket.gethostname()}:{os.getpid()}:0123abcd"  # before the start time was written
    for owner in (old_format, "a", "holder", "", f"{socket.gethostname()}:x:1.5:0123abcd"):
        assert parse_owner(owner) is None
        assert not owner_is_dead(owner)
        assert describe_owner(owner) == owner


def test_a_host_name_with_colons_parses() -> None:
    assert parse_owner("fe80::1:42:1712345678.25:0123abcd") == OwnerProcess("fe80::1", 42, 1712345678.25)


def test_an_exited_process_is_dead() -> None:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    started = psutil.Process(child.pid).create_time()
    child.wait()  # exited and reaped: the pid is gone
    assert not psutil.pid_exists(child.pid)
    assert owner_is_dead(_owner(socket.gethostname(), child.pid, started))


def test_a_killed_process_not_yet_reaped_is_dead() -> None:
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        owner = _owner(socket.gethostname(), child.pid, psutil.Process(child.pid).create_time())
        assert not owner_is_dead(owner)
        child.kill()
        while psutil.Process(child.pid).status() != psutil.STATUS_ZOMBIE:  # SIGKILL is delivered async
            time.sleep(0.01)
        assert owner_is_dead(owner)  # a zombie: killed, its parent (this test) has not reaped it yet
    finally:
        child.kill()
        child.wait()


def test_a_reused_pid_is_dead_and_other_hosts_are_respected() -> None:
    me = psutil.Process()
    here = socket.gethostname()
    assert owner_is_dead(_owner(here, me.pid, me.create_time() - 3600))  # our pid, started an hour before
    assert not owner_is_dead(_owner(here, me.pid, me.create_time()))
    assert not owner_is_dead(_owner(f"{here}-elsewhere", 2**22 + 1, 1.0))  # cannot be checked from here
