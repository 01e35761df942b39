"""`rabbithole ingest` on a full disk: one line on stderr naming it and exit code 74 (StorageFullError), no
traceback. The disk fills up where ingestion first writes the catalog (an OSError with ENOSPC)."""

from __future__ import annotations

import errno
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from fixtures.pdfs import build_law_folder
from rabbithole.catalog.repository import Catalog
from rabbithole.cli.main import app
from rabbithole.core.errors import StorageFullError


def test_ingest_on_a_full_disk_says_so_in_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = build_law_folder(tmp_path / "kb" / "laws")
    monkeypatch.setenv("RABBITHOLE_STORAGE__DATA_DIR", str(tmp_path / "data"))

    def no_space(*_args: Any, **_kwargs: Any) -> Any:
        raise OSError(errno.ENOSPC, "No space left on device", str(tmp_path / "data" / "catalog.sqlite3"))

    monkeypatch.setattr(Catalog, "ensure_collection", no_space)
    result = CliRunner().invoke(app, ["ingest", str(folder), "--quiet"])

    assert result.exit_code == StorageFullError.exit_code == 74, result.output
    assert isinstance(result.exception, SystemExit) and "Traceback" not in result.output
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: the disk is full"), result.stderr
    assert "No space left on device" in lines[0]
