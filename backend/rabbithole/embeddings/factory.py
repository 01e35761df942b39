"""Build the configured embedder from settings."""

from __future__ import annotations

from pathlib import Path

from rabbithole.core.config import EmbeddingSettings, Settings, ollama_host_from_environment
from rabbithole.embeddings.base import Embedder


def ollama_base_url(settings: Settings) -> str:
    """The Ollama address: the LLM's when the LLM runs on Ollama, else $OLLAMA_HOST or the default."""
    if settings.llm.provider == "ollama":
        return settings.llm.resolved_base_url
    return ollama_host_from_environment()


def create_embedder(settings: Settings) -> Embedder:
    """The embedder configured in ``settings.embeddings``. Cheap: models load on first use."""
    cfg = settings.embeddings
    if cfg.provider == "ollama":
        from rabbithole.embeddings.ollama import OllamaEmbedder

        return OllamaEmbedder(
            cfg.model,
            ollama_base_url(settings),
            batch_size=cfg.batch_size,
            timeout_s=settings.llm.request_timeout_s,
        )
    return create_local_embedder(cfg, settings.storage.cache_dir)


def create_local_embedder(cfg: EmbeddingSettings, cache_dir: Path | None) -> Embedder:
    """A model that runs on this machine (every provider but ollama): also what the embedding process
    builds. ``cache_dir``: where the USE tokenizer keeps its parsed pieces."""
    if cfg.provider == "use-multilingual":
        from rabbithole.embeddings.use_multilingual import UseMultilingualEmbedder

        return UseMultilingualEmbedder(threads=cfg.threads, batch_size=cfg.batch_size, cache_dir=cache_dir)
    if cfg.provider == "e5-multilingual":
        from rabbithole.embeddings.e5_multilingual import E5MultilingualEmbedder

        return E5MultilingualEmbedder(threads=cfg.threads, batch_size=cfg.batch_size)
    if cfg.provider == "sentence-transformers":
        from rabbithole.embeddings.sentence_transformers import SentenceTransformerEmbedder

        return SentenceTransformerEmbedder(cfg.model, batch_size=cfg.batch_size)
    raise ValueError(f"embedding provider {cfg.provider!r} is not a local model")
