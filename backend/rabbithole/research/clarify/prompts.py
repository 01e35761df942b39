"""Prompts of clarification; the output language is a parameter (everything the user reads is in it)."""

from __future__ import annotations

from collections.abc import Sequence

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage

from rabbithole.research.language import language_name
from rabbithole.research.models import ClarificationRound, RetrievedPassage


def _languages(language: str, corpus_language: str) -> str:
    if corpus_language == language:
        return f"Write the queries in {language_name(language)}; leave corpus_queries empty."
    return (
        f"Write `queries` in {language_name(language)} and the same searches in "
        f"{language_name(corpus_language)}, the language of the documents, as `corpus_queries` "
        "(use the documents' own legal and technical terms)."
    )


def conversation(rounds: Sequence[ClarificationRound]) -> str:
    lines = []
    for r in rounds:
        for q in r.questions:
            lines.append(f"Assistant asked: {q}")
        if r.answer and r.answer.strip() != "/end":
            lines.append(f"User answered: {r.answer}")
    return "\n".join(lines)


def passages_block(passages: Sequence[RetrievedPassage]) -> str:
    return "\n".join(
        f'<passage id="{p.chunk_id}" document="{p.document}" page="{p.page}" section="{p.section or ""}">'
        f"\n{p.snippet}\n</passage>"
        for p in passages
    )


def queries_prompt(
    question: str, rounds: Sequence[ClarificationRound], language: str, corpus_language: str
) -> list[BaseMessage]:
    if not rounds:
        task = (
            "Write three search queries for a hybrid (keyword + semantic) search over the user's documents: "
            "the question itself, a broader one, and one from another angle."
        )
    else:
        task = (
            "Write up to three search queries that follow what the user said in the conversation: refine the "
            "searches to the aspects the user asked for."
        )
    system = (
        f"You plan searches over a collection of documents. {task} {_languages(language, corpus_language)}"
    )
    history = conversation(rounds)
    user = f"Question: {question}" + (f"\n\nConversation so far:\n{history}" if history else "")
    return [SystemMessage(system), HumanMessage(user)]


def analysis_prompt(
    question: str,
    rounds: Sequence[ClarificationRound],
    passages: Sequence[RetrievedPassage],
    language: str,
) -> list[BaseMessage]:
    system = (
        "You help a researcher sharpen a research question before a deep search of their documents. Judge "
        "how well the passages found so far cover the question (coverage from 0 to 1), name the knowledge "
        "gaps, state your current understanding of what the user wants, and ask two or three short "
        "follow-up questions that the passages make relevant (about scope, the documents, the aspects, the "
        "period or the case that matters). Ground every question in what the passages contain. "
        f"Write everything in {language_name(language)}."
    )
    history = conversation(rounds)
    user = (
        f"<context>\n{passages_block(passages)}\n</context>\n\n"
        + (f"Conversation so far:\n{history}\n\n" if history else "")
        + f"Question: {question}"
    )
    return [SystemMessage(system), HumanMessage(user)]


def anchor_prompt(
    question: str, rounds: Sequence[ClarificationRound], language: str, corpus_language: str
) -> list[BaseMessage]:
    system = (
        "You fix what a research run is about before it starts. From the question and the conversation, "
        "name the key entities (laws, sections, terms, organisations, quantities the answer is about), the "
        "scope, the refinements the user made, research queries for a hybrid search, and a short summary "
        "of the conversation for the report writer. "
        f"Write the summary and scope in {language_name(language)}. "
        + _languages(language, corpus_language).replace("the queries", "the research queries")
    )
    history = conversation(rounds)
    user = f"Question: {question}" + (f"\n\nConversation:\n{history}" if history else "")
    return [SystemMessage(system), HumanMessage(user)]
