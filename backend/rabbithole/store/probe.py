"""Checks an embedded vector store's collections in a child process (:mod:`rabbithole.store.probe_child`):
an index left damaged by a process that died while writing can crash (segfault in Chroma's native code) or
hang whatever reads it, and a server must start all the same. A collection that crashes, hangs or fails the
child is reported damaged with the reason; the child then goes on with the collections after it."""

from __future__ import annotations

import json
import logging
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from rabbithole.store.names import chroma_collection_name
from rabbithole.store.sessions import StoreSessions

if TYPE_CHECKING:
    from rabbithole.store.chroma_store import ChromaStore

log = logging.getLogger(__name__)


#: the checking child: ``CHILD + [chroma_dir]``, the names as JSON on its stdin
CHILD = (sys.executable, "-m", "rabbithole.store.probe_child")


def probe_collections(
    chroma_dir: Path, names: dict[str, str], timeout_s: float, *, child: Sequence[str] = CHILD
) -> dict[str, str]:
    """``names``: Rabbithole collection -> Chroma collection name. Returns the damaged ones with the reason
    (an empty dict when all read well). ``timeout_s``: the longest one collection may take. ``child``: the
    command of the checking process (:mod:`rabbithole.store.probe_child`)."""
    pending = list(names.items())
    damaged: dict[str, str] = {}
    while pending:
        checked, broken = _run_child(child, chroma_dir, [chroma for _, chroma in pending], timeout_s)
        for index, reason in broken.items():
            damaged[pending[index][0]] = reason
        if checked >= len(pending):
            break
        pending = pending[checked:]  # the child stopped at a collection (crash, hang): the rest again
    return damaged


def _run_child(
    command: Sequence[str], chroma_dir: Path, chroma_names: list[str], timeout_s: float
) -> tuple[int, dict[int, str]]:
    """One child over ``chroma_names``: how many it got through (the one it died or hung on included) and
    the reasons of those that are damaged, by index."""
    child = subprocess.Popen(
        [*command, str(chroma_dir)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=_child_env(),
    )
    assert child.stdin is not None and child.stdout is not None
    child.stdin.write(json.dumps(chroma_names))
    child.stdin.close()
    lines: queue.Queue[str | None] = queue.Queue()

    def read(stream: object) -> None:
        for line in stream:  # type: ignore[attr-defined]
            lines.put(line.strip())
        lines.put(None)

    threading.Thread(target=read, args=(child.stdout,), daemon=True).start()
    broken: dict[int, str] = {}
    current: int | None = None
    done = 0
    # the child's start (importing chromadb, opening the folder) gets the same allowance as a collection
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            line = lines.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            child.kill()
            child.wait()
            if current is None:
                raise TimeoutError(
                    f"the store check did not open {chroma_dir} within {timeout_s:g} s"
                ) from None
            broken[current] = f"reading it did not finish within {timeout_s:g} s"
            return current + 1, broken
        if line is None:
            break
        kind, _, rest = line.partition(" ")
        index_text, _, message = rest.partition(" ")
        if not index_text.isdigit():
            continue
        index = int(index_text)
        if kind == "start":
            current, deadline = index, time.monotonic() + timeout_s
        elif kind == "ok":
            done, current = index + 1, None
        elif kind == "fail":
            broken[index] = message or "it could not be read"
            done, current = index + 1, None
    code = child.wait()
    if current is not None:  # it died on this collection
        broken[current] = _crash_reason(code)
        return current + 1, broken
    if code != 0 and done < len(chroma_names):
        raise RuntimeError(f"the store check of {chroma_dir} failed before it read a collection ({code})")
    return done, broken


def _crash_reason(code: int) -> str:
    if code < 0:
        return f"reading it crashed the process (signal {-code})"
    return f"reading it ended the process (exit code {code})"


def _child_env() -> dict[str, str]:
    import os

    env = dict(os.environ)
    env.setdefault("ANONYMIZED_TELEMETRY", "False")
    return env


def check_after_unclean_stop(
    store: ChromaStore, chroma_dir: Path, collections: list[str], stale: list[Path], timeout_s: float
) -> dict[str, str]:
    """Check ``collections`` (those not known damaged already) after the processes of the ``stale``
    session markers ended without closing the store; record and return the damaged ones, then forget the
    markers (the store was checked)."""
    known = store.damaged()
    names = {c: chroma_collection_name(c) for c in collections if c not in known}
    log.warning(
        "a process that had the vector store open ended without closing it; checking %d collections",
        len(names),
    )
    try:
        damaged = probe_collections(chroma_dir, names, timeout_s)
    except (OSError, RuntimeError, TimeoutError) as exc:
        log.error("the vector store could not be checked: %s", exc)
        damaged = {c: f"the store check could not read it: {exc}" for c in names}
    for collection, reason in damaged.items():
        log.error("the vector index of collection %s is damaged: %s", collection, reason)
    store.mark_damaged(damaged)
    StoreSessions.settle(stale)
    return damaged
