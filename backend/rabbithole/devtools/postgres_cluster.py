"""A throwaway PostgreSQL cluster for tests and benchmarks: ``initdb`` into a temporary folder, ``pg_ctl
start`` on a free loopback port (its socket in the same folder), a password for the connecting role,
databases created on demand; stopped and removed on exit. Debian's ``postgresql`` package provides the
binaries (``make setup`` installs it, scripts/ensure_postgres.sh).

    with PostgresCluster.start() as cluster:
        url = cluster.create_database()     # postgresql://rabbithole:<password>@127.0.0.1:<port>/rh_1

``initdb`` refuses to run as root: as root the cluster's folder belongs to the ``postgres`` system user and
the server binaries run as that user (``runuser``).

``restart(down_s=2)`` (or ``down()`` and ``up()``) stops the server as an administrator would and starts it
again on the same port with the same data: the tests of a restart in the middle of a run.

A cluster outlives a process that is killed (``pg_ctl`` detaches the server): each folder names the process
that started it (``owner``: pid and start time), and starting a cluster first stops and removes those whose
process is gone.
"""

from __future__ import annotations

import contextlib
import glob
import itertools
import os
import secrets
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from types import TracebackType

#: Where clusters are made (``tempfile``'s folder) and what their folders are called.
PREFIX = "rabbithole-pg-"
#: What installs the binaries on Debian (named by the error when they are missing).
INSTALL_HINT = "make setup (scripts/ensure_postgres.sh), or as root: apt-get install -y postgresql"
ROLE = "rabbithole"


class PostgresUnavailable(RuntimeError):
    """The server binaries are missing or the cluster did not start."""


def server_bin_dir() -> Path:
    """The folder of ``initdb`` and ``pg_ctl`` (Debian keeps them out of PATH, under
    /usr/lib/postgresql/<version>/bin; the newest version wins)."""
    found = shutil.which("initdb")
    if found:
        return Path(found).parent
    candidates = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(Path(p).parts[-3].split(".")[0])
    )
    if not candidates:
        raise PostgresUnavailable(f"PostgreSQL's initdb is not installed; install it with: {INSTALL_HINT}")
    return Path(candidates[-1]).parent


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _this_process() -> str:
    import psutil

    return f"{os.getpid()} {psutil.Process().create_time():.2f}"


def _owner_alive(owner: str) -> bool:
    import psutil

    try:
        pid, started = owner.split()
        return bool(abs(psutil.Process(int(pid)).create_time() - float(started)) < 1.0)
    except (ValueError, psutil.NoSuchProcess):
        return False
    except psutil.Error:  # not ours to inspect: it may be alive
        return True


def reap_orphans(bin_dir: Path, as_user: str | None) -> list[Path]:
    """Stop and remove the clusters whose starting process is gone (killed before it could stop them);
    the folders removed. Clusters of live processes, and folders without an owner file, are left alone."""
    reaped = []
    for root in Path(tempfile.gettempdir()).glob(f"{PREFIX}*"):
        try:
            owner = (root / "owner").read_text(encoding="utf-8")
        except OSError:
            continue
        if _owner_alive(owner):
            continue
        PostgresCluster(root, 0, "", bin_dir, as_user).stop()
        reaped.append(root)
    return reaped


class PostgresCluster:
    """One running cluster; :meth:`create_database` gives each caller an empty database of its own."""

    def __init__(self, root: Path, port: int, password: str, bin_dir: Path, as_user: str | None) -> None:
        self.root = root
        self.port = port
        self.password = password
        self.bin_dir = bin_dir
        self.as_user = as_user
        self._names = itertools.count(1)

    @property
    def data_dir(self) -> Path:
        return self.root / "data"

    @classmethod
    def start(cls) -> PostgresCluster:
        bin_dir = server_bin_dir()
        as_user = "postgres" if os.geteuid() == 0 else None
        reap_orphans(bin_dir, as_user)
        root = Path(tempfile.mkdtemp(prefix=PREFIX))
        (root / "owner").write_text(_this_process(), encoding="utf-8")
        cluster = cls(root, free_port(), secrets.token_hex(12), bin_dir, as_user)
        try:
            cluster._init_and_start()
        except BaseException:
            cluster.stop()
            raise
        return cluster

    def _run(self, *args: str) -> None:
        command = [*(["runuser", "-u", self.as_user, "--"] if self.as_user else []), *args]
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise PostgresUnavailable(
                f"{' '.join(args)} failed ({done.returncode}): {done.stderr.strip() or done.stdout.strip()}"
            )

    def _init_and_start(self) -> None:
        password_file = self.root / "password"
        password_file.write_text(self.password + "\n", encoding="utf-8")
        if self.as_user:
            shutil.chown(self.root, self.as_user)
            shutil.chown(password_file, self.as_user)
        self._run(
            str(self.bin_dir / "initdb"),
            "-D",
            str(self.data_dir),
            "-U",
            ROLE,
            f"--pwfile={password_file}",
            "--auth-host=scram-sha-256",
            "--auth-local=trust",
            "--encoding=UTF8",
            "--locale=C",
        )
        password_file.unlink()
        self.up()

    def up(self) -> None:
        """Start the server (again, after :meth:`down`) on the cluster's port; returns once it accepts
        connections."""
        options = (
            f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=off "
            "-c synchronous_commit=off -c full_page_writes=off -c max_connections=200"
        )
        self._run(
            str(self.bin_dir / "pg_ctl"), "-D", str(self.data_dir), "-l", str(self.root / "log"),
            "-o", options, "-w", "-t", "60", "start",
        )  # fmt: skip

    def down(self) -> None:
        """Stop the server as an administrator would (``pg_ctl stop -m fast``: every session ended, its open
        transactions rolled back), its data kept for :meth:`up`."""
        self._run(str(self.bin_dir / "pg_ctl"), "-D", str(self.data_dir), "-m", "fast", "-w", "stop")

    def restart(self, down_s: float = 0.0) -> None:
        """Restart the server: :meth:`down`, ``down_s`` seconds without it, :meth:`up` on the same port with
        the same data. Clients' connections die; what was committed stays."""
        self.down()
        time.sleep(down_s)
        self.up()

    def url(self, database: str = "postgres", *, password: str | None = None) -> str:
        """The connection URL of ``database`` (with the cluster's password, or ``password``)."""
        secret = self.password if password is None else password
        return f"postgresql://{ROLE}:{secret}@127.0.0.1:{self.port}/{database}"

    def create_database(self, name: str | None = None) -> str:
        """A new, empty database; its URL."""
        import psycopg

        name = name or f"rh_{next(self._names)}"
        with psycopg.connect(self.url("postgres"), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def stop(self) -> None:
        """Stop the server (at once: nothing in it is kept) and remove its folder."""
        if (self.data_dir / "postmaster.pid").exists():
            with contextlib.suppress(PostgresUnavailable):
                self._run(str(self.bin_dir / "pg_ctl"), "-D", str(self.data_dir), "-m", "immediate", "stop")
        shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> PostgresCluster:
        return self

    def __exit__(
        self, _type: type[BaseException] | None, _exc: BaseException | None, _tb: TracebackType | None
    ) -> None:
        self.stop()
