"""A collection's OCR as its users see it: the languages its scans are read in (its own or the server's
default), the documents OCR read in other languages, and, to read those again, where their originals are.

    ocr = collection_ocr(catalog, settings.ocr, "permits")
    ocr.languages, ocr.own, ocr.read_otherwise      # ("deu",), True, {"scan.pdf": ("deu", "eng")}
    plan = reread_plan(catalog, uploads, "permits") # the originals by folder, and those that are gone
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from rabbithole.catalog.repository import Catalog
from rabbithole.core.config.ocr import OcrSettings
from rabbithole.core.errors import RabbitholeError
from rabbithole.ingestion.discovery import readable_name
from rabbithole.ingestion.ocr.languages import effective_languages

if TYPE_CHECKING:
    from rabbithole.ingestion.pipeline import IngestionPipeline
    from rabbithole.ingestion.reports import CollectionReport, IngestEvent


class NothingToRereadError(RabbitholeError):
    """No document of the collection was read by OCR in other languages than its own (HTTP 409)."""

    http_status = 409
    exit_code = 65


@dataclass(frozen=True, slots=True)
class CollectionOcr:
    """``languages``: what the collection's scans are read in; ``own``: its own setting (else the server's
    ``ingestion.ocr.languages``); ``read_by_ocr``: file name -> the languages OCR read it in, for each
    document with a page read by OCR (() where they are not known); ``read_otherwise``: those read in other
    languages than ``languages``."""

    languages: tuple[str, ...]
    own: bool
    read_by_ocr: dict[str, tuple[str, ...]]

    @property
    def read_otherwise(self) -> dict[str, tuple[str, ...]]:
        return {name: used for name, used in self.read_by_ocr.items() if used != self.languages}


def collection_ocr(
    catalog: Catalog, settings: OcrSettings, collection: str, own: Sequence[str] | None = None
) -> CollectionOcr:
    """``own``: the collection's own languages where the caller holds its record (None: read them)."""
    own = catalog.ocr_languages(collection) if own is None else tuple(own)
    languages = effective_languages(own, settings)
    return CollectionOcr(languages, bool(own), catalog.documents_read_by_ocr(collection))


@dataclass(slots=True)
class RereadPlan:
    """The originals of the documents to read again, by the folder they were ingested from (a document's
    name is its path below that folder), and the documents whose original is gone, with the reason."""

    by_root: dict[Path, list[Path]] = field(default_factory=dict)
    missing: dict[str, str] = field(default_factory=dict)

    @property
    def file_names(self) -> list[str]:
        found = [readable_name(p.relative_to(r).as_posix()) for r, ps in self.by_root.items() for p in ps]
        return sorted(found)

    def read_again(
        self,
        pipeline: IngestionPipeline,
        collection: str,
        progress: Callable[[IngestEvent], None] | None = None,
    ) -> list[CollectionReport]:
        """Read the originals again into ``collection`` (unchanged content too), a run per folder."""
        return [
            pipeline.ingest_files(collection, root, paths, progress, reread=True)
            for root, paths in self.by_root.items()
        ]


def reread_plan(
    catalog: Catalog,
    settings: OcrSettings,
    collection: str,
    find_upload: Callable[[str, str], Path | None],
) -> RereadPlan:
    """Where the originals of the documents read in other languages are (NothingToRereadError when there
    is none). ``find_upload(collection, file_name)``: an upload stored before the catalog recorded paths."""
    ocr = collection_ocr(catalog, settings, collection)
    if not ocr.read_otherwise:
        raise NothingToRereadError(
            f"no document of collection '{collection}' was read by OCR in other languages than "
            f"{'+'.join(ocr.languages)}"
        )
    plan = RereadPlan()
    for file_name in ocr.read_otherwise:
        source = catalog.document_source(collection, file_name)
        path = source[0] if source is not None else find_upload(collection, file_name)
        root = _root_of(path, file_name) if path is not None else None
        if path is None or root is None or not path.is_file():
            plan.missing[file_name] = (
                "its original file is no longer where it was ingested from; ingest it again"
            )
            continue
        plan.by_root.setdefault(root, []).append(path)
    return plan


def _root_of(path: Path, file_name: str) -> Path | None:
    """The folder ``path`` was ingested from as ``file_name`` (its path below it); None when it does not
    end in that name."""
    depth = len(PurePosixPath(file_name).parts)
    if depth == 0 or depth > len(path.parents):
        return None
    root = path.parents[depth - 1]
    return root if readable_name(path.relative_to(root).as_posix()) == file_name else None
