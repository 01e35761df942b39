"""Embeddings from a local Ollama server: POST {base_url}/api/embed {"model", "input": [...]}
-> {"embeddings": [[...], ...]}."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import httpx
import numpy as np

from rabbithole.core.errors import EmbeddingError
from rabbithole.embeddings.base import FloatArray, batched, l2_normalize


def canonical_model_name(model: str) -> str:
    """Ollama resolves "name" to "name:latest"; use the tagged form so both spell one identity."""
    model = model.strip()
    last = model.rsplit("/", 1)[-1]
    return model if ":" in last else f"{model}:latest"


class OllamaEmbedder:
    """Thread-safe (httpx.Client is); the dimension is learned from the first response (or a probe)."""

    def __init__(
        self,
        model: str,
        base_url: str,
        *,
        batch_size: int = 32,
        timeout_s: float = 120.0,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        if not model:
            raise EmbeddingError("the Ollama embedding provider needs a model name")
        self.model = canonical_model_name(model)
        self.base_url = base_url.rstrip("/")
        self.batch_size = batch_size
        self.timeout_s = timeout_s
        self._transport = transport
        self._client: httpx.Client | None = None
        self._dim: int | None = None
        self._lock = threading.Lock()

    @property
    def model_id(self) -> str:
        return f"ollama:{self.model}"

    @property
    def dim(self) -> int:
        if self._dim is None:
            self._embed_batch(["dimension probe"])
        assert self._dim is not None
        return self._dim

    def _http(self) -> httpx.Client:
        with self._lock:
            if self._client is None:
                self._client = httpx.Client(
                    base_url=self.base_url, timeout=self.timeout_s, transport=self._transport
                )
            return self._client

    def close(self) -> None:
        with self._lock:
            if self._client is not None:
                self._client.close()
                self._client = None

    def _embed_batch(self, texts: Sequence[str]) -> FloatArray:
        where = f"Ollama at {self.base_url}"
        try:
            response = self._http().post("/api/embed", json={"model": self.model, "input": list(texts)})
        except httpx.TimeoutException as exc:
            raise EmbeddingError(f"{where} did not answer within {self.timeout_s:.0f} s") from exc
        except httpx.HTTPError as exc:
            raise EmbeddingError(
                f"cannot reach {where} for embeddings ({exc}); is `ollama serve` running?"
            ) from exc
        if response.status_code != 200:
            detail = _error_text(response)
            if response.status_code == 404 or "not found" in detail.lower():
                raise EmbeddingError(
                    f"{where} does not have the embedding model '{self.model}' ({detail}); "
                    f"run `ollama pull {self.model}`"
                )
            raise EmbeddingError(
                f"{where} refused the embedding request: HTTP {response.status_code} {detail}"
            )
        try:
            payload: Any = response.json()
            vectors = np.asarray(payload["embeddings"], dtype=np.float32)
        except Exception as exc:
            raise EmbeddingError(f"{where} sent an unexpected embedding response: {exc}") from exc
        if vectors.ndim != 2 or vectors.shape[0] != len(texts) or vectors.shape[1] == 0:
            raise EmbeddingError(
                f"{where} returned {vectors.shape[0] if vectors.ndim else 0} embeddings of shape "
                f"{vectors.shape} for {len(texts)} texts"
            )
        if self._dim is None:
            self._dim = int(vectors.shape[1])
        elif vectors.shape[1] != self._dim:
            raise EmbeddingError(
                f"{where} returned {vectors.shape[1]}-dimensional embeddings, earlier ones had {self._dim}"
            )
        return l2_normalize(vectors)

    def embed_documents(self, texts: Sequence[str]) -> FloatArray:
        if len(texts) == 0:
            return np.zeros((0, self._dim or 0), dtype=np.float32)
        parts = [self._embed_batch(batch) for batch in batched(list(texts), self.batch_size)]
        return np.concatenate(parts, axis=0)

    def embed_query(self, text: str) -> FloatArray:
        result: FloatArray = self._embed_batch([text])[0]
        return result

    def __repr__(self) -> str:
        return f"OllamaEmbedder(model={self.model!r}, base_url={self.base_url!r})"


def _error_text(response: httpx.Response) -> str:
    try:
        body = response.json()
        if isinstance(body, dict) and "error" in body:
            return str(body["error"])
    except ValueError:
        pass
    return response.text[:300]
