"""What the embedder is given for a chunk, and a chunk's token count taken from the embedded input's."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from rabbithole.core.models import Chunk, PageText, ParsedDocument
from rabbithole.ingestion.embedding_text import embedding_context, embedding_input, text_token_counts

DOC = ParsedDocument(
    file_name="TestG.pdf", pages=[PageText(1, "x", 0)], title="Testgesetz", abbreviation="TestG"
)


def chunk(ordinal: int, text: str, section: str | None = None, heading: str = "") -> Chunk:
    return Chunk(f"c{ordinal}", "col", "TestG.pdf", ordinal, text, 0, len(text), 1, 1, section, heading)


def words(texts: Sequence[str]) -> list[int]:
    """A stand-in tokenizer: one token per word (it splits at every word boundary, as the real one does)."""
    return [len(text.split()) for text in texts]


def test_the_input_is_the_text_with_label_section_and_heading_in_front() -> None:
    first = chunk(0, "(1) Wer eine Anlage betreibt.", "§ 7", "Genehmigung")
    assert embedding_context(DOC, first) == "TestG § 7 Genehmigung"
    assert embedding_input(DOC, first) == "TestG § 7 Genehmigung\n(1) Wer eine Anlage betreibt."
    untitled = ParsedDocument(file_name="notes.pdf", pages=DOC.pages)
    assert embedding_input(untitled, chunk(1, "Text")) == "notes.pdf\nText"


def test_counts_are_the_inputs_less_their_contexts_each_context_counted_once() -> None:
    chunks = [
        chunk(0, "eins zwei drei", "§ 7", "Genehmigung"),
        chunk(1, "vier fünf", "§ 7", "Genehmigung"),
        chunk(2, "sechs", "§ 8", ""),
    ]
    inputs = words([embedding_input(DOC, c) for c in chunks])
    asked: list[list[str]] = []

    def count_many(texts: Sequence[str]) -> list[int]:
        asked.append(list(texts))
        return words(texts)

    assert text_token_counts(DOC, chunks, inputs, count_many) == [3, 2, 1]
    assert asked == [["TestG § 7 Genehmigung", "TestG § 8"]]


def test_counts_that_do_not_match_the_chunks_are_refused() -> None:
    with pytest.raises(ValueError, match="2 token counts for 1 chunks"):
        text_token_counts(DOC, [chunk(0, "eins")], [1, 2], words)
