"""Render the settings reference (docs/configuration.md) from the Settings model itself, so it stays true."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

from rabbithole.core.config import Settings

HEADER = """# Configuration

Rabbithole reads one typed settings object at start-up. Every setting comes from an environment variable with
the prefix `RABBITHOLE_`, nested groups joined with `__` (for example `RABBITHOLE_LLM__MODEL=qwen3:8b`),
or from a `.env` file in the working directory (the environment wins over `.env`). Letter case does not
matter. A list is written as JSON (`RABBITHOLE_SERVER__CORS_ORIGINS='["http://localhost:5173"]'`), and so
is a whole group in one variable (`RABBITHOLE_LLM='{"model": "qwen3:8b"}'`; a field set on its own wins over
its group). Invalid values stop start-up with a message naming the variable (the CLI exits with code 78,
`rabbithole serve` does not start): a malformed URL or port in `RABBITHOLE_LLM__BASE_URL` or
`OLLAMA_HOST`, a `storage.data_dir` that is a file or cannot be created, a value of the wrong type or out
of range, a list that is not JSON. A `RABBITHOLE_*` variable that sets nothing (a typo such as
`RABBITHOLE_LLM__MODLE`) is reported as a warning naming the closest setting. `RABBITHOLE_BENCH_DIR` is
read by the benchmarks only (see docs/benchmarks.md); `RABBITHOLE_TOKEN`, `RABBITHOLE_MODEL`,
`RABBITHOLE_PUBLISH`, `RABBITHOLE_ALLOWED_HOSTS`, `RABBITHOLE_ROOT_PATH` and `RABBITHOLE_DB_PASSWORD` (the
`team` profile's PostgreSQL) by docker-compose.yml (see docs/deployment.md), so a `.env` that holds them draws
no warning.

All data Rabbithole writes (Chroma, the SQLite catalog, BM25 indexes) lives under `storage.data_dir`.
The Ollama address is `llm.base_url` if set, else `$OLLAMA_HOST` (interpreted as Ollama's own tools do),
else `http://127.0.0.1:11434`.

This page is generated from `backend/rabbithole/core/config/` by
`python -m rabbithole.core.config_docs > docs/configuration.md`; a test keeps it in sync.
"""


def _type_name(info: FieldInfo) -> str:
    text = str(info.annotation).replace("typing.", "").replace("pathlib.", "")
    for prefix in ("<class '",):
        text = text.replace(prefix, "")
    return text.replace("'>", "")


def _default(info: FieldInfo) -> str:
    value: Any = info.default
    if value is PydanticUndefined:
        return "(required)"
    if isinstance(value, BaseModel):
        return ""
    return f"`{value}`" if value not in (None, "") else "(unset)"


def _rows(model: type[BaseModel], prefix: str) -> list[str]:
    rows = []
    for name, info in model.model_fields.items():
        annotation = info.annotation
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            continue
        env = f"RABBITHOLE_{prefix}{name.upper()}"
        description = (info.description or "").replace("|", "\\|")
        rows.append(f"| `{env}` | {_type_name(info)} | {_default(info)} | {description} |")
    return rows


def _nested(model: type[BaseModel], path: str) -> list[str]:
    """A group's own groups (ingestion.ocr), each a table of its own after the group's."""
    parts: list[str] = []
    for name, info in model.model_fields.items():
        annotation = info.annotation
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            dotted = f"{path}.{name}"
            doc = (annotation.__doc__ or "").strip()
            parts += ["", f"## {dotted}\n"]
            if doc:
                parts += [doc, ""]
            parts += ["| variable | type | default | meaning |", "|---|---|---|---|"]
            parts += _rows(annotation, dotted.upper().replace(".", "__") + "__")
            parts += _nested(annotation, dotted)
    return parts


def render() -> str:
    parts = [HEADER, "## General\n", "| variable | type | default | meaning |", "|---|---|---|---|"]
    parts += _rows(Settings, "")
    for name, info in Settings.model_fields.items():
        annotation = info.annotation
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            doc = (annotation.__doc__ or "").strip()
            parts += ["", f"## {name}\n"]
            if doc:
                parts += [doc, ""]
            parts += ["| variable | type | default | meaning |", "|---|---|---|---|"]
            parts += _rows(annotation, f"{name.upper()}__")
            parts += _nested(annotation, name)
    return "\n".join(parts) + "\n"


if __name__ == "__main__":
    print(render(), end="")
