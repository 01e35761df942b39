"""Export an installation into a folder, and import such a folder into another installation, each side's
counts checked (``counts.py``).

The folder: ``manifest.json`` (format, where it came from, the counts, each table's rows, each collection's
vectors), ``tables/<table>.jsonl`` (``rows.py``), ``vectors/<n>.ids.json`` + ``<n>.npy`` (``vectors.py``),
``uploads/`` (the PDFs uploaded through the API, as ``storage.data_dir/uploads`` holds them).

Not moved: LangGraph's checkpoints (SQLite's and PostgreSQL's savers keep different formats; a finished
run's result and events are moved, so only a run that waits for input or was interrupted cannot be
continued after the move), and what is rebuilt from the catalog by itself (the BM25 indexes and the copy
of the vectors beside them, the embedded store's session markers and damage record, locks, caches). The
PDFs ingested from a folder stay where they are; their recorded paths are kept."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from rabbithole.catalog.source_paths import decode_source, encode_source
from rabbithole.core.config import Settings
from rabbithole.core.errors import InvalidRequestError, StoreError
from rabbithole.services import Services
from rabbithole.transfer.counts import Counts, count_rows, count_vectors
from rabbithole.transfer.rows import advance_sequences, clear_tables, dump_table, load_table, tables
from rabbithole.transfer.vectors import dump_vectors, load_vectors

FORMAT = 1
MANIFEST = "manifest.json"
#: Runs in these states need their checkpoint to go on, which is not moved.
UNFINISHED = ("queued", "running", "waiting_for_input")


@dataclass(frozen=True, slots=True)
class Moved:
    """One side's counts beside the other's; ``notes`` for the person who moved it."""

    where: str
    before: Counts  # the exporting installation, or the folder being imported
    after: Counts  # the folder written, or the importing installation
    notes: list[str] = field(default_factory=list)


@contextmanager
def opened(settings: Settings) -> Iterator[Services]:
    """The installation of ``settings``, its schema brought up to date first (every table: catalog, jobs,
    runs, events)."""
    from rabbithole.migrations import migrate

    storage = settings.storage
    migrate(settings.database.url, storage.catalog_path, storage.sqlite_busy_timeout_ms)
    services = Services(settings)
    try:
        yield services
    finally:
        services.close()


def describe(services: Services) -> str:
    database = services.catalog.location
    kind = "PostgreSQL" if services.settings.database.url else "SQLite"
    return f"{kind} {database}, vectors {services.store.location}"


def count(services: Services) -> Counts:
    rows = count_rows(services.catalog.engine)
    names = [c.name for c in services.catalog.list_collections()]
    return Counts(**rows, vectors=count_vectors(services.store, names), uploads=_files(services.settings))


def export_installation(settings: Settings, folder: Path) -> Moved:
    """Write the installation of ``settings`` into ``folder`` (new or empty)."""
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise InvalidRequestError(f"{folder} is not an empty folder: export into a new one")
    with opened(settings) as services:
        before = count(services)
        (folder / "tables").mkdir(parents=True)
        (folder / "vectors").mkdir()
        rows = {
            t.name: dump_table(services.catalog.engine, t, folder / "tables" / f"{t.name}.jsonl")
            for t in tables()
        }
        entries = [
            dump_vectors(services.store, c.name, folder / "vectors", f"{n:04d}")
            for n, c in enumerate(services.catalog.list_collections())
            if services.store.exists(c.name)
        ]
        uploads = settings.storage.uploads_dir
        if uploads.is_dir():
            shutil.copytree(uploads, folder / "uploads")
        written = _dumped(rows, entries, folder)
        again = count(services)
        manifest = {
            "format": FORMAT,
            "exported_at": datetime.now(UTC).isoformat(),
            "source": describe(services),
            "uploads_dir": str(uploads.resolve()),
            "counts": written.as_dict(),
            "tables": rows,
            "vectors": entries,
        }
        (folder / MANIFEST).write_text(json.dumps(manifest, indent=2, ensure_ascii=False), encoding="utf-8")
        where = describe(services)
    _check(before, written, "the installation", f"the folder {folder}")
    _check(
        before, again, "the installation before the export", "after it (was a server or ingestion running?)"
    )
    return Moved(where, before, written, _notes(folder))


def import_installation(settings: Settings, folder: Path, *, replace: bool = False) -> Moved:
    """Load the export in ``folder`` into the installation of ``settings``: refused when that holds anything
    (unless ``replace``: then what it holds is deleted first)."""
    manifest = read_manifest(folder)
    expected = Counts(**manifest["counts"])
    with opened(settings) as services:
        present = count(services)
        if any(present.as_dict().values()):
            if not replace:
                raise InvalidRequestError(
                    f"the target installation ({describe(services)}) is not empty: {present.line()}. Import "
                    "into an empty one, or pass --replace to delete what it holds first"
                )
            _clear(services)
        source_uploads = Path(str(manifest["uploads_dir"]))
        target_uploads = settings.storage.uploads_dir.resolve()

        def change(table: str, row: dict[str, Any]) -> dict[str, Any]:
            if table == "documents":
                row["source_path"] = _moved_source(str(row["source_path"]), source_uploads, target_uploads)
            elif table == "research_runs":
                row["owner"], row["lease_until"] = None, None  # no process of this installation holds it
            return row

        engine = services.catalog.engine
        from rabbithole.accounts.tables import AccountsBase

        for table in tables():
            path = folder / "tables" / f"{table.name}.jsonl"
            if not path.exists() and table.name in AccountsBase.metadata.tables:
                continue  # an export made before the account tables existed: it has none
            load_table(engine, table, path, change)
        advance_sequences(engine)
        if (folder / "uploads").is_dir():
            shutil.copytree(folder / "uploads", settings.storage.uploads_dir, dirs_exist_ok=True)
        for entry in manifest["vectors"]:
            load_vectors(services.store, services.catalog, entry, folder / "vectors")
        after = count(services)
        where = describe(services)
    _check(expected, after, f"the folder {folder}", "the installation it was imported into")
    return Moved(where, expected, after, _notes(folder))


def read_manifest(folder: Path) -> dict[str, Any]:
    try:
        manifest: dict[str, Any] = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InvalidRequestError(
            f"{folder} holds no {MANIFEST}: not a folder `rabbithole export` wrote"
        ) from None
    if manifest.get("format") != FORMAT:
        raise InvalidRequestError(
            f"{folder} was written in format {manifest.get('format')}; this version reads {FORMAT}"
        )
    return manifest


def _dumped(rows: dict[str, int], entries: list[dict[str, Any]], folder: Path) -> Counts:
    """The counts of what the folder holds."""
    from rabbithole.transfer.counts import COUNTED_TABLES

    uploads = folder / "uploads"
    files = sum(1 for p in uploads.rglob("*") if p.is_file()) if uploads.is_dir() else 0
    return Counts(
        **{name: rows[sql] for name, sql in COUNTED_TABLES.items()},
        vectors=sum(int(e["count"]) for e in entries),
        uploads=files,
    )


def _check(expected: Counts, found: Counts, first: str, second: str) -> None:
    differences = expected.differences(found)
    if differences:
        raise StoreError(f"the counts of {first} and {second} differ: {'; '.join(differences)}")


def _notes(folder: Path) -> list[str]:
    waiting = 0
    path = folder / "tables" / "research_runs.jsonl"
    if path.is_file():
        with path.open(encoding="utf-8") as lines:
            waiting = sum(1 for line in lines if line.strip() and json.loads(line)["status"] in UNFINISHED)
    notes = [
        "not moved: the research checkpoints (a finished run's result and events are moved); the BM25 "
        "indexes are rebuilt at the first search"
    ]
    if waiting:
        notes.append(
            f"{waiting} run(s) not finished (queued, running or waiting for input) cannot go on after "
            "the move"
        )
    return notes


def _clear(services: Services) -> None:
    for name in services.store.collection_names():
        services.store.delete_collection(name)
    clear_tables(services.catalog.engine)
    storage = services.settings.storage
    for derived in (storage.uploads_dir, storage.index_dir):
        shutil.rmtree(derived, ignore_errors=True)


def _moved_source(stored: str, source_uploads: Path, target_uploads: Path) -> str:
    """A document uploaded into the source's uploads folder is in the target's now; any other path stays."""
    path = decode_source(stored)
    if path is None or not path.is_relative_to(source_uploads):
        return stored
    return encode_source(target_uploads / path.relative_to(source_uploads))


def _files(settings: Settings) -> int:
    uploads = settings.storage.uploads_dir
    return sum(1 for p in uploads.rglob("*") if p.is_file()) if uploads.is_dir() else 0
