"""Compression: the few passages of the fetched pages that answer the questions, within a character budget.

Each page's extracted text is split into sentences (``research.evidence.sentences``, offsets only), the
sentences are scored, and the sentences at or above the threshold that follow each other form one passage
(cut where it would grow past ``passage_chars``). The passages of all pages compete by score for the budget,
at most ``passages_per_page`` from one page, the same text once. A passage is a pair of offsets into its
page's text: its quote is ``text[start:end]``, verbatim by construction.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rabbithole.research.evidence.sentences import SentenceSpan, split_sentences
from rabbithole.web.scoring import Relevance

#: Sentences of one page that are scored at most (long pages are read from the top).
MAX_SENTENCES_PER_PAGE = 400
#: Shorter sentences are not scored on their own (headings, menu items, captions, "Read more").
MIN_SENTENCE_CHARS = 30
MIN_SENTENCE_WORDS = 6


@dataclass(frozen=True, slots=True)
class Span:
    """A candidate passage: page ``page``'s text ``[start, end)``, its score and best question."""

    page: int
    start: int
    end: int
    score: float
    question: int


def candidate_sentences(text: str, *, passage_chars: int) -> list[SentenceSpan]:
    """The sentences of ``text`` worth scoring, in order."""
    spans = split_sentences(text, max_chars=passage_chars)[:MAX_SENTENCES_PER_PAGE]
    return [
        s
        for s in spans
        if s.end - s.start >= MIN_SENTENCE_CHARS and len(text[s.start : s.end].split()) >= MIN_SENTENCE_WORDS
    ]


def page_passages(
    page: int,
    sentences: Sequence[SentenceSpan],
    relevance: Sequence[Relevance],
    *,
    min_relevance: float,
    passage_chars: int,
) -> list[Span]:
    """Runs of consecutive relevant sentences of one page, each at most ``passage_chars`` long."""
    passages: list[Span] = []
    run: list[tuple[SentenceSpan, Relevance]] = []

    def close() -> None:
        if run:
            best = max(run, key=lambda item: item[1].score)[1]
            passages.append(Span(page, run[0][0].start, run[-1][0].end, best.score, best.question))
            run.clear()

    for sentence, rel in zip(sentences, relevance, strict=True):
        if rel.score < min_relevance:
            close()
            continue
        if run and sentence.end - run[0][0].start > passage_chars:
            close()
        run.append((sentence, rel))
    close()
    return passages


def select(
    candidates: Sequence[Span], texts: Sequence[str], *, budget_chars: int, per_page: int
) -> list[Span]:
    """The best candidates within the budget (best first): at most ``per_page`` per page, no text twice."""
    chosen: list[Span] = []
    used = 0
    per: dict[int, int] = {}
    seen: set[str] = set()
    for span in sorted(candidates, key=lambda s: (-s.score, s.page, s.start)):
        size = span.end - span.start
        key = " ".join(texts[span.page][span.start : span.end].split()).casefold()
        if used + size > budget_chars or per.get(span.page, 0) >= per_page or key in seen:
            continue
        chosen.append(span)
        seen.add(key)
        used += size
        per[span.page] = per.get(span.page, 0) + 1
    return chosen
