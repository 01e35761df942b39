"""The PDF parser on real PDFs: generated ones, the sample knowledge base, and bad or odd files."""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from fixtures.pdfs import (
    LEGAL_ABBREVIATION,
    LEGAL_TITLE,
    REPORT_TITLE,
    SAMPLE_DIR,
    build_corrupt_pdf,
    build_damaged_pdf,
    build_encrypted_pdf,
    build_head_only_pdf,
    build_legal_pdf,
    build_report_pdf,
    build_scanned_pdf,
    build_tail_truncated_pdf,
    build_truncated_pdf,
    build_zero_page_pdf,
    pymupdf,
    write_html_as_pdf,
    write_text_as_pdf,
)
from rabbithole.core.config import IngestionSettings
from rabbithole.core.errors import IngestionError
from rabbithole.core.models import ParsedDocument
from rabbithole.ingestion.chunking import chunk_document
from rabbithole.ingestion.errors import (
    CorruptDocumentError,
    DocumentError,
    EmptyDocumentError,
    EncryptedDocumentError,
    FileTooLargeError,
    NotAPdfError,
    NoTextLayerError,
    TruncatedDocumentError,
    UnsupportedFileTypeError,
)
from rabbithole.ingestion.parser import AutoParser, get_parser, parse_document, supported_suffixes
from rabbithole.ingestion.pdf import PdfParser

SAMPLE_NAMES = [
    "AtAV.pdf",
    "AtDeckV.pdf",
    "AtEV.pdf",
    "AtG.pdf",
    "AtKostV.pdf",
    "AtSMV.pdf",
    "AtVfV.pdf",
    "AtZüV.pdf",
    "BAStrlSchG.pdf",
    "EndlagerVlV.pdf",
    "EndlSiAnfV.pdf",
    "EndlSiUntV.pdf",
    "EntsorgÜG.pdf",
    "IMIS-ZustV.pdf",
    "StandAG.pdf",
    "StrlSchG.pdf",
    "StrlSchV.pdf",
]


def settings(**overrides: object) -> IngestionSettings:
    return IngestionSettings.model_validate(overrides)


def find_quote(doc: ParsedDocument, quote: str) -> int:
    """Offset of `quote` in the document text, any whitespace (line breaks) between its words."""
    pattern = r"\s+".join(re.escape(word) for word in quote.split())
    match = re.search(pattern, doc.text)
    assert match is not None, f"quote not found: {quote!r}"
    return match.start()


def pdf_page_of(path: Path, quote: str) -> int:
    """Independent oracle: the 1-based page on which PyMuPDF finds the quote in the PDF itself."""
    with pymupdf.open(str(path)) as pdf:
        hits: list[int] = [page.number + 1 for page in pdf if page.search_for(quote)]
    assert len(hits) == 1, f"{quote!r} is on pages {hits}"
    return hits[0]


def assert_offsets_consistent(doc: ParsedDocument) -> None:
    text = doc.text
    for page in doc.pages:
        assert text[page.offset : page.offset + len(page.text)] == page.text
    for before, after in itertools.pairwise(doc.pages):
        assert after.offset == before.offset + len(before.text) + len(ParsedDocument.PAGE_SEPARATOR)


# --- a generated statute -----------------------------------------------------------------------------------


@pytest.fixture
def legal(tmp_path: Path) -> tuple[Path, ParsedDocument]:
    path = build_legal_pdf(tmp_path / "PrüfG.pdf")
    return path, PdfParser(settings()).parse(path)


def test_generated_statute_metadata_and_pages(legal: tuple[Path, ParsedDocument]) -> None:
    _, doc = legal
    assert doc.file_name == "PrüfG.pdf"
    assert doc.title == LEGAL_TITLE
    assert doc.abbreviation == LEGAL_ABBREVIATION
    assert doc.is_legal
    assert doc.warnings == []
    assert [p.number for p in doc.pages] == list(range(1, len(doc.pages) + 1))
    assert len(doc.pages) >= 3
    assert_offsets_consistent(doc)


def test_file_name_can_be_given_by_the_caller(tmp_path: Path) -> None:
    path = build_legal_pdf(tmp_path / "PrüfG.pdf")
    assert PdfParser().parse(path, "laws/PrüfG.pdf").file_name == "laws/PrüfG.pdf"


