"""What a file that is not a PDF holds, told by its first bytes: named in the reason it is refused (an upload,
a file of an ingested folder), so that a saved web page or a Word file is called what it is."""

from __future__ import annotations

#: Signatures at the start of a file, and what they say it is.
_SIGNATURES: tuple[tuple[bytes, str], ...] = (
    (b"PK\x03\x04", "a ZIP archive (for example a Word .docx or OpenDocument file)"),
    (b"\xd0\xcf\x11\xe0", "an old Microsoft Office file (for example a Word .doc)"),
    (b"{\\rtf", "an RTF document"),
    (b"%!PS", "a PostScript file"),
    (b"\x89PNG", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF8", "a GIF image"),
    (b"II*\x00", "a TIFF image"),
    (b"MM\x00*", "a TIFF image"),
)


def describe_content(head: bytes) -> str:
    """What ``head`` (a file's first KiB) is, in words: an HTML page, markup, a known binary format, plain
    text or unknown binary data."""
    stripped = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    lowered = stripped[:512].lower()
    if lowered.startswith((b"<!doctype html", b"<html")) or b"<html" in lowered or b"<body" in lowered:
        return "an HTML page (a saved web page, or an error/login page instead of the document)"
    if lowered.startswith(b"<?xml") or lowered.startswith(b"<"):
        return "XML/markup text"
    for signature, what in _SIGNATURES:
        if head.startswith(signature):
            return what
    sample = head[:1024]
    try:
        sample.decode("utf-8")
        decodable = True
    except UnicodeDecodeError as exc:
        decodable = exc.start >= len(sample) - 3  # cut in the middle of a character
    if decodable and not any(b < 9 or 13 < b < 32 for b in sample):
        return "plain text"
    return "unknown binary data"
