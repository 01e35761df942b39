"""The pixel sizes of an image file's pages from its header alone (PNG, JPEG, TIFF), so that an image too
large to decode is refused before anything decodes it."""

from __future__ import annotations

import struct
from pathlib import Path

_PNG = b"\x89PNG\r\n\x1a\n"
_JPEG = b"\xff\xd8"
_TIFF = (b"II*\x00", b"MM\x00*")
#: JPEG start-of-frame markers (baseline, progressive, lossless ...), which hold the size
_SOF = frozenset({0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF})


class ImageHeaderError(ValueError):
    """The bytes are not a PNG, JPEG or TIFF whose size can be read."""


def image_format(head: bytes) -> str | None:
    if head.startswith(_PNG):
        return "PNG"
    if head.startswith(_JPEG):
        return "JPEG"
    if head[:4] in _TIFF:
        return "TIFF"
    return None


def page_sizes(path: Path, max_pages: int) -> list[tuple[int, int]]:
    """(width, height) in pixels of each page (one for PNG and JPEG; a TIFF's pages, at most max_pages + 1
    of them, so that "more than the limit" is known without walking a huge file)."""
    data = path.read_bytes()
    kind = image_format(data[:8])
    if kind == "PNG":
        if len(data) < 24 or data[12:16] != b"IHDR":
            raise ImageHeaderError("PNG without its header")
        return [struct.unpack(">II", data[16:24])]
    if kind == "JPEG":
        return [_jpeg_size(data)]
    if kind == "TIFF":
        return _tiff_sizes(data, max_pages + 1)
    raise ImageHeaderError("not a PNG, JPEG or TIFF image")


def _jpeg_size(data: bytes) -> tuple[int, int]:
    at = 2
    while at + 9 < len(data):
        if data[at] != 0xFF:
            at += 1
            continue
        marker = data[at + 1]
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7 or marker == 0xFF:
            at += 1 if marker == 0xFF else 2
            continue
        (length,) = struct.unpack(">H", data[at + 2 : at + 4])
        if marker in _SOF:
            height, width = struct.unpack(">HH", data[at + 5 : at + 9])
            return width, height
        at += 2 + length
    raise ImageHeaderError("JPEG without a frame header")


def _tiff_sizes(data: bytes, most: int) -> list[tuple[int, int]]:
    order = "<" if data[:2] == b"II" else ">"
    (offset,) = struct.unpack(order + "I", data[4:8])
    sizes: list[tuple[int, int]] = []
    seen: set[int] = set()
    while offset and len(sizes) < most:
        if offset in seen or offset + 2 > len(data):
            raise ImageHeaderError("TIFF with a broken page directory")
        seen.add(offset)
        (count,) = struct.unpack(order + "H", data[offset : offset + 2])
        end = offset + 2 + 12 * count
        if end + 4 > len(data):
            raise ImageHeaderError("TIFF with a broken page directory")
        width = height = 0
        for entry in range(offset + 2, end, 12):
            tag, kind = struct.unpack(order + "HH", data[entry : entry + 4])
            if tag in (256, 257):
                fmt = order + ("H" if kind == 3 else "I")
                size = 2 if kind == 3 else 4
                (value,) = struct.unpack(fmt, data[entry + 8 : entry + 8 + size])
                width, height = (value, height) if tag == 256 else (width, value)
        sizes.append((width, height))
        (offset,) = struct.unpack(order + "I", data[end : end + 4])
    if not sizes:
        raise ImageHeaderError("TIFF without pages")
    return sizes
