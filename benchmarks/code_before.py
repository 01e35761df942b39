"""The code before a change, to measure beside today's in the same benchmark run: the ``backend/`` folder of
a commit, extracted once with ``git archive`` into ``bench-data/code-<commit>/`` (git-ignored, reused).

A checkout without that history (an archive, a shallow clone) has no code before: :func:`code_before`
then says why, and the benchmark prints "baseline unavailable: <why>" instead of failing.
"""

from __future__ import annotations

import io
import shutil
import subprocess
import tarfile
from dataclasses import dataclass
from pathlib import Path

from benchmarks.common import ROOT, bench_root, remove_tree

#: the code before issue 24 (reports that hold up with small local models)
ISSUE_24_BASE = "98d1430"


@dataclass(frozen=True, slots=True)
class CodeBefore:
    """``backend``: the folder to put on ``PYTHONPATH`` (None when unavailable, and ``why``)."""

    commit: str
    backend: Path | None
    why: str = ""


def code_before(commit: str = ISSUE_24_BASE) -> CodeBefore:
    """The ``backend/`` folder of ``commit`` (extracted on first use), or why there is none."""
    git = shutil.which("git")
    if git is None:
        return CodeBefore(commit, None, "git is not installed")
    try:
        resolved = subprocess.run(
            [git, "rev-parse", "--verify", "--quiet", f"{commit}^{{commit}}"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=False,
        )
    except OSError as exc:
        return CodeBefore(commit, None, f"git failed: {exc}")
    if resolved.returncode != 0:
        return CodeBefore(commit, None, f"commit {commit} is not in this repository's history")
    full = resolved.stdout.strip()
    folder = bench_root() / f"code-{full[:12]}"
    backend = folder / "backend"
    if (folder / ".complete").exists():
        return CodeBefore(commit, backend)
    remove_tree(folder)
    folder.mkdir(parents=True)
    try:
        archive = subprocess.run(
            [git, "archive", "--format=tar", full, "backend"], cwd=ROOT, capture_output=True, check=False
        )
        if archive.returncode != 0:
            raise RuntimeError(archive.stderr.decode(errors="replace").strip() or "git archive failed")
        with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
            if hasattr(tarfile, "data_filter"):  # Python 3.11.4+
                tar.extractall(folder, filter="data")
            else:  # pragma: no cover - our own repository's archive
                tar.extractall(folder)
    except (OSError, RuntimeError, tarfile.TarError) as exc:
        remove_tree(folder)
        return CodeBefore(commit, None, f"cannot extract {commit}: {exc}")
    if not (backend / "rabbithole" / "__init__.py").exists():
        remove_tree(folder)
        return CodeBefore(commit, None, f"{commit} has no backend/rabbithole")
    (folder / ".complete").write_text(full + "\n", encoding="utf-8")
    return CodeBefore(commit, backend)


def code_now() -> Path:
    """Today's ``backend/`` folder."""
    return ROOT / "backend"
