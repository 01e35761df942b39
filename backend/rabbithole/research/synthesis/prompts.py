"""Prompts of synthesis; the output language is a parameter."""

from __future__ import annotations

from collections.abc import Sequence

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage

from rabbithole.research.language import language_name
from rabbithole.research.models import Evidence, QueryAnchor

#: Labels of the rendered report, by language (English for any other).
LABELS = {
    "de": {
        "sources": "Quellen",
        "page": "S.",
        "no_evidence": "Keine Belege gefunden",
        "uncited": "ohne Beleg",
    },
    "en": {"sources": "Sources", "page": "p.", "no_evidence": "No evidence found", "uncited": "uncited"},
}


def labels(language: str) -> dict[str, str]:
    return LABELS.get(language, LABELS["en"])


def evidence_item(e: Evidence) -> str:
    where = f"{e.document}, {e.section + ', ' if e.section else ''}p. {e.page}"
    return f'<passage id="{e.id}" tier="{e.tier}">{e.fact}\n"{e.quote}" ({where})</passage>'


def synthesis_prompt(
    anchor: QueryAnchor,
    context: str,
    language: str,
    *,
    feedback: Sequence[str] = (),
    wrong_language: bool = False,
) -> list[BaseMessage]:
    system = (
        "You write a research report that answers the user's question from numbered evidence only. Organise "
        "it in sections; every claim is one sentence and lists the ids of the evidence that supports it. Do "
        "not write citation marks or quotes into the text: citations come from the ids. State what the "
        "evidence does not settle instead of guessing. Prefer primary evidence. "
        f"Write the whole report in {language_name(language)}."
    )
    if wrong_language:
        name = language_name(language)
        system += f" Your previous report was not in {name}: write it in {name}."
    if feedback:
        system += " A reviewer found these problems in the previous draft; fix them:\n- " + "\n- ".join(
            feedback
        )
    scope = f"\nScope: {anchor.scope}" if anchor.scope else ""
    user = f"<context>\n{context}\n</context>\n\nQuestion: {anchor.question}{scope}"
    return [SystemMessage(system), HumanMessage(user)]


def quality_prompt(anchor: QueryAnchor, context: str, report: str) -> list[BaseMessage]:
    system = (
        "You review a research report against the evidence it was written from. Score from 0 to 100: factual "
        "accuracy (claims agree with the evidence), semantic validity (claims follow from what the evidence "
        "says, no overreach), structure, citation correctness (each claim cites evidence that supports it) "
        "and query relevance (it answers the question). List concrete issues to fix."
    )
    user = f"<context>\n{context}\n</context>\n\n<report>\n{report}\n</report>\n\nQuestion: {anchor.question}"
    return [SystemMessage(system), HumanMessage(user)]
