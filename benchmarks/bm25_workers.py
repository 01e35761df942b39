"""BM25 with several workers (issue 25): what each choice costs on the sample collection.

Each worker keeps its own BM25 index and checks the collection's revision (one query) before every search;
when another worker changed the collection it loads the index that worker saved (a shared data directory)
or rebuilds it from the catalog. The alternative, an index stored in the database, costs every worker the
index's bytes over the wire and their loading at each change. Measured here, same run:

- the revision check per search, on SQLite and on PostgreSQL (a throwaway cluster);
- the rebuild from the catalog (reading the chunks + building), and loading the saved index from disk;
- the saved index fetched from a PostgreSQL ``bytea`` row and loaded (what a DB-stored index costs).

    .venv/bin/python -m benchmarks.bm25_workers
"""

from __future__ import annotations

import io
import tarfile
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from sqlalchemy import text

from benchmarks.common import SAMPLE_COLLECTION, bench_settings, ensure_sample_index, median, print_table
from rabbithole.catalog.repository import Catalog
from rabbithole.devtools.postgres_cluster import PostgresCluster
from rabbithole.retrieval.bm25_index import BM25Index, BM25Params
from rabbithole.retrieval.bm25_storage import load_index, save_index
from rabbithole.services import Services


def _seconds(call: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return median(times)


def _packed(directory: Path) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        tar.add(directory, arcname=".")
    return buffer.getvalue()


def main() -> None:
    data_dir = ensure_sample_index()
    services = Services(bench_settings(data_dir))
    catalog = services.catalog
    revision = catalog.revision(SAMPLE_COLLECTION)
    chunks = catalog.chunks(SAMPLE_COLLECTION)
    rows: list[tuple[str, str]] = [("chunks", str(len(chunks)))]

    def rebuild() -> BM25Index:
        return BM25Index.build(SAMPLE_COLLECTION, catalog.chunks(SAMPLE_COLLECTION), revision, BM25Params())

    index = rebuild()
    rows.append(("rebuild from the catalog (read chunks + build), s", f"{_seconds(rebuild, 3):.2f}"))
    with tempfile.TemporaryDirectory() as scratch:
        saved = Path(scratch) / "index"
        save_index(index, saved)
        rows.append(("load the saved index from disk, s", f"{_seconds(lambda: load_index(saved), 3):.3f}"))
        blob = _packed(saved)
        rows.append(("saved index, MB", f"{len(blob) / 1e6:.1f}"))
        revision_sqlite = _seconds(lambda: catalog.revision(SAMPLE_COLLECTION), 200)
        rows.append(("revision check per search, SQLite, ms", f"{revision_sqlite * 1000:.3f}"))
        with PostgresCluster.start() as cluster:
            url = cluster.create_database()
            pg = Catalog(Path(scratch) / "unused.sqlite3", url=url)
            pg.ensure_collection(SAMPLE_COLLECTION, "m", 1)
            revision_pg = _seconds(lambda: pg.revision(SAMPLE_COLLECTION), 200)
            rows.append(("revision check per search, PostgreSQL, ms", f"{revision_pg * 1000:.3f}"))
            with pg.engine.begin() as conn:
                conn.execute(text("CREATE TABLE bm25_blobs (name text PRIMARY KEY, data bytea)"))
                conn.execute(text("INSERT INTO bm25_blobs VALUES ('s', :data)"), {"data": blob})

            def from_database() -> BM25Index | None:
                with pg.engine.connect() as conn:
                    data = conn.execute(text("SELECT data FROM bm25_blobs WHERE name = 's'")).scalar_one()
                target = Path(tempfile.mkdtemp(dir=scratch))
                with tarfile.open(fileobj=io.BytesIO(bytes(data))) as tar:
                    tar.extractall(target, filter="data")
                return load_index(target)

            rows.append(("index stored in PostgreSQL: fetch + load, s", f"{_seconds(from_database, 3):.3f}"))
            pg.close()
    services.close()
    print_table(("BM25 with several workers (sample collection)", "value"), rows)


if __name__ == "__main__":
    main()
