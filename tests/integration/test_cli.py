"""The `rabbithole` command as a user runs it: a subprocess, exit codes, JSON out, messages on stderr."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from fixtures.cli_runs import rabbithole
from fixtures.pdfs import build_encrypted_pdf, build_law_folder


def _run(args: list[str], data_dir: Path, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "RABBITHOLE_STORAGE__DATA_DIR": str(data_dir)}
    return rabbithole(args, env, stdin, timeout=300)


def test_ingest_then_search_json(tmp_path: Path) -> None:
    folder = tmp_path / "laws"
    build_law_folder(folder)
    build_encrypted_pdf(folder / "secret.pdf")
    data = tmp_path / "data"

    first = _run(["ingest", str(folder), "--quiet"], data)
    assert first.returncode == 3, first.stderr  # some files failed, the rest is ingested
    assert "2 added" in first.stderr and "1 failed" in first.stderr
    assert "secret.pdf" in first.stderr and "password" in first.stderr

    search = _run(
        ["search", "Grenzwerte beruflich exponierte Personen", "-c", "laws", "--k", "2", "--json"], data
    )
    assert search.returncode == 0, search.stderr
    results = json.loads(search.stdout)
    assert len(results) == 2
    assert {"document", "page", "section", "text", "score"} <= set(results[0])
    assert results[0]["document"] == "PrüfG.pdf" and results[0]["section"] == "§ 3"

    only = _run(["search", "stations", "-c", "laws", "--document", "report.pdf", "--json"], data)
    assert {r["document"] for r in json.loads(only.stdout)} == {"report.pdf"}

    again = _run(["ingest", str(folder), "--quiet"], data)
    assert "0 added, 0 updated, 2 unchanged" in again.stderr


def test_errors_give_a_message_and_an_exit_code(tmp_path: Path) -> None:
    missing = _run(["search", "x", "-c", "nowhere"], tmp_path / "data")
    assert missing.returncode == 66
    assert "collection 'nowhere' does not exist" in missing.stderr
    assert "Traceback" not in missing.stderr

    bad_path = _run(["ingest", str(tmp_path / "nope")], tmp_path / "data")
    assert bad_path.returncode == 64
    assert "does not exist" in bad_path.stderr

    env_error = subprocess.run(
        [sys.executable, "-m", "rabbithole", "collections"],
        env={**os.environ, "RABBITHOLE_RETRIEVAL__K": "many"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert env_error.returncode == 78
    assert "RABBITHOLE_RETRIEVAL__K" in env_error.stderr
