"""The pages of a PDF without a usable text layer, read with Tesseract where it can run; otherwise why not."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rabbithole.core.config.ocr import OcrSettings
from rabbithole.ingestion.ocr.pages import read_page
from rabbithole.ingestion.ocr.paragraphs import settle_paragraphs
from rabbithole.ingestion.ocr.tesseract import TesseractError, unavailable_reason
from rabbithole.ingestion.page_ranges import page_ranges, plural
from rabbithole.ingestion.pdf_layout import PdfPage


@dataclass(slots=True)
class ScanReading:
    """What OCR made of a document's scanned pages: the pages read, by number; warnings for the document;
    and, where none could be read, why (with the fix)."""

    pages: dict[int, PdfPage] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    refused: str | None = None


def ocr_refusal(settings: OcrSettings, page_count: int) -> str | None:
    """Why pages cannot be read by OCR here (switched off, Tesseract or its data missing, too many)."""
    if not settings.enabled:
        return "OCR is switched off (ingestion.ocr.enabled)"
    reason = unavailable_reason(tuple(settings.languages))
    if reason is not None:
        return reason
    if page_count > settings.max_pages:
        return (
            f"{page_count} pages to read by OCR; the limit is {settings.max_pages} pages "
            "(ingestion.ocr.max_pages)"
        )
    return None


def read_scanned_pages(pymupdf: Any, doc: Any, numbers: list[int], settings: OcrSettings) -> ScanReading:
    reading = ScanReading()
    reading.refused = ocr_refusal(settings, len(numbers))
    if reading.refused is not None:
        return reading
    failed: list[str] = []
    for number in numbers:
        try:
            reading.pages[number] = read_page(pymupdf, doc.load_page(number - 1), number, settings)
        except TesseractError as exc:
            failed.append(f"page {number}: {exc}")
        except (RuntimeError, ValueError) as exc:  # MuPDF cannot render the page
            failed.append(f"page {number}: it cannot be rendered ({str(exc)[:120]})")
    settle_paragraphs([reading.pages[number] for number in sorted(reading.pages)])
    reading.warnings.extend(describe_reading(list(reading.pages.values()), settings))
    if failed:
        reading.warnings.append("not read by OCR: " + "; ".join(failed))
    return reading


def describe_reading(pages: list[PdfPage], settings: OcrSettings) -> list[str]:
    """The warnings a document read (in part) by OCR carries: which pages, their mean confidence, and which
    fall below the low-confidence mark."""
    read = [p for p in pages if p.ocr_confidence is not None and p.lines]
    if not read:
        return []
    numbers = [p.number for p in read]
    mean = sum(p.ocr_confidence or 0.0 for p in read) / len(read)
    out = [
        f"{plural(numbers)} {page_ranges(numbers)} read by OCR (Tesseract, {settings.language_spec}), "
        f"mean confidence {mean:.0f} %"
    ]
    low = [p.number for p in read if (p.ocr_confidence or 0.0) < settings.low_confidence]
    if low:
        out.append(
            f"OCR confidence below {settings.low_confidence:g} % on {plural(low)} {page_ranges(low)}: "
            "check quotes from there against the page image"
        )
    return out
