"""The database setting: unset, SQLite files in the data folder (one person, one machine); a PostgreSQL URL,
that database for the catalog, the runs, their events and the research checkpoints (a team's server).

The URL's password is never shown: :func:`redact_url` is what messages, logs and /health print."""

from __future__ import annotations

from urllib.parse import unquote, urlsplit, urlunsplit

from pydantic import BaseModel, ConfigDict, Field, field_validator

#: The schemes ``database.url`` accepts (psycopg 3 is the driver whichever is written).
POSTGRES_SCHEMES = ("postgresql", "postgres", "postgresql+psycopg")


def redact_url(url: str) -> str:
    """``url`` with its password replaced by ``***`` (the user, host, port and database stay)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "(an unreadable URL)"
    if parts.password is None:
        return url
    user = parts.username or ""
    host = parts.netloc.rsplit("@", 1)[-1]
    return urlunsplit(parts._replace(netloc=f"{user}:***@{host}"))


def check_database_url(value: str) -> str:
    """``value`` if it is empty or a PostgreSQL URL with a host and a database; ValueError saying why (the
    URL shown without its password) if not."""
    value = value.strip()
    if not value:
        return ""
    shown = redact_url(value)
    try:
        parts = urlsplit(value)
        _ = parts.port  # raises for a port that is not a number in 0-65535
    except ValueError as exc:
        raise ValueError(f"'{shown}' is not a valid URL ({exc})") from None
    if parts.scheme not in POSTGRES_SCHEMES:
        raise ValueError(f"'{shown}' is not a postgresql:// URL (postgresql://user:password@host:5432/db)")
    if not parts.hostname:
        raise ValueError(f"'{shown}' has no host name")
    if not unquote(parts.path.lstrip("/")):
        raise ValueError(f"'{shown}' names no database (postgresql://user:password@host:5432/db)")
    return value


class DatabaseSettings(BaseModel):
    """Where the catalog (collections, documents, pages, chunks), the research runs, their events and the
    research checkpoints live. Unset: SQLite files in storage.data_dir (catalog.sqlite3, checkpoints.sqlite3).
    A PostgreSQL URL: that database, whose schema `rabbithole migrate` (or any start) brings up to date;
    several servers can share it (docs/deployment.md, "PostgreSQL"). The password is never printed."""

    # a validation error never echoes the URL it was given (its password); Settings says so too
    model_config = ConfigDict(hide_input_in_errors=True)

    url: str = Field(
        "",
        repr=False,
        description="postgresql://user:password@host:5432/database (driver: psycopg 3). Unset: SQLite in "
        "storage.data_dir.",
    )

    @field_validator("url")
    @classmethod
    def _postgres_url(cls, value: str) -> str:
        return check_database_url(value)

    @property
    def is_postgresql(self) -> bool:
        return bool(self.url)

    @property
    def display_url(self) -> str:
        """The URL as messages show it: without its password."""
        return redact_url(self.url)
