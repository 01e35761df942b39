"""`make run`'s ingest step, run as make runs it (the Makefile's own recipe, setup left out): a file under kb/
that cannot be read does not stop make, the rest is ingested and the served app lists the problem; a real
failure (invalid settings) still stops make with its own exit code."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import httpx

from fixtures.api_server import start_server_process, stop_server_process
from fixtures.pdfs import build_legal_pdf, write_text_as_pdf

ROOT = Path(__file__).resolve().parents[2]


def make_ingest(kb: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """`make ingest KB=kb` in the repository, `setup` taken as done, with this interpreter's scripts."""
    scripts = Path(sys.executable).parent
    return subprocess.run(
        ["make", "-C", str(ROOT), "-s", "-o", "setup", "ingest", f"KB={kb}", f"BIN={scripts}"],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def kb_with_a_bad_file(tmp_path: Path) -> Path:
    kb = tmp_path / "kb"
    (kb / "contracts").mkdir(parents=True)
    build_legal_pdf(kb / "contracts" / "PrüfG.pdf")
    write_text_as_pdf(kb / "contracts" / "notes.pdf")  # a text file named .pdf
    return kb


def test_a_bad_file_does_not_stop_make_and_the_app_lists_it(tmp_path: Path) -> None:
    kb = kb_with_a_bad_file(tmp_path)
    env = {**os.environ, "RABBITHOLE_STORAGE__DATA_DIR": str(tmp_path / "data")}

    ingested = make_ingest(kb, env)
    assert ingested.returncode == 0, ingested.stderr
    assert "notes.pdf" in ingested.stderr and "1 file could not be ingested" in ingested.stderr

    listed = subprocess.run(
        [sys.executable, "-m", "rabbithole", "collections", "--json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    (contracts,) = json.loads(listed.stdout)
    assert (contracts["name"], contracts["documents"]) == ("contracts", 1)
    assert [(p["file"], p["severity"]) for p in contracts["problems"]] == [("notes.pdf", "error")]

    server, url = start_server_process(env, tmp_path / "server.log")
    try:
        documents = httpx.get(f"{url}/api/collections/contracts/documents", timeout=30).json()
    finally:
        stop_server_process(server)
    statuses = {d["file_name"]: (d["status"], d["reason"]) for d in documents}
    assert statuses["PrüfG.pdf"][0] == "ingested"
    assert statuses["notes.pdf"][0] == "failed" and "not a PDF" in statuses["notes.pdf"][1]


def test_invalid_settings_still_stop_make_with_their_code(tmp_path: Path) -> None:
    kb = kb_with_a_bad_file(tmp_path)
    env = {
        **os.environ,
        "RABBITHOLE_STORAGE__DATA_DIR": str(tmp_path / "data"),
        "RABBITHOLE_EMBEDDINGS__THREADS": "many",
    }
    ingested = make_ingest(kb, env)
    assert ingested.returncode != 0
    assert "Error 78" in ingested.stderr  # ConfigurationError's code, as make reports it
    assert "embeddings.threads" in ingested.stderr
