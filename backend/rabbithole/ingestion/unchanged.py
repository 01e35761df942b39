"""The light path of a re-run: tell, without loading the catalog's ORM, the vector store or any model,
that a folder is exactly as the index holds it, and report it.

A collection is unchanged when it exists, every file's content hash matches the catalog and the file it was
ingested from is still there (else the full run records where it is now, for serving its PDF), no file was
removed (the folder is scanned whole), the problems the scan reports are those recorded last time, and the
collection's registry.yaml has the recorded digest. Then the full pipeline would write nothing, and its
report is the one built here. In every other case `unchanged_report` returns None and the caller runs the
pipeline.
"""

from __future__ import annotations

import time
from pathlib import Path

from rabbithole.catalog.records import IngestProblem
from rabbithole.catalog.snapshot import read_snapshot
from rabbithole.catalog.source_paths import decode_source
from rabbithole.ingestion.discovery import content_hash, discover, validate_collection_name
from rabbithole.ingestion.registry_file import user_file_digest
from rabbithole.ingestion.reports import CollectionReport, IngestReport, source_problems


def unchanged_report(
    path: Path, catalog_path: Path, collection: str | None = None, busy_timeout_ms: int = 30_000
) -> IngestReport | None:
    """The report of a run that would change nothing, or None when something changed (or cannot be told
    this way). Raises what `discover` raises for a path that cannot be ingested at all."""
    report = IngestReport()
    for source in discover(path, collection):
        started = time.perf_counter()
        name = validate_collection_name(source.collection)
        snapshot = read_snapshot(catalog_path, name, busy_timeout_ms)
        if snapshot is None or not source.files:
            return None
        names = [source.file_name(p) for p in source.files]
        if source.complete and set(snapshot.hashes) - set(names):
            return None  # a file was removed from the folder
        for file_path, file_name in zip(source.files, names, strict=True):
            known = snapshot.hashes.get(file_name)
            recorded = decode_source(snapshot.sources.get(file_name, ""))
            if recorded is None or not recorded.is_file():
                return None  # moved, or ingested before sources were recorded: the full run records it
            try:
                if known is None or content_hash(file_path) != known:
                    return None
            except OSError:
                return None  # reported by the full run
        problems = source_problems(source)
        if sorted(problems, key=_key) != sorted(snapshot.problems, key=_key):
            return None
        if user_file_digest(source.root) != snapshot.registry_user_file_sha256:
            return None
        collection_report = CollectionReport(collection=name, unchanged=names, problems=problems)
        collection_report.seconds = time.perf_counter() - started
        report.collections.append(collection_report)
    return report


def _key(problem: IngestProblem) -> tuple[str, str, str, str]:
    return (problem.file_name, problem.kind, problem.reason, problem.severity)