@pytest.mark.parametrize(
    "quote",
    [
        "Zweck dieses Gesetzes ist der Schutz",
        "(2) Grenzwertsatz 2.",
        "(7) Grenzwertsatz 7.",
        "(12) Grenzwertsatz 12.",
        "Werte der Oberflächenkontamination",
    ],
)
def test_quotes_map_to_the_page_they_are_printed_on(legal: tuple[Path, ParsedDocument], quote: str) -> None:
    path, doc = legal
    offset = find_quote(doc, quote)
    expected = pdf_page_of(path, quote)
    assert doc.page_at(offset) == expected
    page = doc.pages[expected - 1]
    assert page.offset <= offset < page.offset + len(page.text)
    assert re.search(r"\s+".join(map(re.escape, quote.split())), page.text)


def test_running_header_and_footer_are_not_body_text(legal: tuple[Path, ParsedDocument]) -> None:
    path, doc = legal
    with pymupdf.open(str(path)) as pdf:
        raw = [page.get_text() for page in pdf]
    assert all(f"Seite {n} von {len(raw)}" in text for n, text in enumerate(raw, start=1))
    assert all(text.splitlines()[0] == LEGAL_ABBREVIATION for text in raw)
    assert "Seite" not in doc.text
    lines = [line.strip() for line in doc.text.splitlines()]
    assert LEGAL_ABBREVIATION not in lines
    # the abbreviation in the title is body text and stays
    assert "(PrüfG)" in doc.pages[0].text


def test_line_end_hyphenation_is_joined_only_where_safe(legal: tuple[Path, ParsedDocument]) -> None:
    _, doc = legal
    assert "Strahlenschutzverordnung gelten entsprechend" in doc.text
    assert "Strahlenschutz-" not in doc.text
    # "Bau- und Betriebsgenehmigungen": the hyphen is a real one, kept verbatim
    assert "die Bau-\nund Betriebsgenehmigungen" in doc.text


def test_text_is_verbatim(legal: tuple[Path, ParsedDocument]) -> None:
    """Every body character is one PyMuPDF prints on the page: only whitespace and line-end hyphens differ."""
    path, doc = legal
    with pymupdf.open(str(path)) as pdf:
        for page, pdf_page in zip(doc.pages, pdf, strict=True):
            printed = re.sub(r"\s+|-", "", pdf_page.get_text())
            ours = re.sub(r"\s+|-", "", page.text)
            assert ours in printed


def test_statute_sections_from_the_pdf(legal: tuple[Path, ParsedDocument]) -> None:
    _, doc = legal
    labels = [s.label for s in doc.sections]
    assert labels == [None, "§ 1", "§ 2", "§ 3", "§ 3a", "§ 4", "Anlage 1"]
    by_label = {s.label: s for s in doc.sections}
    assert by_label["§ 3"].heading == "Grenzwerte für beruflich exponierte Personen"
    assert by_label["§ 3"].path == ("Teil 2 - Grenzwerte", "Kapitel 1 - Berufliche Exposition")
    assert by_label["§ 4"].path == ("Teil 2 - Grenzwerte", "Kapitel 2 - Schlussvorschriften")
    assert by_label["Anlage 1"].path == ()
    assert doc.text[by_label["§ 3a"].start :].startswith("§ 3a Ausnahmen")


def test_chunks_of_a_parsed_statute(legal: tuple[Path, ParsedDocument]) -> None:
    path, doc = legal
    chunks = chunk_document(doc, "tests", settings(chunk_size=800, chunk_overlap=100))
    text = doc.text
    assert {c.section for c in chunks} == {None, "§ 1", "§ 2", "§ 3", "§ 3a", "§ 4", "Anlage 1"}
    section_3 = [c for c in chunks if c.section == "§ 3"]
    assert len(section_3) > 5
    assert section_3[0].page < section_3[-1].page_end  # § 3 runs over pages
    for chunk in chunks:
        assert text[chunk.start : chunk.end] == chunk.text
        assert chunk.page == doc.page_at(chunk.start)
        assert chunk.page_end == doc.page_at(chunk.end - 1)
    quote_chunk = next(c for c in section_3 if "(12) Grenzwertsatz 12." in c.text)
    assert quote_chunk.page == pdf_page_of(path, "(12) Grenzwertsatz 12.")


# --- a generated non-legal report --------------------------------------------------------------------------


def test_report_is_not_legal_and_takes_its_title_from_the_first_page(tmp_path: Path) -> None:
    doc = PdfParser().parse(build_report_pdf(tmp_path / "report.pdf"))
    assert not doc.is_legal
    assert doc.title == REPORT_TITLE
    assert doc.abbreviation == ""


# --- the sample knowledge base -----------------------------------------------------------------------------


def test_sample_has_all_seventeen_laws() -> None:
    assert sorted(p.name for p in SAMPLE_DIR.glob("*.pdf")) == sorted(SAMPLE_NAMES)


