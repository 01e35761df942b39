"""The events clarification adds to a run's stream besides the round itself (``clarification``): what it is
doing while the user waits (``clarification_progress``) and the user's answer to a round
(``clarification_answer``), so the whole exchange can be shown, after a reload too, from the events alone."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from rabbithole.research import events
from rabbithole.research.event_models import GraphEvent

#: planning: the model writes the round's searches; searching: the corpus is searched, query by query;
#: analyzing: the model reads what was found and writes the next questions; anchoring: clarification is
#: over and the model fixes what the research is about.
ClarifyStep = Literal["planning", "searching", "analyzing", "anchoring"]


class ClarificationProgress(GraphEvent):
    """What clarification is doing now, for the round it prepares (``round``)."""

    type: Literal["clarification_progress"] = "clarification_progress"
    round: int = Field(ge=1, description="The round being prepared (the last round when anchoring).")
    step: ClarifyStep
    queries: int = Field(0, ge=0, description="The round's search queries (0 while they are written).")
    searched: int = Field(0, ge=0, description="Queries searched so far.")
    passages: int = Field(
        0,
        ge=0,
        description="Searching: distinct passages found so far in this round; analyzing: the passages the "
        "model reads.",
    )


class ClarificationAnswered(GraphEvent):
    """The user's answer to a round; ``ended``: it was '/end' (enough, start the research)."""

    type: Literal["clarification_answer"] = "clarification_answer"
    round: int = Field(ge=1)
    answer: str
    ended: bool


def progress(
    round_number: int, step: ClarifyStep, *, queries: int = 0, searched: int = 0, passages: int = 0
) -> None:
    event = ClarificationProgress(
        round=round_number, step=step, queries=queries, searched=searched, passages=passages
    )
    events.emit(event)


def answered(round_number: int, answer: str, ended: bool) -> None:
    event = ClarificationAnswered(round=round_number, answer=answer, ended=ended)
    events.emit(event)
