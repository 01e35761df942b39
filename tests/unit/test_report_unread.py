"""What a report section says about the passages its model could not read (pure): what stays unread over
search rounds, where the passages lie, the statement in place of "no evidence"."""

from __future__ import annotations

from rabbithole.research.models import UnreadPassage
from rabbithole.research.report.unread import still_unread, unread_sentence, unread_statement


def unread(chunk: str, document: str = "StrlSchG.pdf", page: int = 1) -> UnreadPassage:
    return UnreadPassage(chunk_id=chunk, collection="sample", document=document, page=page)


def test_a_passage_read_in_a_later_round_is_no_longer_unread() -> None:
    before = [unread("a"), unread("b")]
    # this round gave the model a, c and d; it could not read c (again: b is not among them)
    after = still_unread(before, [unread("c")], ["a", "c", "d"])
    assert [u.chunk_id for u in after] == ["b", "c"]
    # a passage unread before and again this round is listed once
    assert [u.chunk_id for u in still_unread(after, [unread("c")], ["c"])] == ["b", "c"]
    assert still_unread([], [], ["x"]) == []


def test_the_statement_says_the_model_failed_never_that_the_documents_hold_nothing() -> None:
    one = [unread("a", page=7)]
    assert unread_sentence(one, "de") == (
        "Das Modell konnte 1 abgerufene Passage nicht lesen (StrlSchG.pdf S. 7): seine Antworten waren "
        "ungültig oder abgeschnitten."
    )
    two = [unread("a", page=7), unread("b", "AtG.pdf", 2)]
    assert unread_statement(two, "fr") == (
        "The model could not read 2 retrieved passages (AtG.pdf p. 2; StrlSchG.pdf p. 7): its answers were "
        "invalid or cut. Whether the documents hold evidence on this is therefore open."
    )
    assert "keine Belege" not in unread_statement(two, "de")
