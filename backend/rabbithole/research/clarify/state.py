"""State of the clarification subgraph: what it takes from the run, what it gives back, and its own keys."""

from __future__ import annotations

import operator
from typing import Annotated, TypedDict

from rabbithole.research.llm_step import merge_counts
from rabbithole.research.models import ClarificationRound, QueryAnchor, RetrievedPassage


class ClarifyInput(TypedDict):
    question: str
    collections: list[str]
    language: str
    corpus_language: str


class ClarifyOutput(TypedDict, total=False):
    rounds: list[ClarificationRound]
    anchor: QueryAnchor
    research_queries: list[str]  # in the user's language
    corpus_queries: list[str]  # in the documents' language (empty when it is the same)
    question_translation: str  # the model's checked translation of the question ("" when dropped)
    translations_dropped: int  # 1 when the model's translation was dropped (another language, empty)
    clarification_summary: str
    warnings: Annotated[list[str], operator.add]
    llm_calls: Annotated[dict[str, int], merge_counts]
    llm_tokens: Annotated[dict[str, int], merge_counts]  # "<kind>.prompt" / "<kind>.output"


class ClarifyState(ClarifyInput, ClarifyOutput, total=False):
    queries: list[str]  # this round's search queries
    seen: list[str]  # chunk ids returned in earlier rounds
    passages: list[RetrievedPassage]  # this round's passages
    dedup_ratio: float
    best_similarity: float
    current: ClarificationRound | None  # analysed, not yet answered
    ended: bool  # the user sent /end
