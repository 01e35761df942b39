"""Plain data shared across ingestion, retrieval and the reference engine."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class WordBox:
    """Where a word read by OCR lies: its characters [start, end) in the page text, and its box on the page
    as fractions of the page's width and height (0..1 from the top left), whatever size the page is drawn."""

    start: int
    end: int
    x0: float
    y0: float
    x1: float
    y1: float


@dataclass(frozen=True, slots=True)
class PageText:
    """Body text of one PDF page (headers/footers removed) and where it starts in the document text.

    `source` says where the text came from: "text" (the PDF's text layer) or "ocr" (Tesseract on the page's
    image; then `ocr_confidence` is the mean word confidence in percent and `words` the word boxes)."""

    number: int  # 1-based physical page number
    text: str
    offset: int  # start of this page's text in ParsedDocument.text
    source: str = "text"
    ocr_confidence: float | None = None
    words: tuple[WordBox, ...] = ()


@dataclass(frozen=True, slots=True)
class SectionSpan:
    """A structural unit of a document: a § section, a numbered section or a heading's scope."""

    label: str | None  # "§ 80", "§ 9a", "Anlage 4", "4.2", or None for unnumbered headings
    heading: str  # heading text without the label, e.g. "Grenzwerte für beruflich exponierte Personen"
    path: tuple[str, ...]  # enclosing headings, outermost first, e.g. ("Teil 2 - ...", "Kapitel 1 - ...")
    start: int  # document text offsets [start, end)
    end: int
    level: int = 0


@dataclass(slots=True)
class ParsedDocument:
    """What a parser extracts from one file. Document text = page texts joined by PAGE_SEPARATOR."""

    file_name: str
    pages: list[PageText]
    title: str = ""
    abbreviation: str = ""  # official abbreviation if the document states one, e.g. "AtG"
    sections: list[SectionSpan] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    is_legal: bool = False  # § structure detected
    #: pages cut at paragraph ends (DOCX, HTML, Markdown, text: at blocks), so a page break is a paragraph
    #: break for chunking; a PDF's page break is a line break only (its pages often end mid-sentence)
    page_breaks_end_paragraphs: bool = False

    PAGE_SEPARATOR = "\n\f"

    @property
    def text(self) -> str:
        return self.PAGE_SEPARATOR.join(p.text for p in self.pages)

    def page_at(self, offset: int) -> int:
        """1-based page number containing the document text offset."""
        found = self.pages[0].number if self.pages else 1
        for page in self.pages:
            if page.offset <= offset:
                found = page.number
            else:
                break
        return found


@dataclass(frozen=True, slots=True)
class Chunk:
    """A retrievable passage. Offsets index the document text; page/page_end are 1-based."""

    id: str
    collection: str
    document: str  # file name relative to the collection folder, e.g. "StrlSchG.pdf"
    ordinal: int
    text: str
    start: int
    end: int
    page: int
    page_end: int
    section: str | None
    heading: str
    section_path: tuple[str, ...] = ()
    token_count: int = 0


@dataclass(frozen=True, slots=True)
class SearchHit:
    chunk: Chunk
    score: float  # fused score in [0, 1]: 1.0 = ranked first by every retriever
    similarity: float | None = None  # cosine similarity to the query, when known
    bm25: float | None = None  # raw BM25 score, when the chunk was a BM25 candidate
    vector_rank: int | None = None
    bm25_rank: int | None = None
