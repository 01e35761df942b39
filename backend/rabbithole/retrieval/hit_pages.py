"""The first k fused candidates of a search as chunks, without overlapping duplicates.

Chunks are fetched from the catalog a page at a time (most queries need only the first page, so the catalog
is not asked for every candidate); chunks of one document whose character ranges overlap (neighbouring
chunks of a long section share ``chunk_overlap`` characters) are collapsed into the better one.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from rabbithole.core.models import Chunk
from rabbithole.retrieval.fusion import Fused, dedup_overlapping
from rabbithole.retrieval.source import ChunkSource

log = logging.getLogger(__name__)

Key = tuple[str, str]  # (collection, chunk id)

#: candidates fetched beyond k in the first page (dedup may drop some)
FETCH_MARGIN = 5


def top_unique(
    fused: Sequence[Fused[Key]], k: int, source: ChunkSource, min_overlap: float = 0.0
) -> tuple[list[Fused[Key]], dict[Key, Chunk]]:
    """The k best fused candidates after dedup (``min_overlap``: see :func:`dedup_overlapping`), and the
    chunks fetched for them."""
    chunks: dict[Key, Chunk] = {}
    page = k + FETCH_MARGIN
    fetched = 0
    while True:
        batch = fused[fetched : fetched + page]
        chunks.update(fetch_chunks(source, [f.key for f in batch]))
        fetched += len(batch)
        present = [f for f in fused[:fetched] if f.key in chunks]
        top = dedup_overlapping(
            present,
            lambda f: ((f.key[0], chunks[f.key].document), chunks[f.key].start, chunks[f.key].end),
            min_overlap,
        )[:k]
        if len(top) >= k or fetched >= len(fused):
            break
        page *= 2
    if len(present) < fetched:
        log.warning(
            "%d search candidates are in the index but not in the catalog (re-ingest?)",
            fetched - len(present),
        )
    return top, chunks


def fetch_chunks(source: ChunkSource, keys: Sequence[Key]) -> dict[Key, Chunk]:
    """The chunks of ``keys`` that the catalog holds."""
    by_collection: dict[str, list[str]] = {}
    for collection, chunk_id in keys:
        by_collection.setdefault(collection, []).append(chunk_id)
    out: dict[Key, Chunk] = {}
    for collection, ids in by_collection.items():
        for chunk_id, chunk in source.get_chunks(collection, ids).items():
            out[(collection, chunk_id)] = chunk
    return out
