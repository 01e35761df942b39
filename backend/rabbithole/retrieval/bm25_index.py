"""BM25 over the chunks of one collection, with bm25s (eager sparse scoring, numpy backend).

The index keeps arrays aligned with its rows (chunk id, document, section, page range) so the search
filters become a boolean mask, applied through bm25s's ``weight_mask``. Indexes persist under
``<index_dir>/<collection dir>/`` with a fingerprint of the collection revision (given by the
:class:`~rabbithole.retrieval.source.ChunkSource`), the tokenizer version and the BM25 parameters, and are
rebuilt only when that fingerprint changes (:class:`BM25Indexes`).

Tokenization: :mod:`rabbithole.retrieval.tokenizer`; each document is stemmed in the language detected
over all its chunks, queries in every language present in the index.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import os
import re
import shutil
import threading
import time
import unicodedata
import uuid
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path, PurePath
from typing import Any

import numpy as np
import numpy.typing as npt

from rabbithole.core.models import Chunk
from rabbithole.retrieval.filters import SearchFilters, section_key
from rabbithole.retrieval.source import ChunkSource
from rabbithole.retrieval.tokenizer import (
    LANGUAGES,
    TOKENIZER_VERSION,
    Language,
    detect_language,
    raw_tokens,
    section_tokens,
    stem_tokens,
    tokenize_query,
)

log = logging.getLogger(__name__)

FORMAT_VERSION = "2"  # 2: headings per row (heading matches in fusion)
_LANGUAGE_SAMPLE = 3000
_CURRENT = "current.json"
_ROWS_JSON = "rows.json"
_ROWS_NPZ = "rows.npz"

IntArray = npt.NDArray[np.int32]
FloatArray = npt.NDArray[np.float32]
BoolArray = npt.NDArray[np.bool_]


@dataclass(frozen=True, slots=True)
class BM25Params:
    k1: float = 1.5
    b: float = 0.75
    method: str = "lucene"


@dataclass(frozen=True, slots=True)
class BM25Match:
    id: str
    score: float
    row: int


@dataclass(slots=True)
class BM25Result:
    matches: list[BM25Match]  # best first, score > 0
    scores: FloatArray | None  # the score of every row (after filtering), None when nothing matched

    def score_of_row(self, row: int) -> float:
        return float(self.scores[row]) if self.scores is not None else 0.0


def bm25_text(chunk: Chunk) -> str:
    """What BM25 indexes for a chunk: the document's name (so "AtG" in a query favours AtG.pdf), then the
    section label and heading unless the text already starts with them, then the text."""
    head = [_document_label(chunk.document)]
    heading = chunk.heading[:80]
    if (chunk.section or heading) and not (heading and heading in chunk.text[:400]):
        head.extend(part for part in (chunk.section or "", chunk.heading) if part)
    return " ".join(head) + "\n" + chunk.text


@functools.lru_cache(maxsize=65536)
def _document_label(document: str) -> str:
    return PurePath(document).stem


#: one document's BM25 token lists, computed ahead (see :meth:`BM25Indexes.prepare_document`), with what they
#: were computed from: (chunk id, indexed text) per chunk
PreparedDocument = tuple[tuple[tuple[str, str], ...], list[list[str]]]


def document_tokens(chunks: Sequence[Chunk]) -> tuple[Language, list[list[str]]]:
    """The stemming language of one document (detected over its chunks, in order) and the BM25 tokens of
    each chunk."""
    raw = [raw_tokens(bm25_text(c)) for c in chunks]
    sample: list[str] = []
    for tokens in raw:
        if len(sample) >= _LANGUAGE_SAMPLE:  # a few thousand words tell the language
            break
        sample.extend(tokens[:_LANGUAGE_SAMPLE])
    language = detect_language(sample)
    return language, [
        stem_tokens(tokens, language) + section_tokens(chunk.section)
        for chunk, tokens in zip(chunks, raw, strict=True)
    ]


def prepared_key(chunks: Sequence[Chunk]) -> tuple[tuple[str, str], ...]:
    return tuple((c.id, bm25_text(c)) for c in chunks)


def _bm25s() -> Any:
    """bm25s, imported on first use; it sets its own logger to DEBUG on import, which we undo."""
    import bm25s

    logging.getLogger("bm25s").setLevel(logging.WARNING)
    return bm25s


@functools.lru_cache(maxsize=1024)
def fingerprint(revision: str, params: BM25Params) -> str:
    bm25s = _bm25s()

    basis = json.dumps(
        {
            "revision": revision,
            "tokenizer": TOKENIZER_VERSION,
            "format": FORMAT_VERSION,
            "bm25s": getattr(bm25s, "__version__", "?"),
            "params": asdict(params),
        },
        sort_keys=True,
    )
    return hashlib.sha1(basis.encode("utf-8")).hexdigest()


def collection_dir_name(collection: str) -> str:
    """A safe, unique folder name for a collection: ``<ascii slug>-<hash8>``."""
    ascii_name = unicodedata.normalize("NFKD", collection).encode("ascii", "ignore").decode("ascii")
    slug = re.sub(r"[^A-Za-z0-9_-]+", "-", ascii_name).strip("-_")[:48]
    digest = hashlib.sha1(collection.encode("utf-8")).hexdigest()[:8]
    return f"{slug}-{digest}" if slug else digest


@dataclass(eq=False)
class BM25Index:
    collection: str
    revision: str
    fingerprint: str
    params: BM25Params
    retriever: Any  # bm25s.BM25, or None when no chunk has a token
    ids: list[str]
    documents: list[str]  # distinct document names; doc_codes index into it
    doc_codes: IntArray
    section_keys: list[str]  # distinct section keys; section_codes index into it
    section_codes: IntArray
    page: IntArray
    page_end: IntArray
    languages: tuple[Language, ...]
    headings: list[str] = field(default_factory=list)  # distinct headings; heading_codes index into it
    heading_codes: IntArray = field(default_factory=lambda: np.zeros(0, dtype=np.int32))
    build_seconds: float = 0.0
    _rows: dict[str, int] | None = field(default=None, repr=False)

    def __len__(self) -> int:
        return len(self.ids)

    # --- building ----------------------------------------------------------------------------------

    @classmethod
    def build(
        cls,
        collection: str,
        chunks: Sequence[Chunk],
        revision: str,
        params: BM25Params | None = None,
        prepared: dict[str, tuple[Language, PreparedDocument]] | None = None,
    ) -> BM25Index:
        """``prepared``: token lists of documents computed ahead (while ingestion embedded), used for a
        document only when they were computed from exactly its chunks."""
        bm25s = _bm25s()

        params = params or BM25Params()
        started = time.perf_counter()

        # One stemming language per document, from all its chunks together.
        documents = list(dict.fromkeys(c.document for c in chunks))
        doc_index = {d: i for i, d in enumerate(documents)}
        doc_codes = np.fromiter((doc_index[c.document] for c in chunks), dtype=np.int32, count=len(chunks))
        rows: dict[str, list[int]] = {}
        for row, chunk in enumerate(chunks):
            rows.setdefault(chunk.document, []).append(row)
        token_lists: list[list[str]] = [[] for _ in chunks]
        doc_language: dict[str, Language] = {}
        for document, document_rows in rows.items():
            own = [chunks[row] for row in document_rows]
            ahead = (prepared or {}).get(document)
            if ahead is not None and ahead[1][0] == prepared_key(own):
                language, lists = ahead[0], ahead[1][1]
            else:
                language, lists = document_tokens(own)
            doc_language[document] = language
            for row, tokens in zip(document_rows, lists, strict=True):
                token_lists[row] = tokens
        languages = tuple(lang for lang in LANGUAGES if lang in doc_language.values()) or ("de",)

        vocab: dict[str, int] = {}
        corpus_ids: list[list[int]] = []
        get = vocab.get
        for tokens in token_lists:
            ids = [get(t, -1) for t in tokens]
            if -1 in ids:  # new words: extend the vocabulary (rare once the corpus warmed up)
                for t in tokens:
                    if t not in vocab:
                        vocab[t] = len(vocab)
                ids = [vocab[t] for t in tokens]
            corpus_ids.append(ids)
        retriever = None
        if vocab:
            retriever = bm25s.BM25(k1=params.k1, b=params.b, method=params.method, backend="numpy")
            retriever.index((corpus_ids, vocab), create_empty_token=False, show_progress=False)

        keys = [section_key(c.section) for c in chunks]
        section_keys = list(dict.fromkeys(keys))
        section_index = {k: i for i, k in enumerate(section_keys)}
        titles = [c.heading for c in chunks]
        headings = list(dict.fromkeys(titles))
        heading_index = {h: i for i, h in enumerate(headings)}
        return cls(
            collection=collection,
            revision=revision,
            fingerprint=fingerprint(revision, params),
            params=params,
            retriever=retriever,
            ids=[c.id for c in chunks],
            documents=documents,
            doc_codes=doc_codes,
            section_keys=section_keys,
            section_codes=np.fromiter((section_index[k] for k in keys), dtype=np.int32, count=len(keys)),
            page=np.fromiter((c.page for c in chunks), dtype=np.int32, count=len(chunks)),
            page_end=np.fromiter((c.page_end for c in chunks), dtype=np.int32, count=len(chunks)),
            languages=languages,
            headings=headings,
            heading_codes=np.fromiter((heading_index[h] for h in titles), dtype=np.int32, count=len(titles)),
            build_seconds=time.perf_counter() - started,
        )

    # --- persistence -------------------------------------------------------------------------------

    def save(self, directory: Path) -> Path:
        """Write the index into a fresh subfolder of ``directory`` and switch ``current.json`` to it
        atomically (readers never see a half-written index); older versions are removed."""
        directory.mkdir(parents=True, exist_ok=True)
        name = f"bm25-{uuid.uuid4().hex[:12]}"
        target = directory / name
        target.mkdir()
        if self.retriever is not None:
            self.retriever.save(str(target), show_progress=False)
        np.savez(
            target / _ROWS_NPZ,
            doc_codes=self.doc_codes,
            section_codes=self.section_codes,
            page=self.page,
            page_end=self.page_end,
            heading_codes=self.heading_codes,
        )
        rows = {
            "format": FORMAT_VERSION,
            "collection": self.collection,
            "revision": self.revision,
            "fingerprint": self.fingerprint,
            "params": asdict(self.params),
            "languages": list(self.languages),
            "has_retriever": self.retriever is not None,
            "ids": self.ids,
            "documents": self.documents,
            "section_keys": self.section_keys,
            "headings": self.headings,
        }
        (target / _ROWS_JSON).write_text(json.dumps(rows, ensure_ascii=False), encoding="utf-8")
        pointer = {"dir": name, "fingerprint": self.fingerprint, "revision": self.revision}
        tmp = directory / f".{_CURRENT}.{uuid.uuid4().hex[:8]}"
        tmp.write_text(json.dumps(pointer), encoding="utf-8")
        os.replace(tmp, directory / _CURRENT)
        for old in directory.glob("bm25-*"):
            if old.name != name:
                shutil.rmtree(old, ignore_errors=True)
        return target

    @staticmethod
    def stored_fingerprint(directory: Path) -> str | None:
        try:
            pointer = json.loads((directory / _CURRENT).read_text(encoding="utf-8"))
            return str(pointer["fingerprint"])
        except (OSError, ValueError, KeyError):
            return None

    @classmethod
    def load(cls, directory: Path, expected_fingerprint: str | None = None) -> BM25Index | None:
        """The stored index, or None when there is none, it is stale (other fingerprint) or unreadable."""
        try:
            pointer = json.loads((directory / _CURRENT).read_text(encoding="utf-8"))
            if expected_fingerprint is not None and pointer.get("fingerprint") != expected_fingerprint:
                return None
            target = directory / str(pointer["dir"])
            rows = json.loads((target / _ROWS_JSON).read_text(encoding="utf-8"))
            if rows.get("format") != FORMAT_VERSION:
                return None
            retriever = None
            if rows["has_retriever"]:
                bm25s = _bm25s()

                retriever = bm25s.BM25.load(str(target), show_progress=False)
            with np.load(target / _ROWS_NPZ) as arrays:
                doc_codes = arrays["doc_codes"].astype(np.int32)
                section_codes = arrays["section_codes"].astype(np.int32)
                page = arrays["page"].astype(np.int32)
                page_end = arrays["page_end"].astype(np.int32)
                heading_codes = arrays["heading_codes"].astype(np.int32)
        except FileNotFoundError:
            return None
        except Exception as exc:  # a damaged index is rebuilt, not fatal
            log.warning("BM25 index in %s is unreadable, it will be rebuilt: %s", directory, exc)
            return None
        return cls(
            collection=str(rows["collection"]),
            revision=str(rows["revision"]),
            fingerprint=str(rows["fingerprint"]),
            params=BM25Params(**rows["params"]),
            retriever=retriever,
            ids=list(rows["ids"]),
            documents=list(rows["documents"]),
            doc_codes=doc_codes,
            section_keys=list(rows["section_keys"]),
            section_codes=section_codes,
            page=page,
            page_end=page_end,
            languages=tuple(rows["languages"]),
            headings=list(rows["headings"]),
            heading_codes=heading_codes,
        )

    # --- search ------------------------------------------------------------------------------------

    def heading_of(self, row: int) -> str:
        """The heading of the chunk in ``row`` ("" when unknown)."""
        return self.headings[int(self.heading_codes[row])] if row < len(self.heading_codes) else ""

    def row_of(self, chunk_id: str) -> int | None:
        if self._rows is None:
            self._rows = {cid: i for i, cid in enumerate(self.ids)}
        return self._rows.get(chunk_id)

    def mask(self, filters: SearchFilters | None) -> BoolArray | None:
        """Rows allowed by the filters (None = all)."""
        if filters is None or filters.is_empty:
            return None
        allowed = np.ones(len(self.ids), dtype=bool)
        if filters.documents:
            documents = set(filters.documents)
            codes = [i for i, d in enumerate(self.documents) if d in documents]
            allowed &= np.isin(self.doc_codes, np.asarray(codes, dtype=np.int32))
        if filters.sections:
            wanted = set(filters.section_keys)
            codes = [i for i, k in enumerate(self.section_keys) if k in wanted]
            allowed &= np.isin(self.section_codes, np.asarray(codes, dtype=np.int32))
        if filters.page_to is not None:
            allowed &= self.page <= filters.page_to
        if filters.page_from is not None:
            allowed &= self.page_end >= filters.page_from
        return allowed

    def query_token_ids(self, query: str | Sequence[str]) -> list[int]:
        tokens = tokenize_query(query, self.languages) if isinstance(query, str) else list(query)
        if self.retriever is None:
            return []
        vocab: dict[str, int] = self.retriever.vocab_dict
        return [vocab[t] for t in dict.fromkeys(tokens) if t in vocab]

    def search(self, query: str | Sequence[str], n: int, filters: SearchFilters | None = None) -> BM25Result:
        """The ``n`` best rows with a positive score. ``query``: text, or tokens from ``tokenize_query``."""
        token_ids = self.query_token_ids(query)
        if not token_ids or n <= 0:
            return BM25Result([], None)
        allowed = self.mask(filters)
        weight = allowed.astype(np.float32) if allowed is not None else None
        scores = np.asarray(
            self.retriever.get_scores_from_ids(token_ids, weight_mask=weight), dtype=np.float32
        )
        candidates = np.flatnonzero(scores > 0)
        if len(candidates) > n:
            candidates = candidates[np.argpartition(-scores[candidates], n - 1)[:n]]
        order = candidates[np.lexsort((candidates, -scores[candidates]))]
        matches = [BM25Match(self.ids[row], float(scores[row]), int(row)) for row in order.tolist()]
        return BM25Result(matches, scores)

    def stats(self) -> dict[str, Any]:
        vocab = len(self.retriever.vocab_dict) if self.retriever is not None else 0
        return {
            "collection": self.collection,
            "chunks": len(self.ids),
            "documents": len(self.documents),
            "vocabulary": vocab,
            "languages": list(self.languages),
            "build_seconds": round(self.build_seconds, 3),
        }


class BM25Indexes:
    """Per-collection BM25 indexes: in memory, persisted under ``index_dir``, rebuilt from the
    ChunkSource only when its revision (or the tokenizer/BM25 parameters) changed."""

    def __init__(self, index_dir: Path, source: ChunkSource, params: BM25Params | None = None) -> None:
        self.index_dir = Path(index_dir)
        self.source = source
        self.params = params or BM25Params()
        self._cache: dict[str, BM25Index] = {}
        self._locks: dict[str, threading.Lock] = {}
        self._guard = threading.Lock()
        self.builds = 0  # how many indexes were built (not loaded) by this instance
        self.loads = 0
        #: per collection and document: token lists computed ahead for the next build
        self._prepared: dict[str, dict[str, tuple[Language, PreparedDocument]]] = {}
        self._prepared_lock = threading.Lock()

    def prepare_document(self, collection: str, chunks: Sequence[Chunk]) -> None:
        """Compute one document's BM25 tokens ahead of the next build of ``collection`` (ingestion calls
        this on its writer thread while it embeds, so the build after the last file only has to count). The
        build uses them only for a document whose chunks are exactly these."""
        if not chunks:
            return
        language, lists = document_tokens(chunks)
        with self._prepared_lock:
            self._prepared.setdefault(collection, {})[chunks[0].document] = (
                language,
                (prepared_key(chunks), lists),
            )

    def directory(self, collection: str) -> Path:
        return self.index_dir / collection_dir_name(collection)

    def _lock(self, collection: str) -> threading.Lock:
        with self._guard:
            return self._locks.setdefault(collection, threading.Lock())

    def get(self, collection: str, revision: str | None = None) -> BM25Index:
        """The current index of a collection (loading or rebuilding it when needed). ``revision``: the
        collection's revision when the caller has just read it (saves asking the source again)."""
        wanted = fingerprint(self.source.revision(collection) if revision is None else revision, self.params)
        cached = self._cache.get(collection)
        if cached is not None and cached.fingerprint == wanted:
            return cached
        with self._lock(collection):
            revision = self.source.revision(collection)
            wanted = fingerprint(revision, self.params)
            cached = self._cache.get(collection)
            if cached is not None and cached.fingerprint == wanted:
                return cached
            directory = self.directory(collection)
            with self._prepared_lock:
                prepared = self._prepared.pop(collection, None)
            index = BM25Index.load(directory, expected_fingerprint=wanted)
            if index is not None:
                self.loads += 1
            else:
                index = BM25Index.build(
                    collection, self.source.chunks(collection), revision, self.params, prepared
                )
                self.builds += 1
                log.info(
                    "built BM25 index of '%s': %d chunks in %.2f s",
                    collection,
                    len(index),
                    index.build_seconds,
                )
                try:
                    index.save(directory)
                except OSError as exc:
                    log.warning("could not save the BM25 index of '%s' (kept in memory): %s", collection, exc)
            self._cache[collection] = index
            return index

    def invalidate(self, collection: str) -> None:
        """Forget the in-memory index (the revision check would also notice a change)."""
        self._cache.pop(collection, None)

    def delete(self, collection: str) -> None:
        """Forget and remove a collection's persisted index."""
        with self._lock(collection):
            self._cache.pop(collection, None)
            shutil.rmtree(self.directory(collection), ignore_errors=True)
