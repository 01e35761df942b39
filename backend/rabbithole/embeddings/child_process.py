"""Embedding in a child process: a local model that runs its forward pass in numpy (USE, E5) holds the GIL
between its kernels, so in the ingesting process it competes with the threads that parse PDFs and write the
stores (on two cores that cost a quarter of the embedder's speed: docs/benchmarks.md). In a process of its
own it has a GIL of its own; the parent only sends texts and receives vectors.

The protocol, over the child's stdin and stdout: messages framed by an 8-byte little-endian length, each a
pickle (the two ends are the same installation). The parent first sends its ``LocalModel``; the child
loads its model and answers ``("ready", model_id, dim)`` or ``("failed", reason)``. Then each request
``(call_id, kind, texts)`` (kind "documents", "counted", "count" or "query") is answered ``(call_id, "ok",
vectors)`` (for "counted": ``(vectors, token counts)``; for "count": the token counts alone) or ``(call_id,
"error", reason)``, in the order calls finish. The child serves several calls at once (the ingestion pipeline
embeds two files at the same time), each exactly as the same embedder in the parent would: vectors are
identical. It ends when its stdin closes (the parent closed it, or the parent died), without the interpreter's
teardown."""

from __future__ import annotations

import logging
import os
import pickle
import struct
import subprocess
import sys
import tempfile
import threading
from collections.abc import Sequence
from concurrent.futures import Future
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import numpy as np

from rabbithole.core.errors import EmbeddingError
from rabbithole.embeddings.base import Embedder, FloatArray, TokenCountingEmbedder
from rabbithole.embeddings.local import LocalModel

if TYPE_CHECKING:
    from rabbithole.core.config import EmbeddingSettings

log = logging.getLogger(__name__)

#: providers that can embed in a child process: their identity (model id, dimension) is known without
#: loading the model, and their forward pass holds the GIL between numpy kernels
CHILD_PROVIDERS = frozenset({"use-multilingual", "e5-multilingual"})
#: calls the child serves at the same time
CONCURRENT_CALLS = 2
#: seconds the child gets to finish after its stdin closed, before it is killed
STOP_TIMEOUT_S = 10.0
#: characters of the child's stderr quoted in an error
STDERR_TAIL = 2000

_HEADER = struct.Struct("<Q")


def write_message(stream: IO[bytes], message: object) -> None:
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(_HEADER.pack(len(data)))
    stream.write(data)
    stream.flush()


def read_message(stream: IO[bytes]) -> Any:
    """The next message, or None at the end of the stream."""
    header = stream.read(_HEADER.size)
    if len(header) < _HEADER.size:
        return None
    (size,) = _HEADER.unpack(header)
    data = stream.read(size)
    if len(data) < size:
        return None
    return pickle.loads(data)


def child_command() -> list[str]:
    """The child's command line: this interpreter, running :mod:`rabbithole.embeddings.child_main`."""
    return [sys.executable, "-m", "rabbithole.embeddings.child_main"]


def child_environment() -> dict[str, str]:
    """The parent's environment, with this rabbithole package first on the path, so the child runs the same
    code as the parent whatever put it on the parent's path."""
    import rabbithole

    package_root = str(Path(rabbithole.__file__).resolve().parent.parent)
    paths = [package_root, *[p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]]
    # The child's parallelism is its calls: the Rust tokenizer's own thread pool, spinning beside them,
    # only burns CPU the numpy kernels need.
    return {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(dict.fromkeys(paths)),
        "TOKENIZERS_PARALLELISM": "false",
    }


