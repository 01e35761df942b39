"""Prompts of the run graph; the output language is a parameter."""

from __future__ import annotations

from collections.abc import Sequence

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage

from rabbithole.research.clarify.prompts import passages_block
from rabbithole.research.language import language_name
from rabbithole.research.models import QueryAnchor, RetrievedPassage

#: The answer when the corpus cannot answer the question, by language (English for any other).
DECLINE = {
    "de": (
        "Diese Frage lässt sich mit den Dokumenten der Sammlung {collections} nicht beantworten: {reason}",
        "Die Dokumente behandeln unter anderem: {covers}.",
        "Die Frage verlangt aktuelle Daten, die kein Dokument der Sammlung enthalten kann.",
        "Die Suche fand nichts, was der Frage nahekommt (beste Ähnlichkeit {best:.2f}).",
    ),
    "en": (
        "The documents of the collection {collections} cannot answer this question: {reason}",
        "The documents cover, among other things: {covers}.",
        "The question asks for live data that no document of the collection can hold.",
        "The search found nothing close to the question (best similarity {best:.2f}).",
    ),
}


def decline_texts(language: str) -> tuple[str, str, str, str]:
    return DECLINE.get(language, DECLINE["en"])


def assess_prompt(question: str, passages: Sequence[RetrievedPassage], language: str) -> list[BaseMessage]:
    system = (
        "Decide whether a collection of documents can answer a research question, from the best passages a "
        "search found. It cannot when the passages are about something else, or when the question asks for "
        "live or current data (prices, today's weather, the latest news) that no document holds. Say which "
        f"topics the passages cover. Write the reason and topics in {language_name(language)}."
    )
    user = f"<context>\n{passages_block(passages)}\n</context>\n\nQuestion: {question}"
    return [SystemMessage(system), HumanMessage(user)]


def plan_prompt(
    anchor: QueryAnchor,
    summary: str,
    research_queries: Sequence[str],
    language: str,
    corpus_language: str,
    tasks_min: int,
    tasks_max: int,
) -> list[BaseMessage]:
    other = (
        ""
        if corpus_language == language
        else " For each task also write the searches in "
        f"{language_name(corpus_language)}, the language of the "
        "documents, as corpus_queries, with the documents' own terms."
    )
    system = (
        "You plan a research run over the user's documents. The question itself is already one task; add "
        f"{tasks_min} to {tasks_max} further tasks that together answer it: "
        "each a distinct aspect (definitions, "
        "conditions, limits and values, procedures and duties, exceptions, who is responsible), with a short "
        f"description and up to three search queries in {language_name(language)}.{other} Titles in "
        f"{language_name(language)}."
    )
    entities = ", ".join(anchor.key_entities)
    user = (
        f"Question: {anchor.question}\nKey entities: {entities}\nScope: {anchor.scope}\n"
        + (f"Conversation summary: {summary}\n" if summary else "")
        + ("Searches so far: " + "; ".join(research_queries) if research_queries else "")
    )
    return [SystemMessage(system), HumanMessage(user)]
