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
    """What BM25 indexes for a chunk: the document's name (so "AtG" in a query favours AtG.pdf), then the
    section label and heading unless the text already starts with them, then the text."""
    head = [_document_label(chunk.document)]
    heading = chunk.heading[:80]
    if (chunk.section or heading) and not (heading and heading in chunk.text[:400]):
        head.extend(part for part in (chunk.section or "", chunk.heading) if part)
    return " ".join(head) + "\n" + chunk.text


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
