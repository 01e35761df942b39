"""Which files belong to which collection: each subfolder of the knowledge-base folder is a collection."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from rabbithole.core.errors import InvalidRequestError

SUPPORTED_SUFFIXES = frozenset({".pdf"})
_HASH_BLOCK = 1 << 20


@dataclass(frozen=True, slots=True)
class CollectionSource:
    """Files of one collection. `complete` means the folder was scanned whole, so files missing from it
    were removed by the user and leave the index too."""

    collection: str
    root: Path
    files: tuple[Path, ...]
    complete: bool

    def file_name(self, path: Path) -> str:
        return path.relative_to(self.root).as_posix()


def _is_document(path: Path) -> bool:
    return path.is_file() and path.suffix.lower() in SUPPORTED_SUFFIXES and not path.name.startswith(".")


def _documents_below(folder: Path) -> tuple[Path, ...]:
    return tuple(sorted(p for p in folder.rglob("*") if _is_document(p)))


def discover(path: Path, collection: str | None = None) -> list[CollectionSource]:
    """A file, a collection folder (documents inside) or a knowledge-base folder (collections inside)."""
    path = path.expanduser().resolve()
    if not path.exists():
        raise InvalidRequestError(f"{path} does not exist")
    if path.is_file():
        if path.suffix.lower() not in SUPPORTED_SUFFIXES:
            raise InvalidRequestError(f"{path.name}: only PDF files can be ingested")
        return [CollectionSource(collection or path.parent.name, path.parent, (path,), complete=False)]
    direct = [p for p in path.iterdir() if _is_document(p)]
    subfolders = sorted(p for p in path.iterdir() if p.is_dir() and not p.name.startswith("."))
    if direct or not subfolders:
        return [CollectionSource(collection or path.name, path, _documents_below(path), complete=True)]
    if collection is not None:
        raise InvalidRequestError(
            f"{path} holds collections ({', '.join(p.name for p in subfolders)}), not documents; "
            "drop --collection to ingest each subfolder as its own collection, or point at one subfolder"
        )
    return [CollectionSource(sub.name, sub, _documents_below(sub), complete=True) for sub in subfolders]


def content_hash(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(_HASH_BLOCK):
            digest.update(block)
    return digest.hexdigest()


def validate_collection_name(name: str) -> str:
    cleaned = name.strip()
    if not cleaned or len(cleaned) > 60 or not all(c.isalnum() or c in "-_." for c in cleaned):
        raise InvalidRequestError(
            f"invalid collection name '{name}': use 1-60 letters, digits, '-', '_' or '.'"
        )
    return cleaned
