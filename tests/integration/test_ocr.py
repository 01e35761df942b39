"""OCR with Tesseract on scans generated from the sample knowledge base: whole scanned PDFs, a PDF mixing
text and scanned pages, PNG/JPEG/TIFF files, the limits on bad images, and the machine without Tesseract."""

from __future__ import annotations

from pathlib import Path

import pytest
from rapidfuzz.distance import Levenshtein

from fixtures.pdfs import SAMPLE_DIR, build_legal_pdf, build_scanned_pdf, pymupdf
from fixtures.services import ServicesFactory
from rabbithole.core.config import IngestionSettings
from rabbithole.devtools.scans import (
    page_pixmap,
    scan_pdf,
    write_blank_png,
    write_blank_tiff,
    write_tiff,
)
from rabbithole.ingestion.errors import CorruptDocumentError, FileTooLargeError, NoTextLayerError
from rabbithole.ingestion.ocr.images import ImageParser
from rabbithole.ingestion.parser import parse_document
from rabbithole.ingestion.pdf import PdfParser


def settings(**ocr: object) -> IngestionSettings:
    return IngestionSettings.model_validate({"ocr": ocr})


def squeezed(text: str) -> str:
    return " ".join(text.split())


def text_layer(source: Path, index: int) -> str:
    """The page's text as the parser reads the born-digital original."""
    return PdfParser().parse(source).pages[index].text


def test_a_scanned_pdf_is_read_by_ocr_with_confidence_and_word_boxes(scanned_atg: Path) -> None:
    doc = PdfParser().parse(scanned_atg)

    assert [p.source for p in doc.pages] == ["ocr", "ocr"]
    assert all(p.ocr_confidence is not None and p.ocr_confidence > 80 for p in doc.pages)
    assert doc.warnings[0].startswith("pages 1–2 read by OCR (Tesseract, deu+eng), mean confidence")
    original = PdfParser().parse(SAMPLE_DIR / "AtG.pdf").pages[1].text
    errors = Levenshtein.distance(squeezed(original), squeezed(doc.pages[0].text))
    assert errors / len(squeezed(original)) <= 0.02
    # every word box cuts a word of the page text and lies on the page, in reading order
    page = doc.pages[0]
    assert len(page.words) > 100
    for word in page.words:
        assert page.text[word.start : word.end].strip() == page.text[word.start : word.end]
        assert 0 <= word.x0 < word.x1 <= 1 and 0 <= word.y0 < word.y1 <= 1
    assert [w.start for w in page.words] == sorted(w.start for w in page.words)
    at = page.text.index("Kernbrennstoff")
    (box,) = [w for w in page.words if w.start <= at < w.end]
    assert page.text[box.start : box.end].startswith("Kernbrennstoff")


def test_a_pdf_mixing_text_and_scanned_pages_reads_each_from_its_source(tmp_path: Path) -> None:
    mixed = scan_pdf(SAMPLE_DIR / "AtG.pdf", tmp_path / "mixed.pdf", 150, pages=[1], keep_text=True)
    doc = PdfParser().parse(mixed)

    assert [p.source for p in doc.pages[:3]] == ["text", "ocr", "text"]
    assert doc.pages[0].words == () and doc.pages[1].words
    assert doc.warnings[0].startswith("page 2 read by OCR (Tesseract, deu+eng)")
    assert "genehmigungspflichtigen Tätigkeit" in doc.pages[1].text
    assert doc.pages[2].text == text_layer(SAMPLE_DIR / "AtG.pdf", 2)
    assert doc.abbreviation == "AtG"


@pytest.mark.usefixtures("without_tesseract")
def test_without_tesseract_a_scan_is_reported_with_the_command_that_fixes_it(tmp_path: Path) -> None:
    with pytest.raises(NoTextLayerError) as info:
        PdfParser().parse(build_scanned_pdf(tmp_path / "scan.pdf"))
    assert "no text layer (scanned PDF?); not read: Tesseract is not installed" in info.value.reason
    assert "apt-get install -y tesseract-ocr tesseract-ocr-deu tesseract-ocr-eng" in info.value.reason

    partly = PdfParser().parse(build_scanned_pdf(tmp_path / "partly.pdf", text_pages=1, image_pages=1))
    assert partly.warnings == [
        "no text layer on page 2; not read: Tesseract is not installed; install it with: "
        "sudo apt-get install -y tesseract-ocr tesseract-ocr-deu tesseract-ocr-eng (or: make setup)"
    ]
    with pytest.raises(NoTextLayerError, match="OCR, which cannot run: Tesseract is not installed"):
        ImageParser().parse(write_tiff(tmp_path / "page.tif", [page_pixmap(SAMPLE_DIR / "AtG.pdf", 1, 72)]))


