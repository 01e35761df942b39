"""Typed, nested settings (env prefix RABBITHOLE_, nested with "__", optional .env).

Examples: RABBITHOLE_STORAGE__DATA_DIR=/srv/rh, RABBITHOLE_LLM__MODEL=qwen3:8b,
RABBITHOLE_EMBEDDINGS__PROVIDER=sentence-transformers. See docs/configuration.md.

The groups live in modules of their own (``store``: storage, embeddings, ingestion; ``database``: SQLite
or PostgreSQL; ``search``: retrieval, references; ``runs``: research, report mode; ``network``: LLM, server,
web research; ``checks``: the checks of single values and the Ollama address); this module assembles them
into :class:`Settings` and loads it.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable, Mapping
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from rabbithole.core.config.accounts import AccountSettings
from rabbithole.core.config.checks import normalize_ollama_host, ollama_host_from_environment
from rabbithole.core.config.database import DatabaseSettings
from rabbithole.core.config.network import LLMSettings, ServerSettings, WebSettings
from rabbithole.core.config.runs import ReportSettings, ResearchSettings
from rabbithole.core.config.search import ReferenceSettings, RetrievalSettings
from rabbithole.core.config.store import (
    EmbeddingSettings,
    IngestionSettings,
    StorageSettings,
    VectorSettings,
)
from rabbithole.core.environment import deep_merge, dotenv_variables, values_from_variables, variable_fields
from rabbithole.core.errors import ConfigurationError

__all__ = [
    "ENV_FILE",
    "ENV_PREFIX",
    "EXTRA_VARIABLES",
    "DatabaseSettings",
    "EmbeddingSettings",
    "IngestionSettings",
    "LLMSettings",
    "ReferenceSettings",
    "ReportSettings",
    "ResearchSettings",
    "RetrievalSettings",
    "ServerSettings",
    "Settings",
    "StorageSettings",
    "VectorSettings",
    "WebSettings",
    "load_settings",
    "normalize_ollama_host",
    "ollama_host_from_environment",
    "unknown_variables",
]

ENV_PREFIX = "RABBITHOLE_"
#: read from the working directory, below the environment
ENV_FILE = ".env"
#: Variables with the prefix that are not settings but are read elsewhere (documented where they are used):
#: the benchmarks' data dir, and what docker-compose.yml reads (docs/deployment.md), which a `.env` beside
#: it holds, the same `.env` the CLI reads when run from there.
EXTRA_VARIABLES = frozenset(
    {
        "RABBITHOLE_BENCH_DIR",
        "RABBITHOLE_TOKEN",
        "RABBITHOLE_MODEL",
        "RABBITHOLE_PUBLISH",
        "RABBITHOLE_ALLOWED_HOSTS",
        "RABBITHOLE_ROOT_PATH",
        "RABBITHOLE_DB_PASSWORD",
    }
)

log = logging.getLogger(__name__)


class Settings(BaseModel):
    """Every setting; :func:`load_settings` fills it from ``RABBITHOLE_*`` variables and ``.env``
    (``Settings()`` alone is the defaults)."""

    # hide_input_in_errors: a validation error never echoes a value it was given (database.url's password)
    model_config = ConfigDict(extra="ignore", validate_default=True, hide_input_in_errors=True)

    kb_dir: Path = Field(Path("kb"), description="Each subfolder is a collection.")
    storage: StorageSettings = StorageSettings()
    database: DatabaseSettings = DatabaseSettings()
    vectors: VectorSettings = VectorSettings()
    embeddings: EmbeddingSettings = EmbeddingSettings()
    llm: LLMSettings = LLMSettings()
    ingestion: IngestionSettings = IngestionSettings()
    retrieval: RetrievalSettings = RetrievalSettings()
    references: ReferenceSettings = ReferenceSettings()
    research: ResearchSettings = ResearchSettings()
    report_mode: ReportSettings = ReportSettings()
    server: ServerSettings = ServerSettings()
    accounts: AccountSettings = AccountSettings()
    web_research: WebSettings = WebSettings()

    @field_validator("kb_dir")
    @classmethod
    def _expand(cls, value: Path) -> Path:
        return value.expanduser()


def unknown_variables(names: Iterable[str]) -> list[str]:
    """Warnings for ``RABBITHOLE_*`` names that set nothing (typos), with the closest known name."""
    known = set(variable_fields(Settings, ENV_PREFIX)) | EXTRA_VARIABLES
    messages = []
    for name in sorted({n.upper() for n in names if n.upper().startswith(ENV_PREFIX)}):
        if name in known:
            continue
        import difflib  # only for an unknown name, not at every start-up

        close = difflib.get_close_matches(name, sorted(known), n=1, cutoff=0.75)
        hint = f" (did you mean {close[0]}?)" if close else ""
        messages.append(f"unknown setting {name} is ignored{hint}; see docs/configuration.md")
    return messages


def _check_ollama_host(settings: Settings, environ: Mapping[str, str]) -> None:
    """OLLAMA_HOST is read when the LLM or the embedder talks to Ollama without an explicit address."""
    uses_it = (settings.llm.provider == "ollama" and not settings.llm.base_url) or (
        settings.embeddings.provider == "ollama" and settings.llm.provider != "ollama"
    )
    if uses_it and environ.get("OLLAMA_HOST", "").strip():
        ollama_host_from_environment()


def load_settings(**overrides: object) -> Settings:
    """Build settings from the environment, turning validation errors into one clear message (also for a
    malformed OLLAMA_HOST), and warn about ``RABBITHOLE_*`` variables that set nothing (typos)."""
    dotenv = dotenv_variables(Path(ENV_FILE))
    for message in unknown_variables([*os.environ, *dotenv]):
        log.warning(message)
    from_file = values_from_variables(Settings, dotenv, ENV_PREFIX)
    values = deep_merge(from_file, values_from_variables(Settings, os.environ, ENV_PREFIX))
    try:
        settings = Settings.model_validate(deep_merge(values, overrides))
        _check_ollama_host(settings, os.environ)
        return settings
    except ValidationError as exc:
        lines = []
        for err in exc.errors():
            where = ".".join(str(p) for p in err["loc"]) or "settings"
            env = "RABBITHOLE_" + "__".join(str(p).upper() for p in err["loc"])
            lines.append(f"  {where} ({env}): {err['msg']}")
        raise ConfigurationError("invalid configuration:\n" + "\n".join(lines)) from exc
