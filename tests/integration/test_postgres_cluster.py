"""The tests' throwaway PostgreSQL cluster: one whose process was killed (``kill -9``: no teardown ran, and
``pg_ctl`` had detached the server) is stopped and removed by the next start, while the clusters of live
processes are left running."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import psycopg

from rabbithole.devtools.postgres_cluster import PostgresCluster, reap_orphans, server_bin_dir

_START_AND_HANG = (
    "import sys, time\n"
    "from rabbithole.devtools.postgres_cluster import PostgresCluster\n"
    "cluster = PostgresCluster.start()\n"
    "print(cluster.root, cluster.url(), flush=True)\n"
    "time.sleep(600)\n"
)


def test_a_killed_process_leaves_no_cluster_behind(postgres_cluster: PostgresCluster) -> None:
    child = subprocess.Popen(
        [sys.executable, "-c", _START_AND_HANG], stdout=subprocess.PIPE, text=True, env=os.environ.copy()
    )
    assert child.stdout is not None
    root_text, url = child.stdout.readline().split()
    root = Path(root_text)
    os.kill(child.pid, signal.SIGKILL)
    child.wait(timeout=30)
    with psycopg.connect(url) as conn:  # the server outlived its process
        assert conn.execute("SELECT 1").fetchone() == (1,)

    reaped = reap_orphans(server_bin_dir(), postgres_cluster.as_user)

    assert root in reaped and not root.exists()
    assert postgres_cluster.root not in reaped and postgres_cluster.root.exists()
    with psycopg.connect(postgres_cluster.url()) as conn:  # a live session's cluster keeps running
        assert conn.execute("SELECT 1").fetchone() == (1,)
