"""Reading one page image with Tesseract: a PDF page (or an image file's page) rendered by PyMuPDF in
grey at the configured resolution, scaled down where it would exceed the pixel limit."""

from __future__ import annotations

import math
from typing import Any

from rabbithole.core.config.ocr import OcrSettings
from rabbithole.ingestion.ocr import tesseract
from rabbithole.ingestion.ocr.lines import mean_confidence, ocr_lines
from rabbithole.ingestion.pdf_layout import PdfPage


def read_page(
    pymupdf: Any, page: Any, number: int, settings: OcrSettings, zoom: float | None = None
) -> PdfPage:
    """The page's text lines as Tesseract reads them. `zoom`: pixels per point to render at (an image file's
    own resolution); by default the configured dpi. Raises TesseractError."""
    scale = zoom if zoom is not None else settings.dpi / 72.0
    rect = page.rect
    pixels = rect.width * scale * rect.height * scale
    limit = settings.max_megapixels * 1_000_000
    if pixels > limit:
        scale *= math.sqrt(limit / pixels)
    pixmap = page.get_pixmap(matrix=pymupdf.Matrix(scale, scale), colorspace=pymupdf.csGRAY, alpha=False)
    words = tesseract.recognise(pixmap.tobytes("png"), settings.language_spec, settings.page_timeout_s)
    points_per_pixel = rect.width / pixmap.width if pixmap.width else 1.0 / scale
    return PdfPage(
        number,
        float(rect.height),
        ocr_lines(words, points_per_pixel),
        has_images=True,
        width=float(rect.width),
        ocr_confidence=mean_confidence(words),
    )
