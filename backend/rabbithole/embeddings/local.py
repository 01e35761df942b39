"""The embedding models that run on this machine, built from a plain :class:`LocalModel`: what
``create_embedder`` builds for them, and what the embedding process builds. That process imports nothing of
the settings: pydantic and the configuration would cost its start about a tenth of a second of CPU, before
the model can load."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rabbithole.core.config import EmbeddingSettings
    from rabbithole.embeddings.base import Embedder


@dataclass(frozen=True, slots=True)
class LocalModel:
    """What builds a local embedder: the settings' provider, model, threads and batch size (sent to the
    embedding process as it is: the protocol pickles, and both ends are the same installation)."""

    provider: str
    model: str
    threads: int
    batch_size: int

    @classmethod
    def of(cls, cfg: EmbeddingSettings) -> LocalModel:
        return cls(cfg.provider, cfg.model, cfg.threads, cfg.batch_size)


def create_local_embedder(spec: LocalModel, cache_dir: Path | None) -> Embedder:
    """A model that runs on this machine (every provider but ollama). Cheap: models load on first use.
    ``cache_dir``: where the USE tokenizer keeps its parsed pieces."""
    if spec.provider == "use-multilingual":
        from rabbithole.embeddings.use_multilingual import UseMultilingualEmbedder

        return UseMultilingualEmbedder(threads=spec.threads, batch_size=spec.batch_size, cache_dir=cache_dir)
    if spec.provider == "e5-multilingual":
        from rabbithole.embeddings.e5_multilingual import E5MultilingualEmbedder

        return E5MultilingualEmbedder(threads=spec.threads, batch_size=spec.batch_size)
    if spec.provider == "sentence-transformers":
        from rabbithole.embeddings.sentence_transformers import SentenceTransformerEmbedder

        return SentenceTransformerEmbedder(spec.model, batch_size=spec.batch_size)
    raise ValueError(f"embedding provider {spec.provider!r} is not a local model")
