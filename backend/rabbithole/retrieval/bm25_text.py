"""What BM25 indexes of a chunk, and the BM25 tokens of one document (stemmed in the language detected
over all its chunks)."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from pathlib import PurePath

from rabbithole.core.models import Chunk
from rabbithole.retrieval.tokenizer import (
    Language,
    detect_language,
    raw_tokens,
    section_tokens,
    stem_tokens,
)

_LANGUAGE_SAMPLE = 3000


def bm25_text(chunk: Chunk) -> str:
    """What BM25 indexes for a chunk: the document's name (so "AtG" in a query favours AtG.pdf), its section
    label and heading (the context the embedder is given too), then the text.

    Every chunk gets them, also the opening chunk whose text starts with the heading (its heading words
    count twice there): whether the text "already holds" the heading cannot be told from its layout alone (a
    PDF wraps a long heading over two lines, its DOCX or Markdown copy does not), and a rule that looked
    for it ranked the same passage differently in a PDF and in its copy (issue 28)."""
    head = (_document_label(chunk.document), chunk.section or "", chunk.heading)
    return " ".join(part for part in head if part) + "\n" + chunk.text


@functools.lru_cache(maxsize=65536)
def _document_label(document: str) -> str:
    return PurePath(document).stem


#: one document's BM25 token lists, computed ahead (see :mod:`~rabbithole.retrieval.bm25_indexes`), with
#: what they were computed from: (chunk id, indexed text) per chunk
PreparedDocument = tuple[tuple[tuple[str, str], ...], list[list[str]]]


def document_tokens(chunks: Sequence[Chunk]) -> tuple[Language, list[list[str]]]:
    """The stemming language of one document (detected over its chunks, in order) and the BM25 tokens of
    each chunk."""
    raw = [raw_tokens(bm25_text(c)) for c in chunks]
    sample: list[str] = []
    for tokens in raw:
        if len(sample) >= _LANGUAGE_SAMPLE:  # a few thousand words tell the language
            break
        sample.extend(tokens[:_LANGUAGE_SAMPLE])
    language = detect_language(sample)
    return language, [
        stem_tokens(tokens, language) + section_tokens(chunk.section)
        for chunk, tokens in zip(chunks, raw, strict=True)
    ]


def prepared_key(chunks: Sequence[Chunk]) -> tuple[tuple[str, str], ...]:
    return tuple((c.id, bm25_text(c)) for c in chunks)
