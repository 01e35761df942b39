"""Image files (PNG, JPEG, TIFF with one page or many) read with Tesseract: each image a page, at its own
resolution. Refused with the reason before decoding: more pixels than ingestion.ocr.max_megapixels, more
pages than ingestion.ocr.max_pages, Tesseract missing (with the command that installs it)."""

from __future__ import annotations

from pathlib import Path

from rabbithole.core.config import IngestionSettings
from rabbithole.core.models import ParsedDocument
from rabbithole.ingestion.content_kind import describe_content
from rabbithole.ingestion.errors import (
    CorruptDocumentError,
    EmptyDocumentError,
    FileTooLargeError,
    NoTextLayerError,
    UnreadableFileError,
)
from rabbithole.ingestion.ocr.image_header import ImageHeaderError, image_format, page_sizes
from rabbithole.ingestion.ocr.pages import read_page
from rabbithole.ingestion.ocr.paragraphs import settle_paragraphs
from rabbithole.ingestion.ocr.scanned import describe_reading, ocr_refusal
from rabbithole.ingestion.ocr.tesseract import TesseractError
from rabbithole.ingestion.pdf import load_pymupdf, quiet_mupdf
from rabbithole.ingestion.pdf_layout import PdfPage, assemble
from rabbithole.ingestion.structure import detect_structure

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".tif", ".tiff")
_MB = 1024 * 1024


class ImageParser:
    """DocumentParser for PNG, JPEG and TIFF files: their text is what OCR reads on them."""

    suffixes: tuple[str, ...] = IMAGE_SUFFIXES

    def __init__(self, settings: IngestionSettings | None = None) -> None:
        self.settings = settings or IngestionSettings.model_validate({})

    def parse(self, path: Path, file_name: str | None = None) -> ParsedDocument:
        path = Path(path)
        name = file_name or path.name
        sizes = self._check_file(path, name)
        ocr = self.settings.ocr
        refused = ocr_refusal(ocr, len(sizes))
        if refused is not None:
            raise NoTextLayerError(name, f"an image; its text is read by OCR, which cannot run: {refused}")
        pymupdf = load_pymupdf()
        pages: list[PdfPage] = []
        failed: list[str] = []
        with quiet_mupdf(pymupdf):
            try:
                doc = pymupdf.open(str(path))
            except Exception as exc:  # PyMuPDF raises FileDataError/RuntimeError for broken images
                raise CorruptDocumentError(
                    name, f"damaged image; it cannot be opened ({str(exc)[:160]})"
                ) from exc
            try:
                for index, (width, _) in enumerate(sizes[: doc.page_count]):
                    page = doc.load_page(index)
                    zoom = width / page.rect.width if page.rect.width else 1.0
                    try:
                        pages.append(read_page(pymupdf, page, index + 1, ocr, zoom=zoom))
                    except (TesseractError, RuntimeError, ValueError) as exc:
                        failed.append(f"page {index + 1}: {str(exc)[:160]}")
            finally:
                doc.close()
        if not any(p.lines for p in pages):
            detail = f" ({'; '.join(failed)})" if failed else ""
            raise NoTextLayerError(name, f"OCR found no text on the image{detail}")
        settle_paragraphs(pages)
        page_texts, lines = assemble(pages)
        text = ParsedDocument.PAGE_SEPARATOR.join(p.text for p in page_texts)
        structure = detect_structure(text, lines)
        warnings = describe_reading(pages, ocr)
        if failed:
            warnings.append("not read by OCR: " + "; ".join(failed))
        first = next(p for p in pages if p.lines)
        return ParsedDocument(
            file_name=name,
            pages=page_texts,
            title=first.lines[0].text[:300],
            sections=structure.sections,
            warnings=warnings,
            is_legal=structure.is_legal,
        )

    def _check_file(self, path: Path, name: str) -> list[tuple[int, int]]:
        """The pages' pixel sizes, after the checks on size, type and limits."""
        try:
            size = path.stat().st_size
            with path.open("rb") as fh:
                head = fh.read(1024)
        except OSError as exc:
            raise UnreadableFileError(name, f"cannot read the file ({exc.strerror or exc})") from exc
        if size == 0:
            raise EmptyDocumentError(name, "the file is empty (0 bytes)")
        if size > self.settings.max_file_mb * _MB:
            raise FileTooLargeError(
                name,
                f"the file is {size / _MB:.1f} MB; the limit is {self.settings.max_file_mb:g} MB "
                "(ingestion.max_file_mb)",
            )
        if image_format(head) is None:
            raise CorruptDocumentError(
                name,
                f"not a PNG, JPEG or TIFF image despite its name: the content is {describe_content(head)}",
            )
        ocr = self.settings.ocr
        try:
            sizes = page_sizes(path, ocr.max_pages)
        except ImageHeaderError as exc:
            raise CorruptDocumentError(name, f"damaged image ({exc})") from exc
        if len(sizes) > ocr.max_pages:
            raise FileTooLargeError(
                name,
                f"more than {ocr.max_pages} pages to read by OCR; the limit is {ocr.max_pages} pages "
                "(ingestion.ocr.max_pages)",
            )
        for number, (width, height) in enumerate(sizes, start=1):
            megapixels = width * height / 1_000_000
            if megapixels > ocr.max_megapixels:
                where = f"page {number} is" if len(sizes) > 1 else "the image is"
                raise FileTooLargeError(
                    name,
                    f"{where} {width} × {height} pixels ({megapixels:.0f} megapixels); the limit is "
                    f"{ocr.max_megapixels:g} megapixels (ingestion.ocr.max_megapixels)",
                )
        return sizes
