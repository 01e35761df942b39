"""Files whose vectors could not be written or removed (the vector store failed: a Chroma server that went
down, a damaged embedded index): reported per file, the run goes on with the others.

The catalog stays the truth of what is searchable and what the next run must do: a file whose vectors could
not be written has no row in the catalog (the rows of its earlier version leave it too once a write of its
vectors was tried, as they may be gone), so the next run ingests it as new; a file whose earlier version
was left untouched (the store could not even be opened) keeps that version, rows and vectors, with its old
content hash, so the next run updates it; a file whose vectors could not be removed keeps its rows, so the
next run removes it again.
"""

from __future__ import annotations

from rabbithole.catalog.records import IngestProblem
from rabbithole.core.errors import StoreError
from rabbithole.ingestion.reports import CollectionReport

#: the problem kind of a file the vector store failed on
NOT_INDEXED = "not_indexed"


class VectorsNotWritten(Exception):
    """The vector store failed on one file (raised on the writer thread, settled by the run)."""

    def __init__(
        self, file_name: str, error: StoreError, pages: int = 0, chunks: int = 0, *, removing: bool = False
    ) -> None:
        super().__init__(f"{file_name}: {error}")
        self.file_name = file_name
        self.error = error
        self.pages = pages
        self.chunks = chunks
        self.removing = removing


def not_written(file_name: str, error: StoreError) -> IngestProblem:
    return IngestProblem(
        file_name,
        NOT_INDEXED,
        f"its vectors could not be written ({error}); the next ingestion indexes it again",
        "error",
    )


def not_removed(file_name: str, error: StoreError) -> IngestProblem:
    return IngestProblem(
        file_name,
        NOT_INDEXED,
        f"its vectors could not be removed ({error}); it stays searchable until the next ingestion "
        "removes it",
        "error",
    )


def settle_not_written(report: CollectionReport, failed: VectorsNotWritten) -> None:
    """``report`` as the run left it: the file is neither added, updated nor removed, and its problem is
    listed."""
    name = failed.file_name
    if failed.removing:
        if name in report.removed:
            report.removed.remove(name)
        report.problems.append(not_removed(name, failed.error))
        return
    for listed in (report.added, report.updated):
        if name in listed:
            listed.remove(name)
    report.pages -= failed.pages
    report.chunks -= failed.chunks
    report.problems.append(not_written(name, failed.error))
