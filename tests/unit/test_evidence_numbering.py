from __future__ import annotations

import pytest

from rabbithole.research.evidence.numbering import (
    NumberedSentence,
    group_runs,
    number_passages,
    render_numbered,
    sentence_text,
)
from rabbithole.research.models import Passage

DOC = (
    "§ 80 Grenzwerte für beruflich exponierte Personen\n\n"
    "(1) Für beruflich exponierte Personen beträgt der Grenzwert der effektiven Dosis 20\n"
    "Millisievert im Kalenderjahr. Die zuständige Behörde kann im Einzelfall eine\n"
    "effektive Dosis von 50 Millisievert zulassen.\n\n"
    "(2) Der Grenzwert der Organ-Äquivalentdosis beträgt 20 Millisievert."
)


def passage(chunk_id: str, start: int, end: int, **extra: object) -> Passage:
    fields: dict[str, object] = {
        "chunk_id": chunk_id,
        "collection": "sample",
        "document": "StrlSchG.pdf",
        "page": 64,
        "page_end": 64,
        "section": "§ 80",
        "start": start,
        "end": end,
        "text": DOC[start:end],
    }
    fields.update(extra)
    return Passage.model_validate(fields)


SPLIT = DOC.index("(2)")
FIRST = passage("c1", 0, SPLIT)
SECOND = passage("c2", SPLIT, len(DOC), page_end=65, section=None)


def test_numbers_run_across_passages_with_document_offsets() -> None:
    table = number_passages([FIRST, SECOND])
    assert [s.number for s in table] == [1, 2, 3, 4]
    assert [s.chunk_id for s in table] == ["c1", "c1", "c1", "c2"]
    assert [DOC[s.start : s.end] for s in table] == [
        "§ 80 Grenzwerte für beruflich exponierte Personen",
        "(1) Für beruflich exponierte Personen beträgt der Grenzwert der effektiven Dosis 20\n"
        "Millisievert im Kalenderjahr.",
        "Die zuständige Behörde kann im Einzelfall eine\neffektive Dosis von 50 Millisievert zulassen.",
        "(2) Der Grenzwert der Organ-Äquivalentdosis beträgt 20 Millisievert.",
    ]
    assert all(
        sentence_text(FIRST if s.chunk_id == "c1" else SECOND, s) == DOC[s.start : s.end] for s in table
    )
    assert [s.number for s in number_passages([SECOND], first=10)] == [10]


def test_render_shows_passages_and_numbered_sentences() -> None:
    table = number_passages([FIRST, SECOND])
    block = render_numbered([FIRST, SECOND], table)
    assert block == (
        '<passage id="c1" document="StrlSchG.pdf" page="64" section="§ 80">\n'
        "[1] § 80 Grenzwerte für beruflich exponierte Personen\n"
        "[2] (1) Für beruflich exponierte Personen beträgt der Grenzwert der effektiven Dosis 20 "
        "Millisievert im Kalenderjahr.\n"
        "[3] Die zuständige Behörde kann im Einzelfall eine effektive Dosis von 50 Millisievert zulassen.\n"
        "</passage>\n\n"
        '<passage id="c2" document="StrlSchG.pdf" page="64-65">\n'
        "[4] (2) Der Grenzwert der Organ-Äquivalentdosis beträgt 20 Millisievert.\n"
        "</passage>"
    )


def test_render_escapes_attributes_and_shows_each_sentence_once() -> None:
    odd = passage("c1", 0, SPLIT, document='A "quoted" & <odd>.pdf')
    table = number_passages([odd])
    block = render_numbered([odd, odd], table)
    assert 'document="A &quot;quoted&quot; &amp; &lt;odd&gt;.pdf"' in block
    assert block.count("[1] ") == 1
    assert block.count("<passage ") == 2


def test_sentence_text_rejects_a_foreign_sentence() -> None:
    with pytest.raises(ValueError):
        sentence_text(FIRST, NumberedSentence(1, "c2", 0, 5))
    with pytest.raises(ValueError):
        sentence_text(FIRST, NumberedSentence(1, "c1", SPLIT, SPLIT + 10))


TABLE = [
    NumberedSentence(1, "a", 0, 10),
    NumberedSentence(2, "a", 11, 20),
    NumberedSentence(3, "a", 21, 30),
    NumberedSentence(4, "a", 31, 40),
    NumberedSentence(5, "b", 0, 10),
    NumberedSentence(6, "b", 11, 20),
]


def numbers_of(runs: list[list[NumberedSentence]]) -> list[list[int]]:
    return [[s.number for s in run] for run in runs]


def test_runs_are_consecutive_sentences_of_one_chunk() -> None:
    assert numbers_of(group_runs([2, 1, 4, 6, 5], TABLE)) == [[1, 2], [4], [5, 6]]


def test_runs_drop_unknown_and_duplicate_numbers() -> None:
    assert numbers_of(group_runs([3, 3, 99, 0, -1, 2], TABLE)) == [[2, 3]]
    assert group_runs([], TABLE) == []
    assert group_runs([1], []) == []


def test_runs_with_a_gap_never_cross_chunks() -> None:
    assert numbers_of(group_runs([1, 3, 5], TABLE, max_gap=1)) == [[1, 3], [5]]
    assert numbers_of(group_runs([1, 4], TABLE, max_gap=1)) == [[1], [4]]
    assert numbers_of(group_runs([1, 4], TABLE, max_gap=2)) == [[1, 4]]
    with pytest.raises(ValueError):
        group_runs([1], TABLE, max_gap=-1)


def test_skip_overlap_numbers_a_shared_sentence_once() -> None:
    overlap_start = DOC.index("Die zuständige")
    first = passage("c1", 0, DOC.index("(2)"))
    second = passage("c2", overlap_start, len(DOC))
    other_document = passage("c3", overlap_start, len(DOC), document="Other.pdf")
    plain = number_passages([first, second, other_document])
    assert [s.chunk_id for s in plain] == ["c1", "c1", "c1", "c2", "c2", "c3", "c3"]
    skipped = number_passages([first, second, other_document], skip_overlap=True)
    assert [(s.number, s.chunk_id) for s in skipped] == [
        (1, "c1"),
        (2, "c1"),
        (3, "c1"),
        (4, "c2"),
        (5, "c3"),
        (6, "c3"),
    ]
    assert DOC[skipped[3].start : skipped[3].end].startswith("(2)")
    block = render_numbered([first, second], skipped[:4])
    assert block.count("Die zuständige Behörde") == 1
