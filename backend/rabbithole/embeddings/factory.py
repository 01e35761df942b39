"""Build the configured embedder from settings."""

from __future__ import annotations

from rabbithole.core.config import Settings, ollama_host_from_environment
from rabbithole.embeddings.base import Embedder
from rabbithole.embeddings.local import LocalModel, create_local_embedder


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
    return create_local_embedder(LocalModel.of(cfg), settings.storage.cache_dir)
