"""A light, read-only look at one collection in the catalog, with the standard library's sqlite3 instead of
SQLAlchemy: what a re-run of ingestion needs to tell that nothing changed (the files' hashes and paths, the
problems recorded last time, the registry file's digest), without the cost of loading the ORM.

Only reads; the schema is the one `catalog/tables.py` defines (a test checks both agree).
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from rabbithole.catalog.records import IngestProblem


@dataclass(frozen=True, slots=True)
class CollectionSnapshot:
    hashes: dict[str, str]  # file name -> content hash
    problems: tuple[IngestProblem, ...]  # as recorded by the last run, ordered by file name
    registry_user_file_sha256: str
    sources: dict[str, str]  # file name -> the path it was ingested from ("" = not recorded)


def read_snapshot(
    catalog_path: Path, collection: str, busy_timeout_ms: int = 30_000
) -> CollectionSnapshot | None:
    """The collection as the catalog holds it; None when the catalog or the collection does not exist, or
    the catalog cannot be read this way (the caller then takes the full path)."""
    if not catalog_path.is_file():
        return None
    try:
        connection = sqlite3.connect(
            f"{catalog_path.resolve().as_uri()}?mode=ro", uri=True, timeout=busy_timeout_ms / 1000
        )
    except sqlite3.Error:
        return None
    try:
        registry = connection.execute(
            "SELECT registry_json FROM collections WHERE name = ?", (collection,)
        ).fetchone()
        if registry is None:
            return None
        rows = connection.execute(
            "SELECT file_name, content_hash, source_path FROM documents WHERE collection_name = ?",
            (collection,),
        ).fetchall()
        hashes = {file_name: digest for file_name, digest, _ in rows}
        sources = {file_name: source for file_name, _, source in rows}
        problems = tuple(
            IngestProblem(file_name, kind, reason, severity)
            for file_name, kind, reason, severity in connection.execute(
                "SELECT file_name, kind, reason, severity FROM ingest_problems WHERE collection_name = ? "
                "ORDER BY file_name, id",
                (collection,),
            )
        )
        data = json.loads(registry[0] or "{}")
    except (sqlite3.Error, ValueError):
        return None
    finally:
        connection.close()
    digest = data.get("user_file_sha256", "") if isinstance(data, dict) else ""
    return CollectionSnapshot(hashes, problems, str(digest), sources)