def test_a_language_without_data_is_reported_with_its_package(tmp_path: Path) -> None:
    with pytest.raises(NoTextLayerError, match=r"Tesseract has no data for zzz; .*tesseract-ocr-zzz"):
        PdfParser(settings(languages=["zzz"])).parse(build_scanned_pdf(tmp_path / "scan.pdf"))


def test_switched_off_ocr_reports_the_setting(tmp_path: Path) -> None:
    with pytest.raises(NoTextLayerError, match=r"OCR is switched off \(ingestion.ocr.enabled\)"):
        PdfParser(settings(enabled=False)).parse(build_scanned_pdf(tmp_path / "scan.pdf"))


def test_image_files_are_read_page_by_page(tmp_path: Path) -> None:
    source = SAMPLE_DIR / "AtG.pdf"
    png = tmp_path / "page.png"
    page_pixmap(source, 1, 150).save(str(png))
    tiff = write_tiff(tmp_path / "pages.tif", [page_pixmap(source, 1, 100), page_pixmap(source, 2, 100)])

    read_png = parse_document(png)
    assert [p.source for p in read_png.pages] == ["ocr"]
    assert "Kernbrennstoff" in read_png.pages[0].text
    read_tiff = parse_document(tiff, file_name="scans/pages.tif")
    assert read_tiff.file_name == "scans/pages.tif"
    assert [p.number for p in read_tiff.pages] == [1, 2]
    assert "Übereinkommens" in read_tiff.pages[1].text
    assert read_tiff.pages[1].offset == len(read_tiff.pages[0].text) + len("\n\f")


def test_bad_images_are_refused_before_decoding_with_the_limit(tmp_path: Path) -> None:
    huge = write_blank_png(tmp_path / "huge.png", 20_000, 20_000)
    with pytest.raises(FileTooLargeError) as info:
        parse_document(huge)
    assert info.value.reason == (
        "the image is 20000 × 20000 pixels (400 megapixels); the limit is 100 megapixels "
        "(ingestion.ocr.max_megapixels)"
    )
    many = write_blank_tiff(tmp_path / "many.tif", 300)
    with pytest.raises(FileTooLargeError, match=r"more than 200 pages to read by OCR; the limit is 200"):
        ImageParser(settings(max_pages=200)).parse(many)
    # within raised limits the blank pages are read, and found empty
    with pytest.raises(NoTextLayerError, match="OCR found no text on the image"):
        ImageParser(settings(max_pages=300)).parse(write_blank_tiff(tmp_path / "few.tif", 2))


def test_a_file_named_as_an_image_that_is_not_one(tmp_path: Path) -> None:
    fake = tmp_path / "fake.png"
    fake.write_text("<html><body>not an image</body></html>", encoding="utf-8")
    with pytest.raises(CorruptDocumentError, match=r"not a PNG, JPEG or TIFF image despite .* HTML"):
        parse_document(fake)


def test_a_big_scanned_page_is_rendered_within_the_pixel_limit(tmp_path: Path) -> None:
    scan = scan_pdf(SAMPLE_DIR / "AtG.pdf", tmp_path / "scan.pdf", 150, pages=[1])
    doc = PdfParser(settings(max_megapixels=2.0)).parse(scan)  # 300 dpi would be 8.7 megapixels
    assert doc.pages[0].source == "ocr" and "Kernbrennstoff" in doc.pages[0].text
    assert pymupdf.open(str(scan)).page_count == 1


def test_bad_images_in_a_folder_are_reported_and_the_rest_is_ingested(
    tmp_path: Path, make_services: ServicesFactory
) -> None:
    folder = tmp_path / "akte"
    (folder / "scans").mkdir(parents=True)
    build_legal_pdf(folder / "PrüfG.pdf")
    write_blank_png(folder / "plan.png", 20_000, 20_000)
    write_blank_tiff(folder / "scans" / "stapel.tif", 300)
    services = make_services(ingestion={"ocr": {"max_pages": 200}})
    report = services.ingestion_pipeline().ingest(folder).collections[0]

    assert report.added == ["PrüfG.pdf"]
    failed = {p.file_name: (p.kind, p.reason) for p in report.failed}
    assert failed["plan.png"] == (
        "too_large",
        "the image is 20000 × 20000 pixels (400 megapixels); the limit is 100 megapixels "
        "(ingestion.ocr.max_megapixels)",
    )
    assert failed["scans/stapel.tif"][1].startswith("more than 200 pages to read by OCR")
    assert services.searcher.search("Prüfpflichten", "akte", k=1)[0].chunk.document == "PrüfG.pdf"
