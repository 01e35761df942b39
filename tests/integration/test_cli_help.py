"""The CLI's help: no type beside flags that take no value, and `collections --help` promises what
`collections` prints."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from fixtures.cli_runs import rabbithole
from fixtures.pdfs import build_legal_pdf, write_text_as_pdf
from rabbithole.cli.main import app

COMMANDS = sorted(typer.main.get_command(app).commands)  # type: ignore[attr-defined]


@pytest.mark.parametrize("command", ["", *COMMANDS])
def test_flags_show_no_type(command: str) -> None:
    args = [command, "--help"] if command else ["--help"]
    shown = CliRunner().invoke(app, args, env={"COLUMNS": "80"})
    assert shown.exit_code == 0, shown.output
    assert "<bool>" not in shown.output
    assert re.search(r"--help\s+Show this message", shown.output)


def test_collections_prints_what_its_help_promises(tmp_path: Path) -> None:
    kb = tmp_path / "kb"
    (kb / "contracts").mkdir(parents=True)
    build_legal_pdf(kb / "contracts" / "PrüfG.pdf")
    write_text_as_pdf(kb / "contracts" / "notes.pdf")
    env = {**os.environ, "RABBITHOLE_STORAGE__DATA_DIR": str(tmp_path / "data"), "COLUMNS": "80"}
    assert rabbithole(["ingest", str(kb), "-q"], env, timeout=300).returncode == 3

    shown = rabbithole(["collections", "--help"], env, timeout=60).stdout
    help_text = " ".join(shown.split())
    assert "how many documents and chunks, the embedding model, the OCR languages" in help_text
    assert "the files the last ingestion could not read, with the reason" in help_text

    listed = rabbithole(["collections"], env, timeout=60)
    assert listed.returncode == 0, listed.stderr
    first, ocr, problem = listed.stdout.splitlines()
    assert re.fullmatch(r"contracts: 1 document, \d+ chunks \(use-multilingual-v3@\S+\)", first)
    assert ocr == "  OCR in deu+eng (the server's default)"
    assert problem == "  error: notes.pdf: not a PDF despite the .pdf name: the content is plain text"