def test_real_atomgesetz() -> None:
    path = SAMPLE_DIR / "AtG.pdf"
    doc = parse_document(path)
    assert doc.title == (
        "Gesetz über die friedliche Verwendung der Kernenergie und den Schutz gegen ihre Gefahren (AtG)"
    )
    assert doc.abbreviation == "AtG"
    assert doc.is_legal
    assert doc.warnings == []
    assert len(doc.pages) > 40
    assert_offsets_consistent(doc)
    assert not re.search(r"Seite \d+ von \d+", doc.text)
    assert "AtG" not in [line.strip() for line in doc.text.splitlines()]

    first = doc.pages[0].text
    assert "Ausfertigungsdatum: 1959-12-23" in first
    assert "Fundstelle: BGBl I: 1959, 814" in first

    by_label = {s.label: s for s in doc.sections}
    for label in ("§ 1", "§ 2a", "§ 7", "§ 9a", "§ 23b", "§ 58"):
        assert label in by_label, label
    section_7 = by_label["§ 7"]
    assert section_7.heading == "Genehmigung von Anlagen"
    assert section_7.path == ("Zweiter Abschnitt - Überwachungsvorschriften",)
    assert doc.text[section_7.start :].startswith("§ 7 Genehmigung von Anlagen")
    assert by_label["§ 1"].path == ("Erster Abschnitt - Allgemeine Vorschriften",)

    for quote in ("Zweck dieses Gesetzes ist,", "Wer eine ortsfeste Anlage zur Erzeugung"):
        assert doc.page_at(find_quote(doc, quote)) == pdf_page_of(path, quote)


def test_real_annexes_reset_the_path() -> None:
    doc = parse_document(SAMPLE_DIR / "StrlSchV.pdf")
    annex = next(s for s in doc.sections if s.label == "Anlage 4")
    assert annex.heading.startswith("Freigrenzen, Freigabewerte")
    assert annex.path == ()
    sub = [s for s in doc.sections if s.label == "Anlage 8" and s.heading.startswith("Teil C")]
    assert sub and sub[0].path == ("Anlage 8 Festlegungen zur Freigabe",)


def test_whole_sample_parses_and_chunks_consistently() -> None:
    config = settings()
    for name in SAMPLE_NAMES:
        doc = parse_document(SAMPLE_DIR / name, config)
        assert doc.is_legal, name
        assert doc.abbreviation == Path(name).stem, name
        assert doc.warnings == [], name
        assert_offsets_consistent(doc)
        text = doc.text
        assert "Seite 1 von" not in text, name
        chunks = chunk_document(doc, "sample", config)
        assert chunks, name
        assert len({c.id for c in chunks}) == len(chunks)
        for chunk in chunks:
            assert text[chunk.start : chunk.end] == chunk.text
            owner = [s for s in doc.sections if s.start <= chunk.start and chunk.end <= s.end]
            assert len(owner) == 1, (name, chunk.ordinal)
            assert chunk.section == owner[0].label


# --- registry ----------------------------------------------------------------------------------------------


def test_parser_is_picked_by_file_type(tmp_path: Path) -> None:
    assert ".pdf" in supported_suffixes()
    assert isinstance(get_parser(tmp_path / "A.PDF"), PdfParser)
    with pytest.raises(UnsupportedFileTypeError, match=r"unsupported file type \('.xlsx'\)") as info:
        get_parser(tmp_path / "tabelle.xlsx")
    assert info.value.kind == "unsupported"
    path = build_legal_pdf(tmp_path / "PrüfG.pdf")
    assert AutoParser().parse(path).abbreviation == LEGAL_ABBREVIATION


# --- bad files ---------------------------------------------------------------------------------------------


BAD_FILES: list[tuple[str, Callable[[Path], Path], type[DocumentError], str, str]] = [
    ("encrypted", build_encrypted_pdf, EncryptedDocumentError, "encrypted", "password-protected"),
    ("corrupt", build_corrupt_pdf, CorruptDocumentError, "corrupt", "damaged PDF; it cannot be opened"),
    ("truncated", build_truncated_pdf, TruncatedDocumentError, "truncated", "truncated PDF (the file ends"),
    ("cut early", build_head_only_pdf, TruncatedDocumentError, "truncated", "truncated PDF (the file ends"),
    ("zero pages", build_zero_page_pdf, EmptyDocumentError, "empty", "the PDF has no pages"),
    (
        "html",
        write_html_as_pdf,
        NotAPdfError,
        "not_pdf",
        "not a PDF despite the .pdf name: the content is an HTML",
    ),
    (
        "text",
        write_text_as_pdf,
        NotAPdfError,
        "not_pdf",
        "not a PDF despite the .pdf name: the content is plain text",
    ),
]


