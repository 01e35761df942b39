"""Is the configured LLM server up, and does it have the configured models?"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import httpx

from rabbithole.core.config import LLMSettings


@dataclass
class LLMStatus:
    """What ``probe`` found at the configured address."""

    provider: str
    base_url: str
    reachable: bool
    models: list[str] = field(default_factory=list)
    primary_available: bool = False
    fallback_available: bool | None = None
    error: str | None = None

    @property
    def usable(self) -> bool:
        return self.reachable and (self.primary_available or bool(self.fallback_available))


def model_listed(name: str, listed: Sequence[str]) -> bool:
    """Whether ``name`` is among a server's models (a name without tag means ``:latest``)."""
    return name in listed or (":" not in name and f"{name}:latest" in listed)


def probe(settings: LLMSettings, base_url: str, timeout_s: float = 5.0) -> LLMStatus:
    """List the server's models (Ollama: GET /api/tags; OpenAI-compatible: GET /models)."""
    ollama = settings.provider == "ollama"
    path = "/api/tags" if ollama else "/models"
    headers = {} if ollama else {"Authorization": f"Bearer {settings.api_key}"}
    try:
        response = httpx.get(base_url + path, timeout=timeout_s, headers=headers)
        response.raise_for_status()
        body = response.json()
    except (httpx.HTTPError, ValueError) as exc:
        return LLMStatus(settings.provider, base_url, False, error=f"{type(exc).__name__}: {exc}")
    if ollama:
        listed = [str(m.get("model") or m.get("name")) for m in body.get("models", [])]
    else:
        listed = [str(m.get("id")) for m in body.get("data", [])]
    fallback = settings.fallback_model
    return LLMStatus(
        settings.provider,
        base_url,
        True,
        models=listed,
        primary_available=model_listed(settings.model, listed),
        fallback_available=model_listed(fallback, listed) if fallback else None,
    )
