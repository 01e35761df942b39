"""Settings of what Rabbithole talks to over HTTP: the chat models, its own API server, and the optional web
research."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field, field_validator

from rabbithole.core.config.checks import (
    LOOPBACK_HOSTS,
    check_http_url,
    check_root_path,
    is_loopback,
    ollama_host_from_environment,
)
from rabbithole.core.errors import ConfigurationError

#: How structured output shows its schema in the system prompt (beside the format constraint).
SchemaPrompt = Literal["shape", "full"]


class LLMSettings(BaseModel):
    """Chat models: Ollama (primary and fallback model) or any OpenAI-compatible server."""

    provider: Literal["ollama", "openai"] = Field("ollama", description="ollama or openai (compatible).")
    model: str = Field("qwen3:8b", description="Primary chat model.")
    fallback_model: str | None = Field(
        None, description="Used when the primary model is missing or unreachable."
    )
    base_url: str | None = Field(
        None,
        description="Ollama address (default: $OLLAMA_HOST, else http://127.0.0.1:11434) or the "
        "OpenAI-compatible base URL (e.g. http://127.0.0.1:8080/v1).",
    )
    api_key: str = Field("not-needed", description="OpenAI-compatible endpoints only.")
    num_ctx: int = Field(8192, ge=512, le=1_048_576, description="Context window in tokens.")
    max_output_tokens: int = Field(2048, ge=16, description="Tokens reserved for the answer.")
    temperature: float = Field(0.0, ge=0.0, le=2.0, description="Sampling temperature.")
    structured_retries: int = Field(2, ge=0, le=10, description="Retries after invalid structured output.")
    schema_prompt: SchemaPrompt = Field(
        "shape",
        description="How a structured step's system prompt shows the answer's schema beside the format "
        "constraint the server enforces: shape (its keys, types and counts in a few lines) or full (the "
        "whole JSON schema, several times longer: the prompts before issue 24).",
    )
    request_timeout_s: float = Field(300.0, gt=0, description="Timeout of one model call.")
    on_overflow: Literal["trim", "refuse"] = Field(
        "trim", description="A prompt longer than num_ctx: trim the oldest context, or refuse."
    )

    @field_validator("base_url")
    @classmethod
    def _usable_base_url(cls, value: str | None) -> str | None:
        return check_http_url(value.strip().rstrip("/")) if value and value.strip() else None

    @property
    def resolved_base_url(self) -> str:
        if self.base_url:
            return self.base_url.rstrip("/")
        if self.provider == "ollama":
            return ollama_host_from_environment()
        raise ConfigurationError("llm.base_url is required when llm.provider is 'openai'")


#: The shortest server.token accepted (after stripping surrounding whitespace).
MIN_TOKEN_LENGTH = 16
#: Who may use the server: anyone who reaches it (loopback only), whoever has the one token, or accounts.
AuthMode = Literal["none", "token", "accounts"]


class ServerSettings(BaseModel):
    """The HTTP API (`rabbithole serve`): where it listens and who may talk to it."""

    host: str = Field(
        "127.0.0.1",
        min_length=1,
        description="Interface to listen on. Any address other than a loopback one requires server.token "
        "or server.auth accounts.",
    )
    port: int = Field(8000, ge=1, le=65535, description="Port to listen on.")
    token: str = Field(
        "",
        description="Token every API request must carry: `Authorization: Bearer TOKEN`, or the session "
        "cookie the web app gets from POST /api/session; empty: none. Required when server.host is not a "
        "loopback address, unless server.auth is accounts (then it must be empty). At least "
        f"{MIN_TOKEN_LENGTH} characters (surrounding whitespace is not counted).",
    )
    auth: AuthMode | None = Field(
        None,
        description="Who may use the server: none (anyone who reaches it: loopback only), token (the one "
        "server.token) or accounts (people sign in with their own account; `rabbithole users add`; who "
        "sees which collection and run is checked on every request). Unset: token when server.token is "
        "set, else none.",
    )
    allowed_hosts: list[str] = Field(
        [],
        description="Host names (the `Host:` header) served besides 127.0.0.1, localhost, ::1 and "
        "server.host; '*' serves any (turns off the DNS-rebinding guard). JSON list in the environment.",
    )
    cors_origins: list[str] = Field(
        [],
        description='Browser origins allowed to call the API, e.g. ["http://localhost:5173"]; empty: none.',
    )
    max_request_kb: int = Field(
        1024, ge=1, le=1_048_576, description="Largest request body other than an upload, in KiB."
    )
    max_upload_mb: float = Field(
        512.0, gt=0, le=65_536, description="Largest upload request (all files of one POST), in MiB."
    )
    warm_up: bool = Field(
        True,
        description="Load the embedder, the searcher and the BM25 indexes at start-up, so the first search "
        "is fast (/health says `starting` until done).",
    )
    root_path: str = Field(
        "",
        description="The path prefix under which a reverse proxy serves the app (e.g. /research for "
        "https://host/research/); the proxy strips it before forwarding. Empty: served at /.",
    )
    web_dir: Path | None = Field(
        None,
        description="The built web app (index.html and assets/) served at /; default: frontend/dist of the "
        "source checkout.",
    )

    @field_validator("host")
    @classmethod
    def _strip(cls, value: str) -> str:
        return value.strip()

    @field_validator("token")
    @classmethod
    def _long_token(cls, value: str) -> str:
        token = value.strip()
        if value and len(token) < MIN_TOKEN_LENGTH:
            what = f"{len(token)} characters" if token else "only whitespace"
            raise ValueError(
                f"the token is {what}, too easy to guess: use at least {MIN_TOKEN_LENGTH} characters "
                "(e.g. `openssl rand -hex 32`), or leave it empty for no token"
            )
        return token

    @field_validator("root_path")
    @classmethod
    def _usable_root_path(cls, value: str) -> str:
        return check_root_path(value)

    @property
    def auth_mode(self) -> AuthMode:
        """server.auth, or (unset) token when a token is set, else none."""
        if self.auth is not None:
            return self.auth
        return "token" if self.token else "none"

    def require_token_off_loopback(self) -> None:
        """ConfigurationError when the server would listen beyond this machine with no token and no
        accounts, or when server.auth contradicts server.token (``check_auth``)."""
        self.check_auth()
        if not is_loopback(self.host) and self.auth_mode == "none":
            raise ConfigurationError(
                f"refusing to listen on {self.host} without a token: anyone who can reach it could read "
                "your documents. Set RABBITHOLE_SERVER__TOKEN (a long random string; clients send "
                "`Authorization: Bearer TOKEN`), or RABBITHOLE_SERVER__AUTH=accounts (people sign in: "
                "`rabbithole users add NAME`), or listen on 127.0.0.1."
            )

    def check_auth(self) -> None:
        """ConfigurationError when server.auth is token without a token, or none with one."""
        if self.auth == "token" and not self.token:
            raise ConfigurationError(
                "server.auth is token but server.token is empty: set RABBITHOLE_SERVER__TOKEN (a long "
                "random string), or choose server.auth accounts"
            )
        if self.auth == "accounts" and self.token:
            raise ConfigurationError(
                "server.auth is accounts but server.token is set: with accounts every person signs in and "
                "scripts use personal tokens (`rabbithole tokens create NAME`); remove server.token (a proxy "
                "that adds it would give everyone one identity)"
            )
        if self.auth == "none" and self.token:
            raise ConfigurationError(
                "server.auth is none but server.token is set: choose server.auth token (or leave it unset), "
                "or remove the token"
            )

    def served_hosts(self) -> list[str]:
        """The `Host:` names the server answers to (["*"]: any)."""
        if "*" in self.allowed_hosts:
            return ["*"]
        names = [*LOOPBACK_HOSTS, *self.allowed_hosts]
        if self.host not in ("0.0.0.0", "::"):
            names.append(self.host)
        return list(dict.fromkeys(names))


class WebSettings(BaseModel):
    """Optional web research (off by default: Rabbithole is local first). With a self-hosted SearxNG address
    set, a report section may also search the web: result pages are fetched, their main text extracted,
    scored against the section's questions and cut into short verbatim passages cited as web sources."""

    searxng_url: str | None = Field(
        None,
        description="Base URL of a self-hosted SearxNG with the JSON format enabled (e.g. "
        "http://127.0.0.1:8888); unset: no web research.",
    )
    search_timeout_s: float = Field(10.0, gt=0, le=300, description="Timeout of one SearxNG search.")
    fetch_timeout_s: float = Field(10.0, gt=0, le=300, description="Timeout of fetching one result page.")
    max_results: int = Field(5, ge=1, le=50, description="Results taken from each search query.")
    max_pages: int = Field(8, ge=1, le=100, description="Result pages fetched per web research call.")
    max_page_bytes: int = Field(
        2_000_000, ge=1024, le=100_000_000, description="Larger pages are not read (a warning says so)."
    )
    max_redirects: int = Field(3, ge=0, le=20, description="Redirects followed per page.")
    content_types: list[str] = Field(
        ["text/html", "application/xhtml+xml", "text/plain"],
        min_length=1,
        description="Media types of pages that are read; others are skipped with a warning.",
    )
    allow_private_addresses: bool = Field(
        False,
        description="Fetch result pages on loopback and private network addresses (off: a result or a "
        "redirect that points into the local network is refused).",
    )
    concurrency: int = Field(4, ge=1, le=32, description="Pages fetched at once.")
    min_relevance: float = Field(
        0.3, ge=0.0, le=1.0, description="Passages scoring lower against every question are not kept."
    )
    lexical_weight: float = Field(
        0.3,
        ge=0.0,
        le=1.0,
        description="Weight of the question words a passage contains in its score (the embedding "
        "similarity gets the rest).",
    )
    passage_chars: int = Field(600, ge=100, le=5000, description="Longest passage kept, in characters.")
    budget_chars: int = Field(
        6000, ge=200, le=200_000, description="Characters of passages kept per web research call in all."
    )
    passages_per_page: int = Field(3, ge=1, le=50, description="Passages kept from one page at most.")
    user_agent: str = Field(
        "Rabbithole (local research assistant)", min_length=1, description="User-Agent of web requests."
    )

    @field_validator("searxng_url")
    @classmethod
    def _usable_searxng_url(cls, value: str | None) -> str | None:
        return check_http_url(value.strip().rstrip("/")) if value and value.strip() else None
