"""Structure-aware chunking over ParsedDocuments built in memory."""

from __future__ import annotations

import itertools
import re

import pytest

from rabbithole.core.config import IngestionSettings
from rabbithole.core.models import Chunk, PageText, ParsedDocument, SectionSpan
from rabbithole.ingestion.chunking import chunk_document
from rabbithole.ingestion.structure import detect_structure

SENTENCE = (
    "Die Behörde prüft nach § 5 Abs. 2 Nr. 3 des Gesetzes, ob die Anforderungen z. B. an den Schutz "
    "beruflich exponierter Personen eingehalten sind, und berücksichtigt den Stand der Technik. "
)


def settings(size: int = 400, overlap: int = 60) -> IngestionSettings:
    return IngestionSettings.model_validate({"chunk_size": size, "chunk_overlap": overlap})


def make_doc(pages: list[str], detect: bool = True) -> ParsedDocument:
    page_texts: list[PageText] = []
    offset = 0
    for number, text in enumerate(pages, start=1):
        page_texts.append(PageText(number, text, offset))
        offset += len(text) + len(ParsedDocument.PAGE_SEPARATOR)
    doc = ParsedDocument(file_name="TestG.pdf", pages=page_texts, title="Testgesetz", abbreviation="TestG")
    if detect:
        structure = detect_structure(doc.text)
        doc.sections = structure.sections
        doc.is_legal = structure.is_legal
    return doc


def statute() -> ParsedDocument:
    long_paragraphs = "\n\n".join(f"({n}) " + SENTENCE * 3 for n in range(1, 7))
    page1 = (
        "Testgesetz (TestG)\n\nTeil 1 - Allgemeines\n\n§ 1 Zweck\n\nZweck ist der Schutz.\n\n"
        "§ 2 Pflichten der Betreiber\n\n" + long_paragraphs
    )
    page2 = (
        "(7) " + SENTENCE * 2 + "\n\n§ 2a Ausnahmen\n\nAusnahmen sind zulässig.\n\n"
        "Teil 2 - Schluss\n\n§ 3 Inkrafttreten\n\n" + SENTENCE * 9 + "Ende."
    )
    return make_doc([page1, page2])


def section_of(doc: ParsedDocument, chunk: Chunk) -> SectionSpan:
    owners = [s for s in doc.sections if s.start <= chunk.start and chunk.end <= s.end]
    assert len(owners) == 1, f"chunk {chunk.ordinal} straddles sections"
    return owners[0]


def test_chunks_are_verbatim_spans_within_one_labelled_section() -> None:
    doc = statute()
    chunks = chunk_document(doc, "laws", settings())
    text = doc.text
    assert [c.ordinal for c in chunks] == list(range(len(chunks)))
    for chunk in chunks:
        assert text[chunk.start : chunk.end] == chunk.text
        span = section_of(doc, chunk)
        assert chunk.section == span.label
        assert chunk.heading == span.heading
        assert chunk.section_path == span.path
        assert chunk.collection == "laws"
        assert chunk.document == "TestG.pdf"
        assert chunk.token_count == 0
    assert {c.section for c in chunks} == {None, "§ 1", "§ 2", "§ 2a", "§ 3"}
    section_2 = [c for c in chunks if c.section == "§ 2"]
    assert section_2[0].heading == "Pflichten der Betreiber"
    assert section_2[0].section_path == ("Teil 1 - Allgemeines",)
    assert section_2[0].text.startswith("§ 2 Pflichten der Betreiber")


@pytest.mark.parametrize(("size", "overlap"), [(400, 60), (700, 0), (1200, 150), (250, 100)])
def test_size_and_overlap_are_respected(size: int, overlap: int) -> None:
    doc = statute()
    chunks = chunk_document(doc, "laws", settings(size, overlap))
    for chunk in chunks:
        assert len(chunk.text) <= size * 1.25
    for before, after in itertools.pairwise(chunks):
        if before.section != after.section:
            assert after.start >= before.end
            continue
        shared = before.end - after.start
        if overlap:
            assert 0 < shared <= overlap
        else:
            assert shared <= 0


def test_words_are_never_cut() -> None:
    doc = statute()
    text = doc.text
    for chunk in chunk_document(doc, "laws", settings(300, 80)):
        assert chunk.start == 0 or text[chunk.start - 1].isspace()
        assert chunk.end == len(text) or text[chunk.end].isspace()
        assert chunk.text == chunk.text.strip()


