"""What an ingestion reports: progress events while it runs, and per collection what was added, updated,
left unchanged or removed, with the problems met."""

from __future__ import annotations

from dataclasses import dataclass, field

from rabbithole.catalog.records import IngestProblem
from rabbithole.ingestion.discovery import CollectionSource


@dataclass(frozen=True, slots=True)
class IngestEvent:
    """Progress: `stage` is "parsing" (a file is being read), "embedding" (its passages are being
    embedded), "stored" (its passages and vectors are written), "file" (a file finished: ``error`` says why
    it failed, empty when it did not) or "collection" (a collection finished)."""

    stage: str
    collection: str
    done: int
    total: int
    file_name: str = ""
    error: str = ""


@dataclass(slots=True)
class CollectionReport:
    collection: str
    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    problems: list[IngestProblem] = field(default_factory=list)
    pages: int = 0
    chunks: int = 0
    seconds: float = 0.0
    embed_seconds: float = 0.0

    @property
    def failed(self) -> list[IngestProblem]:
        return [p for p in self.problems if p.severity == "error"]

    @property
    def changed(self) -> bool:
        return bool(self.added or self.updated or self.removed)


def merged(collection: str, reports: list[CollectionReport]) -> CollectionReport:
    """One report of several runs over parts of one collection (files of different folders)."""
    out = CollectionReport(collection=collection)
    for report in reports:
        out.added += report.added
        out.updated += report.updated
        out.unchanged += report.unchanged
        out.removed += report.removed
        out.problems += report.problems
        out.pages += report.pages
        out.chunks += report.chunks
        out.seconds += report.seconds
        out.embed_seconds += report.embed_seconds
    return out


@dataclass(slots=True)
class IngestReport:
    collections: list[CollectionReport] = field(default_factory=list)

    @property
    def failed(self) -> list[IngestProblem]:
        return [p for c in self.collections for p in c.failed]


def source_problems(source: CollectionSource) -> list[IngestProblem]:
    """What the scan of the folder itself reports: links not followed, file names that are not UTF-8."""
    problems = [IngestProblem(s.file_name, s.kind, s.reason, "warning") for s in source.skipped]
    for path in source.files:
        if (note := source.name_note(path)) is not None:
            problems.append(IngestProblem(source.file_name(path), "file_name", note, "warning"))
    return problems