class ChildProcessEmbedder:
    """An :class:`Embedder` whose model runs in a child process, started by :meth:`load` (or the first
    call) and stopped by :meth:`close`. ``identity`` is the same embedder built in this process, unloaded:
    it answers ``model_id`` and ``dim`` without waiting for the child, which must load the same model."""

    def __init__(self, identity: Embedder, settings: EmbeddingSettings, cache_dir: Path | None) -> None:
        if settings.provider not in CHILD_PROVIDERS:
            raise ValueError(f"provider {settings.provider!r} does not embed in a child process")
        self._identity = identity
        self._model = LocalModel.of(settings)
        self._cache_dir = cache_dir
        self._lock = threading.Lock()
        self._process: subprocess.Popen[bytes] | None = None
        self._stderr: IO[bytes] | None = None
        self._pending: dict[int, Future[Any]] = {}
        self._next_call = 0
        self._failure: str | None = None
        self._ready: Future[None] = Future()

    @property
    def model_id(self) -> str:
        return self._identity.model_id

    @property
    def dim(self) -> int:
        return self._identity.dim

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def load(self) -> None:
        """Start the child, which loads the model while the caller goes on."""
        with self._lock:
            self._start_locked()

    def wait_ready(self) -> None:
        """Block until the child has loaded its model (EmbeddingError if it could not)."""
        self.load()
        self._ready.result()

    def _start_locked(self) -> subprocess.Popen[bytes]:
        if self._failure is not None:
            raise EmbeddingError(self._failure)
        if self._process is not None:
            return self._process
        if not sys.executable:
            raise EmbeddingError("cannot start the embedding process: the Python interpreter is unknown")
        self._stderr = tempfile.TemporaryFile()  # noqa: SIM115  (kept open for the child's lifetime)
        if self._ready.done():  # a child started again after close()
            self._ready = Future()
        try:
            process = subprocess.Popen(
                child_command(),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self._stderr,
                env=child_environment(),
            )
            assert process.stdin is not None
            write_message(
                process.stdin,
                {"model": self._model, "cache_dir": self._cache_dir},
            )
        except OSError as exc:
            raise EmbeddingError(f"cannot start the embedding process: {exc}") from exc
        self._process = process
        reader = threading.Thread(
            target=self._read_answers, args=(process,), name="embed-child-reader", daemon=True
        )
        reader.start()
        return process

    def _read_answers(self, process: subprocess.Popen[bytes]) -> None:
        assert process.stdout is not None
        while (message := read_message(process.stdout)) is not None:
            if message[0] == "ready":
                self._on_ready(str(message[1]), int(message[2]))
            elif message[0] == "failed":
                self._fail(f"could not load the embedding model in its process: {message[1]}")
            else:
                call_id, status, payload = message
                with self._lock:
                    future = self._pending.pop(call_id, None)
                if future is None:
                    continue
                if status == "ok":
                    future.set_result(payload)
                else:
                    future.set_exception(EmbeddingError(str(payload)))
        process.wait()
        if self._failure is None:
            with self._lock:
                stopping = self._process is not process
            if stopping and not self._pending:
                return
            self._fail(self._ended(process))

    def _on_ready(self, model_id: str, dim: int) -> None:
        if model_id != self.model_id or dim != self.dim:
            self._fail(
                f"the embedding process loaded {model_id} ({dim} dimensions), "
                f"expected {self.model_id} ({self.dim})"
            )
            self.close()
            return
        self._ready.set_result(None)

    def _fail(self, reason: str) -> None:
        """Every call waiting, and every later one, ends with ``reason``."""
        with self._lock:
            if self._failure is None:
                self._failure = reason
            pending = list(self._pending.values())
            self._pending.clear()
        if not self._ready.done():
            self._ready.set_exception(EmbeddingError(reason))
        for future in pending:
            if not future.done():
                future.set_exception(EmbeddingError(reason))

    def _ended(self, process: subprocess.Popen[bytes]) -> str:
        code = process.poll()
        status = f" (exit code {code})" if code is not None else ""
        return f"the embedding process ended unexpectedly{status}{self._stderr_tail()}"

    def _stderr_tail(self) -> str:
        if self._stderr is None:
            return ""
        try:
            self._stderr.seek(0, os.SEEK_END)
            size = self._stderr.tell()
            self._stderr.seek(max(0, size - STDERR_TAIL))
            tail = self._stderr.read().decode("utf-8", "replace").strip()
        except (OSError, ValueError):
            return ""
        return f": {tail.splitlines()[-1]}" if tail else ""

    def embed_documents(self, texts: Sequence[str]) -> FloatArray:
        if len(texts) == 0:
            return np.zeros((0, self.dim), dtype=np.float32)
        vectors: FloatArray = self._call("documents", list(texts))
        return vectors

    def embed_query(self, text: str) -> FloatArray:
        result: FloatArray = self._call("query", [text])
        return result

    @property
    def token_model(self) -> str | None:
        """The child's model counts tokens when the same embedder in this process could."""
        return self._identity.token_model if isinstance(self._identity, TokenCountingEmbedder) else None

    def embed_documents_counted(self, texts: Sequence[str]) -> tuple[FloatArray, list[int]]:
        if self.token_model is None:
            raise EmbeddingError(f"{self.model_id} does not count tokens")
        if len(texts) == 0:
            return np.zeros((0, self.dim), dtype=np.float32), []
        vectors, counts = self._call("counted", list(texts))
        return vectors, counts

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        if self.token_model is None:
            raise EmbeddingError(f"{self.model_id} does not count tokens")
        if len(texts) == 0:
            return []
        counts: list[int] = self._call("count", list(texts))
        return counts

    def _call(self, kind: str, texts: list[str]) -> Any:
        future: Future[Any] = Future()
        with self._lock:
            process = self._start_locked()
            call_id = self._next_call
            self._next_call += 1
            self._pending[call_id] = future
            try:
                assert process.stdin is not None
                write_message(process.stdin, (call_id, kind, texts))
            except (OSError, ValueError):
                self._pending.pop(call_id, None)
                failure = self._failure or self._ended(process)
                raise EmbeddingError(failure) from None
        return future.result()

    def close(self) -> None:
        """Stop the child: it finishes the calls it has, then ends; killed after STOP_TIMEOUT_S."""
        with self._lock:
            process, self._process = self._process, None
        if process is None:
            return
        try:
            assert process.stdin is not None
            process.stdin.close()
        except OSError:
            pass
        try:
            process.wait(timeout=STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            log.warning("the embedding process did not stop within %.0f s; killed", STOP_TIMEOUT_S)
            process.kill()
            process.wait()
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None

    def __repr__(self) -> str:
        return f"ChildProcessEmbedder(model_id={self.model_id!r}, running={self.running})"
