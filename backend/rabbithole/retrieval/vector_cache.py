"""The stored vectors of a collection, kept beside its BM25 index, for the similarity of BM25-only hits.

A hybrid hit that only BM25 found has no similarity from the vector query. Asking Chroma for its vector
(``get(ids, include=["embeddings"])``) costs about as much as the vector query itself. Instead, after each
ingestion (and on :meth:`HybridSearcher.warm`), the vectors Chroma holds are copied once into
``<index_dir>/<collection dir>/vectors-<fingerprint>.npy`` (float32, in the BM25 index's row order,
memory-mapped when read), so a search reads a few rows of a file instead.

The values are Chroma's own stored float32 vectors, so the similarity is the same number as when they are
read from Chroma. The file belongs to one collection revision (the BM25 index's fingerprint): a search at
another revision, a chunk whose vector was missing when the file was written, or a missing file fall back
to asking Chroma.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    from rabbithole.retrieval.bm25_index import BM25Index
    from rabbithole.store.chroma_store import VectorCollection

log = logging.getLogger(__name__)

_POINTER = "vectors.json"
FloatMatrix = npt.NDArray[np.float32]
BoolArray = npt.NDArray[np.bool_]


@dataclass(frozen=True, slots=True)
class CachedVectors:
    """Vectors of one BM25 index's rows (``present[row]`` False: Chroma had none for that row)."""

    fingerprint: str
    vectors: FloatMatrix
    present: BoolArray

    def vector(self, row: int) -> FloatMatrix | None:
        if row < 0 or row >= len(self.present) or not self.present[row]:
            return None
        return np.asarray(self.vectors[row], dtype=np.float32)


class VectorCache:
    """Per collection: the vectors of its current BM25 index, loaded once per revision (thread-safe)."""

    def __init__(self) -> None:
        #: directory -> (the index fingerprint looked up, its vectors or None when none were stored)
        self._loaded: dict[str, tuple[str, CachedVectors | None]] = {}
        self._lock = threading.Lock()

    def get(self, directory: Path, index: BM25Index) -> CachedVectors | None:
        """The stored vectors of ``index``'s revision, or None when none were written for it (looked up on
        disk once per revision; :meth:`build` replaces the answer)."""
        key = str(directory)
        with self._lock:
            cached = self._loaded.get(key)
        if cached is not None and cached[0] == index.fingerprint:
            return cached[1]
        loaded = _load(directory, index)
        with self._lock:
            self._loaded[key] = (index.fingerprint, loaded)
        return loaded

    def build(self, directory: Path, index: BM25Index, vectors: VectorCollection) -> CachedVectors:
        """Copy the collection's vectors from the store, in ``index``'s row order, unless they are already
        stored for its revision; write them atomically beside the index."""
        existing = _load(directory, index)  # on disk now (another process may have written it)
        if existing is not None:
            with self._lock:
                self._loaded[str(directory)] = (index.fingerprint, existing)
            return existing
        stored = vectors.get_embeddings(index.ids)
        matrix = np.zeros((len(index.ids), vectors.dim), dtype=np.float32)
        present = np.zeros(len(index.ids), dtype=bool)
        for row, chunk_id in enumerate(index.ids):
            vector = stored.get(chunk_id)
            if vector is not None and vector.shape == (vectors.dim,):
                matrix[row] = vector
                present[row] = True
        cached = CachedVectors(index.fingerprint, matrix, present)
        try:
            _save(directory, cached)
        except OSError as exc:
            log.warning("could not save the vectors of %s (kept in memory): %s", directory, exc)
        with self._lock:
            self._loaded[str(directory)] = (index.fingerprint, cached)
        return cached

    def invalidate(self, directory: Path) -> None:
        with self._lock:
            self._loaded.pop(str(directory), None)


def _save(directory: Path, cached: CachedVectors) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    name = f"vectors-{uuid.uuid4().hex[:12]}"
    np.save(directory / f"{name}.npy", cached.vectors)
    np.save(directory / f"{name}.present.npy", cached.present)
    tmp = directory / f".{_POINTER}.{uuid.uuid4().hex[:8]}"
    tmp.write_text(json.dumps({"name": name, "fingerprint": cached.fingerprint}), encoding="utf-8")
    os.replace(tmp, directory / _POINTER)
    for old in directory.glob("vectors-*.npy"):
        if not old.name.startswith(f"{name}."):
            old.unlink(missing_ok=True)


def _load(directory: Path, index: BM25Index) -> CachedVectors | None:
    try:
        pointer = json.loads((directory / _POINTER).read_text(encoding="utf-8"))
        if pointer.get("fingerprint") != index.fingerprint:
            return None
        name = str(pointer["name"])
        vectors = np.load(directory / f"{name}.npy", mmap_mode="r")
        present = np.load(directory / f"{name}.present.npy")
    except FileNotFoundError:
        return None
    except Exception as exc:  # a damaged file is written again by the next build; Chroma answers meanwhile
        log.warning("stored vectors in %s are unreadable, the store answers instead: %s", directory, exc)
        return None
    if vectors.ndim != 2 or vectors.shape[0] != len(index.ids) or present.shape != (len(index.ids),):
        return None
    return CachedVectors(str(pointer["fingerprint"]), vectors, present.astype(bool))
