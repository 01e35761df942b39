"""Reading a non-PDF file's bytes within the limits, and text in the encoding it was written in.

    data = read_limited(path, name, limit_mb, "ingestion.max_text_file_mb")   # bytes, or a DocumentError
    text, note = decode_text(data)      # UTF-8 (with or without BOM), UTF-16 by its BOM, else Windows-1252

A text file that is not valid UTF-8 is an old Windows/Latin-1 file far more often than anything else in a
German or English collection: it is decoded as Windows-1252 (Latin-1's superset for the printable range;
its five undefined bytes as Latin-1), and a warning says so.
"""

from __future__ import annotations

from pathlib import Path

from rabbithole.ingestion.errors import (
    EmptyDocumentError,
    FileTooLargeError,
    UnreadableFileError,
    WrongContentError,
)
from rabbithole.ingestion.formats import FileFormat

MB = 1024 * 1024


def read_limited(path: Path, name: str, limit_mb: float, setting: str) -> bytes:
    """The file's bytes; UnreadableFileError, EmptyDocumentError or FileTooLargeError (checked on its size
    before anything is read)."""
    try:
        if path.is_dir():
            raise UnreadableFileError(name, "this is a folder, not a file")
        size = path.stat().st_size
        if size == 0:
            raise EmptyDocumentError(name, "the file is empty (0 bytes)")
        if size > limit_mb * MB:
            raise FileTooLargeError(
                name, f"the file is {size / MB:.1f} MB; the limit is {limit_mb:g} MB ({setting})"
            )
        return path.read_bytes()
    except OSError as exc:
        raise UnreadableFileError(name, f"cannot read the file ({exc.strerror or exc})") from exc


def check_content(data: bytes, name: str, fmt: FileFormat) -> None:
    """WrongContentError when the content is not of the format its name says."""
    reason = fmt.refusal(data[:1024])
    if reason is not None:
        suffix = Path(name).suffix or fmt.suffixes[0]
        raise WrongContentError(name, f"{reason}, despite the {suffix} name")


def decode_text(data: bytes) -> tuple[str, str | None]:
    """The text and, when it was not UTF-8, a note naming the encoding it was read in."""
    if data.startswith(b"\xef\xbb\xbf"):
        return data[3:].decode("utf-8", "replace"), None
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return data.decode("utf-16", "replace"), "read as UTF-16 (its byte order mark)"
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError:
        pass
    return _cp1252_bulk(data), "not UTF-8: read as Windows-1252 / Latin-1 (ISO 8859-1)"


def _cp1252(byte: int) -> str:
    try:
        return bytes([byte]).decode("cp1252")
    except UnicodeDecodeError:
        return bytes([byte]).decode("latin-1")


def _cp1252_bulk(data: bytes) -> str:
    try:
        return data.decode("cp1252")
    except UnicodeDecodeError:  # one of its five undefined bytes: those as Latin-1
        return "".join(_cp1252(byte) for byte in data)