@pytest.mark.parametrize(
    ("builder", "error", "kind", "reason"),
    [case[1:] for case in BAD_FILES],
    ids=[case[0] for case in BAD_FILES],
)
def test_bad_files_raise_typed_errors_with_a_reason(
    tmp_path: Path, builder: Callable[[Path], Path], error: type[DocumentError], kind: str, reason: str
) -> None:
    path = builder(tmp_path / "bad.pdf")
    with pytest.raises(error) as info:
        PdfParser(settings()).parse(path)
    exc = info.value
    assert type(exc) is error
    assert isinstance(exc, IngestionError)
    assert exc.kind == kind
    assert exc.file_name == "bad.pdf"
    assert reason in str(exc)
    assert str(tmp_path) not in str(exc)


def test_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "empty.pdf"
    path.write_bytes(b"")
    with pytest.raises(EmptyDocumentError, match=r"the file is empty \(0 bytes\)"):
        PdfParser().parse(path)


def test_too_large_by_size(tmp_path: Path) -> None:
    path = build_legal_pdf(tmp_path / "PrüfG.pdf")
    with pytest.raises(FileTooLargeError, match=r"the limit is 0.01 MB \(ingestion.max_file_mb\)") as info:
        PdfParser(settings(max_file_mb=0.01)).parse(path)
    assert info.value.kind == "too_large"


def test_too_large_by_pages(tmp_path: Path) -> None:
    path = build_legal_pdf(tmp_path / "PrüfG.pdf")
    with pytest.raises(FileTooLargeError, match=r"the limit is 2 pages \(ingestion.max_pages\)"):
        PdfParser(settings(max_pages=2)).parse(path)


@pytest.mark.usefixtures("without_tesseract")
def test_scanned_pdf_without_tesseract_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(NoTextLayerError) as info:
        PdfParser().parse(build_scanned_pdf(tmp_path / "scan.pdf"))
    assert info.value.kind == "no_text"
    assert info.value.reason.startswith("no text layer (scanned PDF?); not read: Tesseract is not installed")


@pytest.mark.usefixtures("without_tesseract")
def test_partly_scanned_pdf_without_tesseract_is_a_warning(tmp_path: Path) -> None:
    doc = PdfParser().parse(build_scanned_pdf(tmp_path / "mixed.pdf", text_pages=2, image_pages=2))
    assert len(doc.warnings) == 1
    assert doc.warnings[0].startswith("no text layer on pages 3–4; not read: Tesseract is not installed")
    assert [bool(p.text) for p in doc.pages] == [True, True, False, False]
    assert "Seite mit Text 2" in doc.pages[1].text


def test_partly_scanned_pdf_reads_its_scanned_pages_by_ocr(tmp_path: Path) -> None:
    doc = PdfParser().parse(build_scanned_pdf(tmp_path / "mixed.pdf", text_pages=2, image_pages=2))
    assert [p.source for p in doc.pages] == ["text", "text", "ocr", "ocr"]
    assert doc.pages[2].text.startswith("Gescannte") and doc.pages[3].text.startswith("Gescannte")
    assert doc.warnings[0].startswith("pages 3–4 read by OCR (Tesseract, deu+eng), mean confidence")
    # the pictures are 50 dpi: what OCR reads with low confidence is named
    low = [p.number for p in doc.pages if p.ocr_confidence is not None and p.ocr_confidence < 80]
    assert low
    assert doc.warnings[1].startswith(f"OCR confidence below 80 % on page{'s' if len(low) > 1 else ''} ")


def test_repaired_but_readable_pdf_is_a_warning(tmp_path: Path) -> None:
    doc = PdfParser().parse(build_damaged_pdf(tmp_path / "damaged.pdf"))
    assert len(doc.warnings) == 1
    assert doc.warnings[0].startswith("damaged PDF, repaired on opening")
    assert doc.warnings[0].endswith("text may be incomplete")
    assert "Grenzwertsatz 12." in doc.text


def test_truncated_but_readable_pdf_is_a_warning(tmp_path: Path) -> None:
    doc = PdfParser().parse(build_tail_truncated_pdf(tmp_path / "cut.pdf"))
    assert len(doc.warnings) == 1
    assert doc.warnings[0].startswith("truncated PDF (the file ends early), repaired on opening")
    assert doc.title == LEGAL_TITLE
    assert "Grenzwertsatz 12." in doc.text
