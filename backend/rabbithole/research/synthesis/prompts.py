"""Prompts of synthesis; the output language is a parameter."""

from __future__ import annotations

from collections.abc import Sequence

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage

from rabbithole.research.evidence.quotes import shown_quote
from rabbithole.research.language import language_name
from rabbithole.research.models import Evidence, QueryAnchor

#: Labels of the rendered report, by language (English for any other).
LABELS = {
    "de": {
        "sources": "Quellen",
        "page": "S.",
        "no_evidence": "Keine Belege gefunden",
        "uncited": "ohne Beleg",
        "assembled": "Aus den geprüften Befunden zusammengestellt, ohne Text des Modells",
        "no_answer": "das Modell gab keine gültige Antwort",
        "empty": "das Modell schrieb keinen verwertbaren Satz",
        "repeated": "das Modell wiederholte seine Sätze",
        "uncited_reason": "die meisten Sätze des Modells nannten keinen Beleg",
        "unread": "Das Modell konnte {n} der gefundenen Textstellen nicht lesen ({places}): Seine Antworten "
        "blieben ungültig oder brachen ab. Geprüfte Belege liegen daher nicht vor; die Dokumente wurden "
        "nicht als unergiebig befunden.",
    },
    "en": {
        "sources": "Sources",
        "page": "p.",
        "no_evidence": "No evidence found",
        "uncited": "uncited",
        "assembled": "Assembled from the verified findings, without the model's prose",
        "no_answer": "the model gave no valid answer",
        "empty": "the model wrote no usable sentence",
        "repeated": "the model repeated its sentences",
        "uncited_reason": "most of the model's sentences cited no evidence",
        "unread": "The model could not read {n} of the passages found ({places}): its answers stayed "
        "invalid or were cut. So there is no verified evidence; the documents were not found to hold "
        "nothing.",
    },
}


def labels(language: str) -> dict[str, str]:
    return LABELS.get(language, LABELS["en"])


def evidence_item(e: Evidence) -> str:
    """One piece of evidence in a prompt: its fact, its quote (not where the fact holds it word for word),
    where it stands."""
    where = f"{e.document}, {e.section + ', ' if e.section else ''}p. {e.page}"
    quote = shown_quote(e.fact, e.quote)
    shown = f'{e.fact}\n"{quote}"' if quote is not None else e.fact
    return f'<passage id="{e.id}" tier="{e.tier}">{shown} ({where})</passage>'


def section_prompt(
    anchor: QueryAnchor,
    heading: str,
    description: str,
    context: str,
    language: str,
    *,
    feedback: Sequence[str] = (),
    wrong_language: bool = False,
) -> list[BaseMessage]:
    """One section of the report: the sentences that answer one approved task from its evidence."""
    system = (
        "You write one section of a research report that answers the user's question from numbered evidence "
        "only. The section's topic is given. Write a few sentences, each stating something new, and list "
        "for each the ids of the evidence that supports it. Do not repeat a sentence. Do not write "
        "citation marks or quotes into the text: citations come from the ids. State what the evidence "
        "does not settle instead of guessing. Prefer primary evidence. "
        f"Write every sentence in {language_name(language)}."
    )
    if wrong_language:
        name = language_name(language)
        system += f" Your previous answer was not in {name}: write it in {name}."
    if feedback:
        system += " The previous version of this section had these problems; avoid them:\n- " + "\n- ".join(
            feedback
        )
    scope = f"\nScope: {anchor.scope}" if anchor.scope else ""
    topic = f"{heading}: {description}" if description.strip() else heading
    user = f"<context>\n{context}\n</context>\n\nQuestion: {anchor.question}{scope}\nSection: {topic}"
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