def test_long_sections_split_at_paragraphs_first() -> None:
    doc = statute()
    text = doc.text
    chunks = [c for c in chunk_document(doc, "laws", settings(800, 0)) if c.section == "§ 2"]
    assert len(chunks) > 2
    for chunk in chunks[:-1]:
        assert re.match(r"[ \t]*\n\n", text[chunk.end :])
    for chunk in chunks[1:]:
        assert re.match(r"\(\d+\) ", chunk.text)


def test_paragraphs_longer_than_the_size_split_at_sentences_not_abbreviations() -> None:
    doc = statute()
    chunks = [c for c in chunk_document(doc, "laws", settings(500, 0)) if c.section == "§ 3"]
    assert len(chunks) >= 3
    for chunk in chunks[:-1]:
        assert chunk.text.endswith("Stand der Technik.")


def test_tiny_tail_merges_into_the_previous_chunk() -> None:
    body = "§ 1 Test\n\n" + SENTENCE * 4 + "Kurz."
    doc = make_doc([body])
    size = len(body) - 3  # the last sentence break leaves only "Kurz." behind
    chunks = chunk_document(doc, "laws", settings(size, 50))
    assert len(chunks) == 1
    assert chunks[0].text.endswith("Kurz.")


def test_pages_follow_offsets() -> None:
    doc = statute()
    chunks = chunk_document(doc, "laws", settings())
    assert any(c.page == 1 and c.page_end == 2 for c in chunks)  # § 2 runs over the page break
    for chunk in chunks:
        assert chunk.page == doc.page_at(chunk.start)
        assert chunk.page_end == doc.page_at(chunk.end - 1)
    last = [c for c in chunks if c.section == "§ 3"]
    assert {c.page for c in last} == {2}


def test_ids_are_deterministic_and_unique() -> None:
    first = chunk_document(statute(), "laws", settings())
    again = chunk_document(statute(), "laws", settings())
    other = chunk_document(statute(), "other", settings())
    assert [c.id for c in first] == [c.id for c in again]
    assert len({c.id for c in first}) == len(first)
    assert all(re.fullmatch(r"[0-9a-f]{40}", c.id) for c in first)
    assert not {c.id for c in first} & {c.id for c in other}


def test_without_sections_the_text_is_chunked_by_paragraphs() -> None:
    paragraphs = [f"Absatz {n}. " + "Dies ist ein Satz über Strahlenschutz. " * 6 for n in range(1, 8)]
    doc = make_doc(["\n\n".join(paragraphs)], detect=False)
    chunks = chunk_document(doc, "notes", settings(600, 0))
    assert len(chunks) > 1
    assert all(c.section is None and c.heading == "" and c.section_path == () for c in chunks)
    text = doc.text
    for chunk in chunks:
        assert text[chunk.start : chunk.end] == chunk.text
        assert chunk.text.startswith("Absatz ")


def test_empty_document_has_no_chunks() -> None:
    assert chunk_document(make_doc(["", "  "]), "laws", settings()) == []


def test_a_text_documents_pages_do_not_move_its_chunk_ends() -> None:
    """DOCX, HTML, Markdown and text are cut into pages at block ends: the page break stands where a blank
    line stood, so it is a paragraph break for chunking, and the chunks are those of the text on one page
    (a PDF's page break stays a line break: its pages often end mid-sentence)."""
    from rabbithole.ingestion.text_document import Block, build_document

    blocks = [Block("§ 1 Pflichten", heading=3)]
    blocks += [Block(f"({n}) " + SENTENCE * (1 + n % 3)) for n in range(1, 13)]
    blocks += [Block("§ 2 Ausnahmen", heading=3), Block("(1) " + SENTENCE)]
    one_page = build_document("TestG.md", blocks, page_chars=1_000_000, max_pages=10)
    paged = build_document("TestG.md", blocks, page_chars=1, max_pages=100)  # a page per block
    assert len(one_page.pages) == 1 and len(paged.pages) == len(blocks)

    def texts(doc: ParsedDocument) -> list[str]:
        return [re.sub(r"\s+", " ", c.text) for c in chunk_document(doc, "c", settings(700, 100))]

    assert texts(paged) == texts(one_page)
