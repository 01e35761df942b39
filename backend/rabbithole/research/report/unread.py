"""The retrieved passages a section's model could not read (pure): what is still unread after a search
round, and how the section says so. A section whose extractions failed never says that the documents hold
nothing: it says the model failed, and which passages (documents, pages) it could not read."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from rabbithole.research.dig.extraction import unread_places
from rabbithole.research.models import UnreadPassage
from rabbithole.research.report.prompts import labels


def still_unread(
    before: Sequence[UnreadPassage], new: Sequence[UnreadPassage], read_in_round: Iterable[str]
) -> list[UnreadPassage]:
    """The passages still unread after a round: those unread before (``before``) and in this round
    (``new``), less the ones this round read (``read_in_round``: chunk ids of the passages it gave the
    model, those it could not read excluded); each passage once, in the order first found."""
    new_ids = {u.chunk_id for u in new}
    read = set(read_in_round) - new_ids
    out: dict[str, UnreadPassage] = {}
    for u in [*before, *new]:
        if u.chunk_id not in read:
            out.setdefault(u.chunk_id, u)
    return list(out.values())


def unread_sentence(unread: Sequence[UnreadPassage], language: str) -> str:
    """ "The model could not read 3 retrieved passages (A.pdf p. 2, 5; B.pdf p. 1): its answers were invalid
    or cut." in the report's language (English for any other); documents by name."""
    names = labels(language)
    count = f"{len(unread)} {names['passage'] if len(unread) == 1 else names['passages']}"
    return names["unread"].format(count=count, places=unread_places(unread, names["page"]))


def unread_statement(unread: Sequence[UnreadPassage], language: str) -> str:
    """What a section that found no evidence because the model could not read its passages says in place of
    "the documents hold no evidence on this": that the model failed, where, and that the question is open."""
    return f"{unread_sentence(unread, language)} {labels(language)['unread_open']}"
