"""DOCX, HTML, Markdown and text read into the ParsedDocument a PDF gives (issue 28, "Other formats"):
copies of kb/sample laws keep the PDF's text, sections and abbreviation; headings, tables, line breaks,
encodings and pages as the readers document them; bad files reported with a clear reason."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from fixtures.format_files import (
    DRAFT_SENTENCE,
    LATIN1_MARKDOWN,
    SAMPLE,
    write_corrupt_docx,
    write_draft,
    write_encrypted_docx,
    write_large_html,
    write_latin1_markdown,
)
from rabbithole.core.config import IngestionSettings
from rabbithole.core.errors import InvalidRequestError
from rabbithole.core.models import PageText, ParsedDocument
from rabbithole.devtools.format_copies import write_copy
from rabbithole.ingestion.discovery import discover
from rabbithole.ingestion.errors import (
    CorruptDocumentError,
    EmptyDocumentError,
    EncryptedDocumentError,
    FileTooLargeError,
    WrongContentError,
)
from rabbithole.ingestion.formats import format_of, supported_suffixes
from rabbithole.ingestion.parser import AutoParser, parse_document
from rabbithole.ingestion.structure import detect_structure


def squeezed(text: str) -> str:
    return re.sub(r"\s+", "", text)


def assert_offsets_hold(doc: ParsedDocument) -> None:
    """Every page is the document text at its offset, and every section lies inside the text."""
    text = doc.text
    for page in doc.pages:
        assert text[page.offset : page.offset + len(page.text)] == page.text
    for section in doc.sections:
        assert 0 <= section.start < section.end <= len(text)


@pytest.fixture(scope="module")
def atg() -> ParsedDocument:
    return parse_document(SAMPLE / "AtG.pdf")


@pytest.mark.parametrize("suffix", [".docx", ".html", ".md"])
def test_a_copy_of_a_law_keeps_the_pdfs_text_sections_and_abbreviation(
    atg: ParsedDocument, suffix: str, tmp_path: Path
) -> None:
    copy = parse_document(write_copy(atg, tmp_path / f"AtG{suffix}"))
    assert copy.file_name == f"AtG{suffix}"
    assert squeezed(copy.text) == squeezed(atg.text)
    assert [(s.label, s.heading, s.path) for s in copy.sections] == [
        (s.label, s.heading, s.path) for s in atg.sections
    ]
    assert (copy.abbreviation, copy.is_legal) == ("AtG", True)
    assert copy.title.startswith("Gesetz über die friedliche Verwendung der Kernenergie")
    assert_offsets_hold(copy)
    section_7 = next(s for s in copy.sections if s.label == "§ 7")
    assert copy.text[section_7.start :].startswith("§ 7 Genehmigung von Anlagen")
    assert section_7.path == next(s for s in atg.sections if s.label == "§ 7").path


WRAPPED_DIVISIONS = (
    "Gesetz über Prüfungen (PrüfG)\n\n"
    "Kapitel 2 - Vorabkontrolle bei radioaktiven Stoffen oder\nionisierender Strahlung\n\n"
    "Abschnitt 1 - Errichtung von Anlagen zur Erzeugung ionisierender\nStrahlung\n\n"
    "§ 10 Genehmigungsbedürftige Errichtung\n\n(1) Wer eine Anlage errichtet, bedarf der Genehmigung.\n\n"
    "§ 11 Voraussetzungen\n\n(1) Die Genehmigung nach § 10 ist zu erteilen, wenn die Anlage sicher ist.\n"
)


@pytest.mark.parametrize("suffix", [".docx", ".html", ".md"])
def test_a_copy_keeps_division_headings_printed_over_two_lines(suffix: str, tmp_path: Path) -> None:
    """A PDF prints a long Kapitel heading over two lines; in the copy it stays one heading (a Markdown
    heading is one line: its second line was read as body text, and the Kapitel became a section)."""
    structure = detect_structure(WRAPPED_DIVISIONS)
    law = ParsedDocument(
        "PrüfG.pdf",
        [PageText(1, WRAPPED_DIVISIONS, 0)],
        "Gesetz über Prüfungen (PrüfG)",
        "PrüfG",
        structure.sections,
        is_legal=structure.is_legal,
    )
    copy = parse_document(write_copy(law, tmp_path / f"PrüfG{suffix}"))
    assert [(s.label, s.heading, s.path) for s in copy.sections] == [
        (s.label, s.heading, s.path) for s in law.sections
    ]
    assert [s.label for s in copy.sections] == [None, "§ 10", "§ 11"]
    assert squeezed(copy.text) == squeezed(law.text)


def test_pages_are_parts_of_the_text_cut_at_blocks(atg: ParsedDocument, tmp_path: Path) -> None:
    settings = IngestionSettings(text_page_chars=2000)
    copy = AutoParser(settings).parse(write_copy(atg, tmp_path / "AtG.md"))
    assert len(copy.pages) > 10
    assert all(len(p.text) >= 990 for p in copy.pages[:-1])  # a page ends once it holds half, at a heading
    assert all(not p.text.startswith(("\n", " ")) and not p.text.endswith("\n") for p in copy.pages)
    assert_offsets_hold(copy)
    headings = ("§", "Erster", "Zweiter", "Dritter", "Vierter", "Fünfter", "Sechster", "Siebenter", "Anlage")
    assert sum(p.text.startswith(headings) for p in copy.pages) >= len(copy.pages) // 3
    assert [p.number for p in copy.pages] == list(range(1, len(copy.pages) + 1))


def test_a_word_draft_has_headings_a_table_and_line_breaks(tmp_path: Path) -> None:
    doc = parse_document(write_draft(tmp_path / "Entwurf.docx"))
    assert doc.title == "Entwurf einer Stellungnahme"
    assert [(s.label, s.heading, s.path) for s in doc.sections] == [
        ("1", "Anlass", ("Entwurf einer Stellungnahme",)),  # numbered headings under the larger title
        ("2", "Bewertung", ("Entwurf einer Stellungnahme",)),
    ]
    assert DRAFT_SENTENCE in doc.text
    assert "Die Unterlagen wurden vollständig geprüft.\nOffene Punkte sind unten aufgeführt." in doc.text
    assert "Unterlage | Stand\nSicherheitsbericht | Entwurf 3" in doc.text
    assert_offsets_hold(doc)


def test_html_main_text_without_navigation_with_headings_and_line_breaks(tmp_path: Path) -> None:
    page = tmp_path / "Leitfaden.html"
    page.write_text(
        "<!DOCTYPE html><html><head><meta charset='utf-8'><title>Leitfaden Strahlenschutz</title></head>"
        "<body>"
        "<nav><a href='/'>Startseite</a> | <a href='/kontakt'>Kontakt</a></nav><main>"
        "<h1>Leitfaden Strahlenschutz</h1><p>Dieser Leitfaden erläutert die Pflichten der Betreiber.</p>"
        "<h2>1 Aufsicht</h2><p>Die Behörde prüft jährlich.<br>Sie kann Anordnungen treffen.</p>"
        "<h2>2 Messungen</h2><table><tr><td>Ort</td><td>Wert</td></tr>"
        "<tr><td>Halle 1</td><td>0,2 mSv</td></tr></table></main>"
        "<footer>© Behörde, Impressum</footer></body></html>",
        encoding="utf-8",
    )
    doc = parse_document(page)
    assert doc.title == "Leitfaden Strahlenschutz"
    assert "Startseite" not in doc.text and "Impressum" not in doc.text
    assert "Die Behörde prüft jährlich.\nSie kann Anordnungen treffen." in doc.text
    assert "Ort | Wert\nHalle 1 | 0,2 mSv" in doc.text
    assert [(s.label, s.heading) for s in doc.sections if s.label] == [("1", "Aufsicht"), ("2", "Messungen")]
    assert_offsets_hold(doc)


def test_markdown_headings_fences_and_escapes(tmp_path: Path) -> None:
    path = tmp_path / "notes.md"
    path.write_text(
        "---\ntitle: Notizen zur Prüfung\n---\n"
        "Einleitung ohne Überschrift.\n\n"
        "Teil Eins\n=========\n\nText des ersten Teils.\n\n"
        "## Unterpunkt ##\n\n\\# kein Heading\nzweite Zeile **fett**\n\n"
        "```\n# kein Heading im Code\n```\n\n"
        "Teil Zwei\n---------\n\nLetzter Absatz.\n",
        encoding="utf-8",
    )
    doc = parse_document(path)
    assert doc.title == "Notizen zur Prüfung"
    assert [(s.heading, s.path) for s in doc.sections if s.heading] == [
        ("Teil Eins", ()),
        ("Unterpunkt", ("Teil Eins",)),
        ("Teil Zwei", ("Teil Eins",)),  # underlined with --- : a heading of level 2
    ]
    assert "# kein Heading\nzweite Zeile **fett**" in doc.text
    assert "```\n# kein Heading im Code\n```" in doc.text
    assert "title:" not in doc.text
    assert_offsets_hold(doc)


def test_markdown_numbered_headings_nest_under_the_title_and_by_their_numbers(tmp_path: Path) -> None:
    path = tmp_path / "guide.md"
    path.write_text(
        "# Field guide\n\nHow to measure.\n\n## 1 Scope\n\nWhat it covers.\n\n### 1.1 Terms\n\nDose.\n\n"
        "## 2 Use\n\nWeekly.\n\n## Notes\n\nAn unnumbered heading beside the numbered ones.\n",
        encoding="utf-8",
    )
    doc = parse_document(path)
    assert [(s.label, s.heading, s.path) for s in doc.sections] == [
        (None, "Field guide", ()),
        ("1", "Scope", ("Field guide",)),
        ("1.1", "Terms", ("Field guide", "1 Scope")),
        ("2", "Use", ("Field guide",)),
        (None, "Notes", ("Field guide",)),
    ]
    assert_offsets_hold(doc)


def test_plain_text_takes_numbered_headings_as_sections(tmp_path: Path) -> None:
    path = tmp_path / "Vermerk.txt"
    path.write_text(
        "Vermerk\n\n§ 1 Zweck\n\nDieser Vermerk hält das Ergebnis fest.\n\n§ 2 Ergebnis\n\nKeine Mängel.\n",
        encoding="utf-8",
    )
    doc = parse_document(path)
    assert [(s.label, s.heading) for s in doc.sections if s.label] == [("§ 1", "Zweck"), ("§ 2", "Ergebnis")]
    assert doc.is_legal


def test_latin1_markdown_is_decoded_with_a_warning(tmp_path: Path) -> None:
    doc = parse_document(write_latin1_markdown(tmp_path / "Prüfbericht.md"))
    assert "Überprüfung der Strahlenschutzmaßnahmen" in doc.text
    assert squeezed(doc.text) == squeezed(LATIN1_MARKDOWN.replace("#", ""))
    assert [s.heading for s in doc.sections if s.label] == ["Maßnahmen", "Ergebnis"]
    assert doc.warnings == ["not UTF-8: read as Windows-1252 / Latin-1 (ISO 8859-1)"]


def test_an_encrypted_docx_is_reported_as_password_protected(tmp_path: Path) -> None:
    with pytest.raises(EncryptedDocumentError, match="password-protected") as raised:
        parse_document(write_encrypted_docx(tmp_path / "Geheim.docx"))
    assert raised.value.file_name == "Geheim.docx"


def test_a_corrupt_zip_named_docx_is_reported_as_damaged(tmp_path: Path) -> None:
    with pytest.raises(CorruptDocumentError, match="damaged DOCX") as raised:
        parse_document(write_corrupt_docx(tmp_path / "Kaputt.docx"))
    assert raised.value.file_name == "Kaputt.docx"


def test_an_html_file_over_the_limit_is_reported_before_it_is_read(tmp_path: Path) -> None:
    path = write_large_html(tmp_path / "Export.html", 50)
    with pytest.raises(FileTooLargeError, match=r"the limit is 20 MB \(ingestion.max_text_file_mb\)"):
        parse_document(path)
    small = AutoParser(IngestionSettings(max_text_file_mb=0.0001))  # the setting applies to Markdown too
    with pytest.raises(FileTooLargeError, match=r"the limit is 0\.0001 MB"):
        small.parse(write_latin1_markdown(tmp_path / "a.md"))


def test_content_of_another_type_behind_a_name_is_told(tmp_path: Path) -> None:
    pdf_as_docx = tmp_path / "Bescheid.docx"
    pdf_as_docx.write_bytes((SAMPLE / "AtKostV.pdf").read_bytes())
    with pytest.raises(
        WrongContentError, match=r"not a Word .docx file: its content is .*despite the .docx name"
    ):
        parse_document(pdf_as_docx)
    image_as_md = tmp_path / "notes.md"
    image_as_md.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(200))
    with pytest.raises(WrongContentError, match="a PNG image"):
        parse_document(image_as_md)
    empty = tmp_path / "leer.txt"
    empty.write_bytes(b"")
    with pytest.raises(EmptyDocumentError):
        parse_document(empty)


def test_the_format_table_names_every_suffix_read() -> None:
    assert set(supported_suffixes()) >= {".pdf", ".docx", ".html", ".htm", ".md", ".markdown", ".txt"}
    docx = format_of("Entwurf.DOCX")
    assert docx is not None and (docx.name, docx.viewer) == ("docx", "text")
    pdf = format_of("AtG.pdf")
    assert pdf is not None and pdf.viewer == "pdf"
    assert format_of("Tabelle.xlsx") is None


def test_discovery_picks_up_every_format_read_in_a_collection_folder(tmp_path: Path) -> None:
    folder = tmp_path / "akte"
    (folder / "sub").mkdir(parents=True)
    for name in ("a.pdf", "b.DOCX", "c.html", "d.htm", "sub/e.md", "f.markdown", "g.txt", "h.xlsx", "i.doc"):
        (folder / name).write_bytes(b"x")
    [source] = discover(folder)
    assert [source.file_name(p) for p in source.files] == [
        "a.pdf", "b.DOCX", "c.html", "d.htm", "f.markdown", "g.txt", "sub/e.md"
    ]  # fmt: skip
    [single] = discover(folder / "b.DOCX")
    assert [p.name for p in single.files] == ["b.DOCX"] and not single.complete
    with pytest.raises(InvalidRequestError, match=r"h\.xlsx: not a type that can be ingested; PDF, Word"):
        discover(folder / "h.xlsx")
