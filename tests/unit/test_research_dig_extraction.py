"""The pure parts of reading an extraction batch (research.dig.extraction): which passages an answer lacks,
how they are split into smaller calls, how a task's extra calls are shared, how unread passages are named."""

from __future__ import annotations

from types import SimpleNamespace

from rabbithole.research.dig.extraction import (
    missing_passages,
    retry_shares,
    split_missing,
    unread_error,
    unread_places,
)
from rabbithole.research.evidence.numbering import NumberedSentence
from rabbithole.research.models import Passage, UnreadPassage


def passage(chunk_id: str, document: str = "StrlSchG.pdf", page: int = 1) -> Passage:
    return Passage(
        chunk_id=chunk_id,
        collection="sample",
        document=document,
        page=page,
        page_end=page,
        start=0,
        end=1,
        text="x",
    )


GROUP = [passage("a"), passage("b"), passage("c")]
TABLE = [NumberedSentence(1, "a", 0, 1), NumberedSentence(2, "b", 0, 1), NumberedSentence(3, "c", 0, 1)]


def finding(*sentences: int) -> SimpleNamespace:
    return SimpleNamespace(fact="f", sentences=list(sentences), answers=True)


def test_the_passages_an_answer_lacks() -> None:
    assert missing_passages(GROUP, TABLE, None, truncated=False) == GROUP  # no valid answer
    assert missing_passages(GROUP, TABLE, [finding(1)], truncated=False) == []  # complete: found nothing else
    cut = missing_passages(GROUP, TABLE, [finding(1), finding(9)], truncated=True)
    assert [p.chunk_id for p in cut] == ["b", "c"]  # cut: what no kept finding cites
    assert missing_passages(GROUP, TABLE, [], truncated=True) == GROUP


def test_smaller_batches_are_halves_down_to_one_passage() -> None:
    five = [passage(str(i)) for i in range(5)]
    assert [[p.chunk_id for p in g] for g in split_missing(five)] == [["0", "1", "2"], ["3", "4"]]
    assert split_missing(five[:1]) == [five[:1]]
    assert split_missing([]) == []


def test_a_tasks_extra_calls_are_shared_among_its_batches() -> None:
    assert retry_shares(8, 3) == [3, 3, 2]
    assert retry_shares(2, 4) == [1, 1, 0, 0]
    assert sum(retry_shares(7, 5)) == 7
    assert retry_shares(8, 0) == []


def test_unread_passages_are_named_by_document_and_page() -> None:
    unread = [passage("a", page=12), passage("b", page=3), passage("c", "AtG.pdf", 3), passage("d", page=12)]
    assert unread_places(unread) == "AtG.pdf p. 3; StrlSchG.pdf p. 3, 12"  # documents by name
    assert unread_places(list(reversed(unread)), "S.") == "AtG.pdf S. 3; StrlSchG.pdf S. 3, 12"
    records = [UnreadPassage(chunk_id="a", collection="sample", document="AtG.pdf", page=2)]
    assert unread_error([], 5) is None
    assert unread_error(records, 5) == (
        "the model could not read 1 of the 5 passage(s) retrieved (AtG.pdf p. 2): "
        "its extraction answers stayed invalid or were cut"
    )
