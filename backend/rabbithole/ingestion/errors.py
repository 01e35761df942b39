"""Why a single file could not be ingested. Each class carries a short machine `kind` and a human `reason`.

`str(exc)` is the reason alone ("password-protected (encrypted) PDF; ..."); the file is in `exc.file_name`.
All are IngestionError, so a batch reports them per file and goes on.
"""

from __future__ import annotations

from typing import ClassVar

from rabbithole.core.errors import IngestionError


class DocumentError(IngestionError):
    """A file that cannot be ingested, with the reason."""

    kind: ClassVar[str] = "unreadable"

    def __init__(self, file_name: str, reason: str) -> None:
        super().__init__(reason)
        self.file_name = file_name
        self.reason = reason


class UnreadableFileError(DocumentError):
    """The file system would not give us the bytes (missing, permission denied, a directory, ...)."""

    kind = "unreadable"


class UnsupportedFileTypeError(DocumentError):
    """No parser is registered for the file's type."""

    kind = "unsupported"


class FileTooLargeError(DocumentError):
    """Larger than ingestion.max_file_mb, or more pages than ingestion.max_pages."""

    kind = "too_large"


class NotAPdfError(DocumentError):
    """Named .pdf, but the content is something else (HTML, text, an image, a ZIP/Office file, ...)."""

    kind = "not_pdf"


class EncryptedDocumentError(DocumentError):
    """Opening needs a password."""

    kind = "encrypted"


class CorruptDocumentError(DocumentError):
    """Damaged beyond repair: cannot be opened, or nothing readable survives the repair."""

    kind = "corrupt"


class TruncatedDocumentError(CorruptDocumentError):
    """The file ends early (an interrupted download or copy) and what is left is not readable."""

    kind = "truncated"


class EmptyDocumentError(DocumentError):
    """Zero bytes, or a PDF with zero pages."""

    kind = "empty"


class NoTextLayerError(DocumentError):
    """Not a single page has extractable text (a scan without OCR)."""

    kind = "no_text"


class WrongContentError(DocumentError):
    """Named after one format (.docx, .html, .md, .txt), but the content is another (a PDF, an image, a ZIP
    that is no Word file, binary data, ...)."""

    kind = "wrong_content"
