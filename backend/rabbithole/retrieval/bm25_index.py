"""BM25 over the chunks of one collection, with bm25s (eager sparse scoring, numpy backend).

The index keeps arrays aligned with its rows (chunk id, document, section, page range) so the search
filters become a boolean mask, applied through bm25s's ``weight_mask``. Indexes persist under
``<index_dir>/<collection dir>/`` with a fingerprint of the collection revision (given by the
:class:`~rabbithole.retrieval.source.ChunkSource`), the tokenizer version and the BM25 parameters, and are
rebuilt only when that fingerprint changes (:mod:`~rabbithole.retrieval.bm25_indexes`; on disk:
:mod:`~rabbithole.retrieval.bm25_storage`). What is indexed of a chunk:
:mod:`~rabbithole.retrieval.bm25_text`.

Tokenization: :mod:`rabbithole.retrieval.tokenizer`; each document is stemmed in the language detected
over all its chunks, queries in every language present in the index.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import re
import time
import unicodedata
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from rabbithole.core.models import Chunk
from rabbithole.retrieval.bm25_text import PreparedDocument, document_tokens, prepared_key
from rabbithole.retrieval.filters import SearchFilters, section_key
from rabbithole.retrieval.tokenizer import (
    LANGUAGES,
    TOKENIZER_VERSION,
    Language,
    tokenize_query,
)

log = logging.getLogger(__name__)

#: 2: headings per row (heading matches in fusion); 3: every chunk indexed with its section label and heading
FORMAT_VERSION = "3"

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


def import_bm25s() -> Any:
    """bm25s, imported on first use; it sets its own logger to DEBUG on import, which we undo."""
    import bm25s

    logging.getLogger("bm25s").setLevel(logging.WARNING)
    return bm25s


@functools.lru_cache(maxsize=1024)
def fingerprint(revision: str, params: BM25Params) -> str:
    bm25s = import_bm25s()

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
        bm25s = import_bm25s()

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
        scores = np.asarray(
            self.retriever.get_scores_from_ids(token_ids, weight_mask=self._weight(filters)), dtype=np.float32
        )
        return self._best(scores, n)

    def search_groups(
        self, groups: Sequence[Sequence[Sequence[str]]], n: int, filters: SearchFilters | None = None
    ) -> BM25Result:
        """The ``n`` best rows for a query of alternatives: each group is a list of alternatives (the tokens
        of one term each, as from ``tokenize_query``); a row scores the sum over groups of its best
        alternative's BM25 score (the sum of that term's tokens). So a concept the query names by several
        terms ("Wartung", "warten", "gewartet") counts once, by the term the row matches best."""
        if n <= 0 or self.retriever is None:
            return BM25Result([], None)
        weight = self._weight(filters)
        vocab: dict[str, int] = self.retriever.vocab_dict
        of_token: dict[int, FloatArray] = {}
        total: FloatArray | None = None
        for group in groups:
            best: FloatArray | None = None
            for alternative in dict.fromkeys(tuple(dict.fromkeys(tokens)) for tokens in group):
                ids = [vocab[t] for t in alternative if t in vocab]
                if not ids:
                    continue
                for token_id in ids:
                    if token_id not in of_token:
                        of_token[token_id] = np.asarray(
                            self.retriever.get_scores_from_ids([token_id], weight_mask=weight),
                            dtype=np.float32,
                        )
                score = of_token[ids[0]].copy()
                for token_id in ids[1:]:
                    score += of_token[token_id]
                best = score if best is None else np.maximum(best, score, out=best)
            if best is not None:
                total = best if total is None else np.add(total, best, out=total)
        if total is None:
            return BM25Result([], None)
        return self._best(total, n)

    def _weight(self, filters: SearchFilters | None) -> FloatArray | None:
        allowed = self.mask(filters)
        return allowed.astype(np.float32) if allowed is not None else None

    def _best(self, scores: FloatArray, n: int) -> BM25Result:
        """The ``n`` rows of highest positive score, best first (ties by row)."""
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
