"""Scanned copies of born-digital PDFs, for tests and benchmarks of OCR: pages rendered to grey images and
wrapped as image-only PDFs (or as PNG and TIFF files), a PDF that mixes text and scanned pages, and the bad
images (a huge PNG, a TIFF of many pages) written without decoding anything. Nothing here is checked in:
the files are generated from kb/sample when a test or benchmark needs them.

    scan_pdf(Path("kb/sample/AtG.pdf"), out / "AtG.pdf", dpi=300)            # every page an image
    scan_pdf(source, out / "mixed.pdf", dpi=300, pages=[2], keep_text=True)  # page 2 scanned, others text
    write_tiff(out / "pages.tif", [page_pixmap(source, 0, 150), ...])
"""

from __future__ import annotations

import importlib
import struct
import zlib
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

pymupdf: Any = importlib.import_module("pymupdf")  # untyped library


def page_pixmap(source: Path, index: int, dpi: int) -> Any:
    """Page `index` (0-based) of `source` rendered in grey at `dpi`."""
    with pymupdf.open(str(source)) as doc:
        return doc[index].get_pixmap(dpi=dpi, colorspace=pymupdf.csGRAY, alpha=False)


def scan_pdf(
    source: Path, target: Path, dpi: int, pages: Iterable[int] | None = None, keep_text: bool = False
) -> Path:
    """A copy of `source` whose pages (0-based `pages`; all by default) are images of themselves at `dpi`
    with no text layer. `keep_text`: the other pages stay as they are (a mixed PDF); otherwise only the
    scanned pages are in the copy."""
    with pymupdf.open(str(source)) as doc, pymupdf.open() as out:
        chosen = set(range(doc.page_count) if pages is None else pages)
        for index in range(doc.page_count):
            if index not in chosen:
                if keep_text:
                    out.insert_pdf(doc, from_page=index, to_page=index)
                continue
            page = doc[index]
            pixmap = page.get_pixmap(dpi=dpi, colorspace=pymupdf.csGRAY, alpha=False)
            scanned = out.new_page(width=page.rect.width, height=page.rect.height)
            scanned.insert_image(scanned.rect, stream=pixmap.tobytes("png"))
        out.set_metadata({"title": doc.metadata.get("title", ""), "subject": doc.metadata.get("subject", "")})
        out.save(str(target), garbage=3, deflate=True)
    return target


def write_blank_png(target: Path, width: int, height: int) -> Path:
    """A white 1-bit PNG of any size, compressed row by row: a 20,000 x 20,000 image in 90 KB and 0.2 s,
    which a reader that decodes it needs hundreds of MB for."""
    compressor = zlib.compressobj(9)
    row = b"\x00" + b"\xff" * ((width + 7) // 8)
    body = b"".join(compressor.compress(row) for _ in range(height)) + compressor.flush()
    header = struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0)
    chunks = _chunk(b"IHDR", header) + _chunk(b"IDAT", body) + _chunk(b"IEND", b"")
    target.write_bytes(b"\x89PNG\r\n\x1a\n" + chunks)
    return target


def _chunk(kind: bytes, data: bytes) -> bytes:
    checksum = zlib.crc32(kind + data) & 0xFFFFFFFF
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", checksum)


def write_tiff(target: Path, pages: Sequence[Any]) -> Path:
    """A TIFF of grey pages (PyMuPDF pixmaps in csGRAY), uncompressed, one page directory each."""
    return write_tiff_pages(target, [(p.width, p.height, bytes(p.samples)) for p in pages])


def write_blank_tiff(target: Path, count: int, width: int = 64, height: int = 32) -> Path:
    """A TIFF of `count` white pages (a 300-page file in a few hundred KB)."""
    blank = b"\xff" * (width * height)
    return write_tiff_pages(target, [(width, height, blank)] * count)


def write_tiff_pages(target: Path, pages: Sequence[tuple[int, int, bytes]]) -> Path:
    """Little-endian baseline TIFF: 8-bit grey, one strip per page; each page's pixels, then its directory."""
    out = bytearray(b"II*\x00\x00\x00\x00\x00")
    previous_link = 4  # where the offset of the next directory goes
    for width, height, pixels in pages:
        strip = len(out)
        out += pixels
        if len(out) % 2:
            out += b"\x00"
        directory = len(out)
        struct.pack_into("<I", out, previous_link, directory)
        entries = [
            (256, 4, width),  # ImageWidth
            (257, 4, height),  # ImageLength
            (258, 3, 8),  # BitsPerSample
            (259, 3, 1),  # Compression: none
            (262, 3, 1),  # PhotometricInterpretation: black is zero
            (273, 4, strip),  # StripOffsets
            (277, 3, 1),  # SamplesPerPixel
            (278, 4, height),  # RowsPerStrip
            (279, 4, len(pixels)),  # StripByteCounts
        ]
        out += struct.pack("<H", len(entries))
        for tag, kind, value in entries:
            packed = struct.pack("<HI", value, 0)[:4] if kind == 3 else struct.pack("<I", value)
            out += struct.pack("<HHI", tag, kind, 1) + packed
        previous_link = len(out)
        out += b"\x00\x00\x00\x00"
    target.write_bytes(bytes(out))
    return target
