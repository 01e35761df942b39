"""Which files belong to which collection: each subfolder of the knowledge-base folder is a collection."""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path

from rabbithole.core.errors import InvalidRequestError
from rabbithole.ingestion.formats import accepted_types, supported_suffixes

#: the suffixes of the formats read (ingestion/formats.py)
SUPPORTED_SUFFIXES = frozenset(supported_suffixes())
_HASH_BLOCK = 1 << 20


@dataclass(frozen=True, slots=True)
class SkippedFile:
    """A file of the folder that is deliberately not ingested, with the reason."""

    file_name: str
    kind: str
    reason: str


@dataclass(frozen=True, slots=True)
class CollectionSource:
    """Files of one collection. `complete` means the folder was scanned whole, so files missing from it
    were removed by the user and leave the index too. `skipped`: links that are not followed. `reread`:
    the files are read again even where their content is unchanged (new OCR languages)."""

    collection: str
    root: Path
    files: tuple[Path, ...]
    complete: bool
    skipped: tuple[SkippedFile, ...] = field(default=())
    reread: bool = False

    def file_name(self, path: Path) -> str:
        """The name the file is known by: its path below the collection folder, always valid text."""
        return readable_name(path.relative_to(self.root).as_posix())

    def name_note(self, path: Path) -> str | None:
        """A note for a file whose name is not valid UTF-8 and had to be rewritten by `file_name`."""
        if not _has_surrogates(path.relative_to(self.root).as_posix()):
            return None
        return (
            f"the file name is not valid UTF-8; indexed as '{self.file_name(path)}' (rename the file to "
            "fix this)"
        )


def readable_name(name: str) -> str:
    """``name`` as valid UTF-8 text. A file name whose bytes are not UTF-8 (``b"Pr\\xfcf.pdf"``, from an
    old archive) reaches Python with surrogate escapes, which no database or JSON can hold: those bytes are
    written as ``\\xfc`` instead. Any other name is returned unchanged."""
    return os.fsencode(name).decode("utf-8", "backslashreplace") if _has_surrogates(name) else name


def _has_surrogates(name: str) -> bool:
    return any("\udc80" <= ch <= "\udcff" for ch in name)


def _is_document(path: Path) -> bool:
    return path.is_file() and path.suffix.lower() in SUPPORTED_SUFFIXES and not path.name.startswith(".")


def _outside(path: Path, root: Path) -> bool:
    try:
        path.resolve().relative_to(root)
    except ValueError:
        return True
    return False


def _scan(folder: Path) -> tuple[tuple[Path, ...], tuple[SkippedFile, ...]]:
    """Documents below ``folder`` and the links that are not followed: a link (to a file or a folder) whose
    target lies outside ``folder`` is skipped with a reason, so only what the folder holds is indexed;
    links that stay inside it are followed. Broken links are reported too."""
    documents: list[Path] = []
    skipped: list[SkippedFile] = []
    root = folder.resolve()
    for path in folder.rglob("*"):
        if path.name.startswith(".") or (path.is_dir() and not path.is_symlink()):
            continue
        if path.is_symlink():
            name = readable_name(path.relative_to(folder).as_posix())
            if not path.exists():
                skipped.append(SkippedFile(name, "broken_link", "a link to a file that does not exist"))
                continue
            if _outside(path, root):
                what = "folder" if path.is_dir() else "file"
                skipped.append(
                    SkippedFile(
                        name,
                        "outside_link",
                        f"a link to a {what} outside the collection folder; not followed (copy the file "
                        "in, or ingest the folder it is in)",
                    )
                )
                continue
        if _is_document(path) and not _outside(path, root):
            documents.append(path)
    return tuple(sorted(documents)), tuple(sorted(skipped, key=lambda s: s.file_name))


def discover(path: Path, collection: str | None = None) -> list[CollectionSource]:
    """A file, a collection folder (documents inside) or a knowledge-base folder (collections inside)."""
    path = path.expanduser().resolve()
    if not path.exists():
        raise InvalidRequestError(f"{path} does not exist")
    if path.is_file():
        if path.suffix.lower() not in SUPPORTED_SUFFIXES:
            raise InvalidRequestError(
                f"{path.name}: not a type that can be ingested; {accepted_types()} are read "
                f"({', '.join(sorted(SUPPORTED_SUFFIXES))})"
            )
        return [CollectionSource(collection or path.parent.name, path.parent, (path,), complete=False)]
    direct = [p for p in path.iterdir() if _is_document(p)]
    subfolders = sorted(p for p in path.iterdir() if p.is_dir() and not p.name.startswith("."))
    if direct or not subfolders:
        files, skipped = _scan(path)
        return [CollectionSource(collection or path.name, path, files, complete=True, skipped=skipped)]
    if collection is not None:
        raise InvalidRequestError(
            f"{path} holds collections ({', '.join(p.name for p in subfolders)}), not documents; "
            "drop --collection to ingest each subfolder as its own collection, or point at one subfolder"
        )
    sources = []
    for sub in subfolders:
        files, skipped = _scan(sub)
        sources.append(CollectionSource(sub.name, sub, files, complete=True, skipped=skipped))
    return sources


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
