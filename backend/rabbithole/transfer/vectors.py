"""A collection's vectors out of the store and into another: its chunk ids (JSON) and their vectors (a
float32 ``.npy``), with the embedding model's identity, so the target holds exactly the source's vectors
(nothing is embedded again). Read and written in batches of the store's size."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from rabbithole.catalog.repository import Catalog
from rabbithole.store.chroma_store import ChromaStore


@dataclass(frozen=True, slots=True)
class Identity:
    """The embedding model a collection's vectors came from (``ChromaStore.open``'s ``ModelIdentity``)."""

    model_id: str
    dim: int


def dump_vectors(store: ChromaStore, collection: str, folder: Path, stem: str) -> dict[str, object]:
    """Write the collection's vectors as ``<stem>.ids.json`` and ``<stem>.npy``; its manifest entry."""
    handle = store.open(collection)
    ids = sorted(handle.ids())
    matrix = np.lib.format.open_memmap(
        folder / f"{stem}.npy", mode="w+", dtype=np.float32, shape=(len(ids), handle.dim)
    )
    step = max(1, store.max_batch_size)
    for start in range(0, len(ids), step):
        part = ids[start : start + step]
        found = handle.get_embeddings(part)
        missing = [i for i in part if i not in found]
        if missing:
            raise RuntimeError(f"'{collection}': {len(missing)} vectors vanished while they were read")
        matrix[start : start + len(part)] = np.stack([found[i] for i in part])
    matrix.flush()
    del matrix
    (folder / f"{stem}.ids.json").write_text(json.dumps(ids), encoding="utf-8")
    return {
        "collection": collection,
        "stem": stem,
        "model_id": handle.model_id,
        "dim": handle.dim,
        "count": len(ids),
    }


def load_vectors(store: ChromaStore, catalog: Catalog, entry: dict[str, object], folder: Path) -> int:
    """Write one collection's dumped vectors into ``store`` (created with the source's model identity),
    each with the metadata its chunk in ``catalog`` gives (as ingestion writes it); how many."""
    collection, stem = str(entry["collection"]), str(entry["stem"])
    ids: list[str] = json.loads((folder / f"{stem}.ids.json").read_text(encoding="utf-8"))
    matrix = np.load(folder / f"{stem}.npy", mmap_mode="r")
    identity = Identity(str(entry["model_id"]), int(str(entry["dim"])))
    handle = store.open(collection, identity, create=True)
    chunks = catalog.get_chunks(collection, ids)
    missing = [i for i in ids if i not in chunks]
    if missing:
        raise RuntimeError(f"'{collection}': {len(missing)} vectors have no chunk in the catalog")
    step = max(1, store.max_batch_size)
    for start in range(0, len(ids), step):
        part = ids[start : start + step]
        handle.upsert([chunks[i] for i in part], np.asarray(matrix[start : start + len(part)]))
    return len(ids)
