"""Numbered sentences of the passages an extraction call shows the model.

The model answers with sentence numbers, never with text: ``number_passages`` builds the table of numbers
(each a chunk id and document-text offsets), ``render_numbered`` the prompt block that shows them, and
``group_runs`` turns the numbers a model chose into runs of neighbouring sentences of one chunk, each of
which becomes one quote (see ``quotes.quote_from_run``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from html import escape

from rabbithole.research.evidence.sentences import split_sentences
from rabbithole.research.models import Passage

__all__ = [
    "NumberedSentence",
    "group_runs",
    "number_passages",
    "prompt_id",
    "render_numbered",
    "sentence_text",
]


@dataclass(frozen=True, slots=True)
class NumberedSentence:
    """Sentence ``number`` of an extraction prompt: offsets ``[start, end)`` in the document text."""

    number: int
    chunk_id: str
    start: int
    end: int


def number_passages(
    passages: Sequence[Passage], first: int = 1, *, max_chars: int = 500, skip_overlap: bool = False
) -> list[NumberedSentence]:
    """The sentences of every passage, numbered consecutively from ``first`` across the passages.

    ``skip_overlap``: leave out a sentence that lies inside a sentence already numbered for an earlier
    passage of the same document (neighbouring chunks overlap), so the prompt shows it once.
    """
    table: list[NumberedSentence] = []
    seen: dict[tuple[str, str], list[tuple[int, int]]] = {}
    number = first
    for passage in passages:
        numbered = seen.setdefault((passage.collection, passage.document), [])
        added: list[tuple[int, int]] = []
        for span in split_sentences(passage.text, passage.start, max_chars=max_chars):
            if skip_overlap and any(s <= span.start and span.end <= e for s, e in numbered):
                continue
            table.append(NumberedSentence(number, passage.chunk_id, span.start, span.end))
            added.append((span.start, span.end))
            number += 1
        numbered.extend(added)
    return table


def sentence_text(passage: Passage, sentence: NumberedSentence) -> str:
    """The verbatim text of ``sentence`` (which must lie in ``passage``)."""
    if sentence.chunk_id != passage.chunk_id:
        raise ValueError(f"sentence {sentence.number} is not in passage {passage.chunk_id}")
    start, end = sentence.start - passage.start, sentence.end - passage.start
    if start < 0 or end > len(passage.text) or start >= end:
        raise ValueError(f"sentence {sentence.number} lies outside passage {passage.chunk_id}")
    return passage.text[start:end]


def render_numbered(passages: Sequence[Passage], sentences: Sequence[NumberedSentence]) -> str:
    """The prompt block: one ``<passage ...>`` element per passage, its sentences as ``[n] text`` lines.

    Inner whitespace is collapsed for display only; the offsets in ``sentences`` stay the truth. A sentence
    is shown once, under the first passage of its chunk it lies in; a passage without sentences is shown
    empty, so the model still sees where it came from.
    """
    shown: set[int] = set()
    blocks: list[str] = []
    for passage in passages:
        lines = [_open_tag(passage)]
        for sentence in sentences:
            if sentence.number in shown or not _inside(passage, sentence):
                continue
            shown.add(sentence.number)
            lines.append(f"[{sentence.number}] {' '.join(sentence_text(passage, sentence).split())}")
        lines.append("</passage>")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def _inside(passage: Passage, sentence: NumberedSentence) -> bool:
    return (
        sentence.chunk_id == passage.chunk_id
        and passage.start <= sentence.start < sentence.end <= passage.start + len(passage.text)
    )


#: Characters of a chunk id a prompt shows: the model reads sentence numbers, never ids; the opening
#: tells passages apart in a prompt and in the logs (the whole id cost 24 tokens per passage).
PROMPT_ID_CHARS = 8


def prompt_id(chunk_id: str) -> str:
    """How an extraction prompt names a chunk (its id's opening)."""
    return chunk_id[:PROMPT_ID_CHARS]


def _open_tag(passage: Passage) -> str:
    pages = str(passage.page) if passage.page_end <= passage.page else f"{passage.page}-{passage.page_end}"
    attributes = [
        ("id", prompt_id(passage.chunk_id)),
        ("document", passage.document),
        ("page", pages),
    ]
    if passage.section:
        attributes.append(("section", passage.section))
    rendered = " ".join(f'{name}="{escape(value, quote=True)}"' for name, value in attributes)
    return f"<passage {rendered}>"


def group_runs(
    numbers: Iterable[int], table: Sequence[NumberedSentence], max_gap: int = 0
) -> list[list[NumberedSentence]]:
    """The chosen sentences as runs: sorted, duplicates and unknown numbers dropped, a new run where the
    chunk changes or more than ``max_gap`` sentence numbers are skipped (0: only adjacent numbers join).

    A run's quote spans from its first to its last sentence, so with ``max_gap`` > 0 it includes the
    skipped sentences between them.
    """
    if max_gap < 0:
        raise ValueError("max_gap must not be negative")
    by_number = {sentence.number: sentence for sentence in table}
    chosen = sorted({n for n in numbers if n in by_number})
    runs: list[list[NumberedSentence]] = []
    for number in chosen:
        sentence = by_number[number]
        if runs:
            last = runs[-1][-1]
            if last.chunk_id == sentence.chunk_id and number - last.number - 1 <= max_gap:
                runs[-1].append(sentence)
                continue
        runs.append([sentence])
    return runs
