"""Document parsers behind one Protocol, and a registry that picks one by file type (suffix).

    parser = get_parser(path, settings)        # UnsupportedFileTypeError when no parser handles the type
    doc = parser.parse(path)                   # ParsedDocument, or a DocumentError subclass
    doc = parse_document(path, settings)       # both in one call

PDF (PyMuPDF) is registered by default; PyMuPDF itself is imported only when a PDF is parsed.
Register more with `register_parser((".txt",), factory)`, where factory(settings) returns a DocumentParser.
The file type is chosen by name only; a parser checks the content itself (a renamed HTML file named .pdf is
reported by the PDF parser as NotAPdfError).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Protocol, runtime_checkable

from rabbithole.core.config import IngestionSettings
from rabbithole.core.models import ParsedDocument
from rabbithole.ingestion.errors import UnsupportedFileTypeError


@runtime_checkable
class DocumentParser(Protocol):
    """Turns one file into page texts (with offsets), title, structure and warnings."""

    @property
    def suffixes(self) -> tuple[str, ...]:
        """Lower-case file name suffixes this parser handles, e.g. (".pdf",)."""
        ...

    def parse(self, path: Path, file_name: str | None = None) -> ParsedDocument:
        """Parse `path`; `file_name` is the name to record (default: path.name), e.g. relative to the
        collection folder.

        Raises a rabbithole.ingestion.errors.DocumentError subclass (an IngestionError) for a bad file.
        """
        ...


ParserFactory = Callable[[IngestionSettings], DocumentParser]

_REGISTRY: dict[str, ParserFactory] = {}


def _pdf_factory(settings: IngestionSettings) -> DocumentParser:
    from rabbithole.ingestion.pdf import PdfParser

    return PdfParser(settings)


def _normalize(suffix: str) -> str:
    suffix = suffix.strip().lower()
    return suffix if suffix.startswith(".") else "." + suffix


def register_parser(suffixes: Iterable[str], factory: ParserFactory) -> None:
    """Use `factory` for files with these suffixes (replacing an earlier registration)."""
    for suffix in suffixes:
        _REGISTRY[_normalize(suffix)] = factory


def supported_suffixes() -> tuple[str, ...]:
    return tuple(sorted(_REGISTRY))


def is_supported(path: Path | str) -> bool:
    return Path(path).suffix.lower() in _REGISTRY


def get_parser(path: Path | str, settings: IngestionSettings | None = None) -> DocumentParser:
    """The parser for this file's type."""
    path = Path(path)
    factory = _REGISTRY.get(path.suffix.lower())
    if factory is None:
        known = ", ".join(supported_suffixes()) or "none"
        kind = f"'{path.suffix}'" if path.suffix else "no file extension"
        raise UnsupportedFileTypeError(path.name, f"unsupported file type ({kind}); supported: {known}")
    return factory(settings or IngestionSettings.model_validate({}))


def parse_document(
    path: Path | str, settings: IngestionSettings | None = None, file_name: str | None = None
) -> ParsedDocument:
    """Pick the parser for `path` and parse it."""
    path = Path(path)
    return get_parser(path, settings).parse(path, file_name)


class AutoParser:
    """A DocumentParser that dispatches on the suffix of each file (what an ingestion pipeline holds)."""

    def __init__(self, settings: IngestionSettings | None = None) -> None:
        self.settings = settings or IngestionSettings.model_validate({})
        self._parsers: dict[str, DocumentParser] = {}

    @property
    def suffixes(self) -> tuple[str, ...]:
        return supported_suffixes()

    def parse(self, path: Path, file_name: str | None = None) -> ParsedDocument:
        suffix = Path(path).suffix.lower()
        parser = self._parsers.get(suffix)
        if parser is None:
            parser = self._parsers[suffix] = get_parser(path, self.settings)
        return parser.parse(Path(path), file_name)


def _image_factory(settings: IngestionSettings) -> DocumentParser:
    from rabbithole.ingestion.ocr.images import ImageParser

    return ImageParser(settings)


register_parser((".pdf",), _pdf_factory)
register_parser((".png", ".jpg", ".jpeg", ".tif", ".tiff"), _image_factory)
