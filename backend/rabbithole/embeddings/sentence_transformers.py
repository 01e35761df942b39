"""Any sentence-transformers model, by Hugging Face name (must already be in the local cache) or by local
path. Rabbithole never downloads models: unless HF_HUB_OFFLINE=0 is set explicitly, loading runs offline
and a missing model fails fast with an EmbeddingError that says what to do."""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from rabbithole.core.errors import EmbeddingError
from rabbithole.embeddings.base import FloatArray, l2_normalize


def _offline() -> bool:
    return os.environ.get("HF_HUB_OFFLINE", "1").strip().lower() not in ("0", "false", "no", "off")


class SentenceTransformerEmbedder:
    """sentence-transformers model loaded lazily (first use or :meth:`load`), guarded by a lock.

    Query/document prompts configured in the model (e.g. E5's "query: ") are applied through
    ``encode_query``/``encode_document`` where the installed sentence-transformers has them.
    """

    def __init__(self, model: str, batch_size: int = 32, device: str | None = None) -> None:
        if not model:
            raise EmbeddingError("sentence-transformers needs a model name or a local path")
        self.model_name = model
        self.batch_size = batch_size
        self.device = device
        self._model: Any = None
        self._dim: int | None = None
        self._lock = threading.Lock()

    @property
    def model_id(self) -> str:
        return f"sentence-transformers:{self.model_name}"

    @property
    def dim(self) -> int:
        if self._dim is None:
            self.load()
        assert self._dim is not None
        return self._dim

    def load(self) -> None:
        with self._lock:
            self._load_locked()

    def _load_locked(self) -> Any:
        if self._model is not None:
            return self._model
        offline = _offline()
        if offline:
            # huggingface_hub reads these when it is first imported.
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError as exc:
            raise EmbeddingError(
                "embedding provider 'sentence-transformers' needs the package sentence-transformers"
            ) from exc
        path = os.path.expanduser(self.model_name)
        is_local = os.path.isdir(path)
        try:
            model = SentenceTransformer(
                path if is_local else self.model_name,
                device=self.device,
                local_files_only=offline,
            )
        except Exception as exc:
            if is_local:
                hint = f"the folder '{path}' does not hold a loadable sentence-transformers model"
            elif offline:
                hint = (
                    "it is neither a local folder nor in the local Hugging Face cache, and Rabbithole does "
                    "not download models (offline). Give embeddings.model as the path of a local model "
                    "folder, or fetch the model once into the cache (HF_HUB_OFFLINE=0)"
                )
            else:
                hint = "loading failed"
            raise EmbeddingError(
                f"sentence-transformers model '{self.model_name}' could not be loaded: {hint} ({exc})"
            ) from exc
        get_dim = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
        dim = get_dim()
        if not dim:
            dim = int(np.asarray(model.encode(["dimension probe"])).shape[-1])
        self._dim = int(dim)
        self._model = model
        return model

    def _encode(self, texts: list[str], kind: str) -> FloatArray:
        with self._lock:
            model = self._load_locked()
            encode = getattr(model, f"encode_{kind}", None) or model.encode
            try:
                vectors = encode(
                    texts,
                    batch_size=self.batch_size,
                    show_progress_bar=False,
                    convert_to_numpy=True,
                    normalize_embeddings=True,
                )
            except Exception as exc:
                raise EmbeddingError(f"sentence-transformers embedding failed: {exc}") from exc
        return l2_normalize(vectors)

    def embed_documents(self, texts: Sequence[str]) -> FloatArray:
        if len(texts) == 0:
            return np.zeros((0, self.dim), dtype=np.float32)
        return self._encode(list(texts), "document")

    def embed_query(self, text: str) -> FloatArray:
        result: FloatArray = self._encode([text], "query")[0]
        return result

    def __repr__(self) -> str:
        return f"SentenceTransformerEmbedder(model={self.model_name!r})"
