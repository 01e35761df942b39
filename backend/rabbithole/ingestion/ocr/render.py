"""A page of a document's file (a PDF, or an image file's page) drawn as PNG for the viewer, which shows a
page read by OCR as this image with the quote's word boxes over it."""

from __future__ import annotations

from pathlib import Path

from rabbithole.core.errors import DocumentNotFoundError
from rabbithole.ingestion.pdf import load_pymupdf, quiet_mupdf

MIN_WIDTH = 200
MAX_WIDTH = 2400


def render_page_png(path: Path, number: int, width: int) -> bytes:
    """Page `number` (1-based) of the file at `path`, `width` pixels wide (clamped to 200..2400), in grey
    for scans (their colour adds bytes, not legibility). DocumentNotFoundError for a page it does not have."""
    pymupdf = load_pymupdf()
    width = max(MIN_WIDTH, min(MAX_WIDTH, width))
    with quiet_mupdf(pymupdf):
        doc = pymupdf.open(str(path))
        try:
            if not 1 <= number <= doc.page_count:
                raise DocumentNotFoundError(f"{path.name} has no page {number} (it has {doc.page_count})")
            page = doc.load_page(number - 1)
            zoom = width / page.rect.width if page.rect.width else 1.0
            matrix = pymupdf.Matrix(zoom, zoom)
            pixmap = page.get_pixmap(matrix=matrix, colorspace=pymupdf.csGRAY, alpha=False)
            return bytes(pixmap.tobytes("png"))
        finally:
            doc.close()
