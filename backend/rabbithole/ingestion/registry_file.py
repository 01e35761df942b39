"""Which registry file a collection folder has, and its digest: how ingestion notices that the user edited
it. Standard library only, so the light re-run check (`unchanged.py`) can use it without the registry code."""

from __future__ import annotations

import hashlib
from pathlib import Path

REGISTRY_FILE = "registry.yaml"


def file_digest(path: Path) -> str:
    """SHA-256 of the file's bytes, "" when there is no such file."""
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else ""


def user_file_digest(folder: Path) -> str:
    """The digest of ``folder``'s registry.yaml ("" without one)."""
    return file_digest(folder / REGISTRY_FILE)
