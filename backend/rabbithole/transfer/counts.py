"""What an installation holds, counted the same way on both sides of a move."""

from __future__ import annotations

from dataclasses import asdict, dataclass

from sqlalchemy import Engine, func, select, table

from rabbithole.store.chroma_store import ChromaStore

#: The tables counted, by the name a person reads.
COUNTED_TABLES = {
    "collections": "collections",
    "documents": "documents",
    "pages": "pages",
    "chunks": "chunks",
    "runs": "research_runs",
    "events": "run_events",
    "jobs": "ingest_jobs",
}


@dataclass(frozen=True, slots=True)
class Counts:
    collections: int
    documents: int
    pages: int
    chunks: int
    vectors: int
    runs: int
    events: int
    jobs: int
    uploads: int

    def as_dict(self) -> dict[str, int]:
        return asdict(self)

    def differences(self, other: Counts) -> list[str]:
        """'name: mine vs other' for every count that differs."""
        mine, theirs = self.as_dict(), other.as_dict()
        return [f"{k}: {mine[k]} vs {theirs[k]}" for k in mine if mine[k] != theirs[k]]

    def line(self) -> str:
        return ", ".join(f"{v} {k}" for k, v in self.as_dict().items())


def count_rows(engine: Engine) -> dict[str, int]:
    """The rows of each counted table."""
    with engine.connect() as conn:
        return {
            name: int(conn.scalar(select(func.count()).select_from(table(sql_name))) or 0)
            for name, sql_name in COUNTED_TABLES.items()
        }


def count_vectors(store: ChromaStore, collections: list[str]) -> int:
    """The vectors the store holds for ``collections`` (a collection without vectors counts 0)."""
    held = {info.name: info.count for info in store.list_collections()}
    return sum(held.get(name, 0) for name in collections)
