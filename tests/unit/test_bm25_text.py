"""What BM25 indexes of a chunk does not depend on how its text is laid out: a section heading wrapped over
two lines (a PDF's narrow column) and the same heading on one line (its DOCX, HTML or Markdown copy) give a
passage the same BM25 score."""

from __future__ import annotations

from rabbithole.core.models import Chunk
from rabbithole.retrieval.bm25_index import BM25Index
from rabbithole.retrieval.tokenizer import tokenize_query

HEADING = "Hilfeleistung und Beratung von Behörden, Hilfsorganisationen und Einsatzkräften bei einem Notfall"
BODY = (
    "(1) Der Strahlenschutzverantwortliche hat zur Erfüllung der Pflichten nach § 107 dieser Verordnung "
    "dafür zu sorgen, dass bei einem Notfall den zuständigen Behörden Hilfe geleistet wird."
)
#: the opening chunk of StrlSchV § 152 as the PDF has it (the heading wrapped) and as its copies have it
WRAPPED = (
    "§ 152 Hilfeleistung und Beratung von Behörden, Hilfsorganisationen und\nEinsatzkräften bei einem Notfall"
)
ONE_LINE = f"§ 152 {HEADING}"
OTHERS = [
    ("§ 151", "Notfallübungen", "(1) Der Strahlenschutzverantwortliche hat Notfallübungen durchzuführen."),
    ("§ 153", "Meldung", "(1) Ein Notfall ist der zuständigen Behörde unverzüglich zu melden."),
]
QUESTION = (
    "Wobei muss der Strahlenschutzverantwortliche Behörden, Hilfsorganisationen und Einsatzkräften helfen?"
)


def _opening_chunk_score(opening_line: str) -> float:
    text = f"{opening_line}\n\n{BODY}"
    chunks = [Chunk("opening", "laws", "StrlSchV.pdf", 0, text, 0, len(text), 1, 1, "§ 152", HEADING)]
    for i, (section, heading, body) in enumerate(OTHERS, start=1):
        chunks.append(Chunk(f"c{i}", "laws", "StrlSchV.pdf", i, body, 0, len(body), 1, 1, section, heading))
    index = BM25Index.build("laws", chunks, "1")
    result = index.search(tokenize_query(QUESTION, index.languages), 10)
    return next(m.score for m in result.matches if m.id == "opening")


def test_a_heading_wrapped_over_two_lines_scores_as_the_same_heading_on_one_line() -> None:
    assert _opening_chunk_score(WRAPPED) == _opening_chunk_score(ONE_LINE)
