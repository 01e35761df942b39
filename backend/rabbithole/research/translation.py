"""The question in the documents' language, translated by the run's model and checked.

An English question over German documents is searched in German too (``research/search_views.py``). The
model translates it in one structured call (``translate``, made beside the anchor's call); the translation
and every query the model wrote "in the documents' language" (the anchor's and the plan's
``corpus_queries``) are checked by the project's language detector (lingua, never the model): an empty text
or one in another language than the documents' is dropped and counted. A dropped translation is no failure
of the run: the question is still searched as written and through the glossary's German terms.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel, Field

from rabbithole.research.language import language_name
from rabbithole.research.llm_step import ask

if TYPE_CHECKING:
    from rabbithole.research.context import ResearchContext


class Detector(Protocol):
    def detect(self, text: str) -> str: ...


class QuestionTranslation(BaseModel):
    """The research question in the documents' language."""

    translation: str = Field(description="The question, translated; nothing else.")


def translation_prompt(question: str, language: str, corpus_language: str) -> list[BaseMessage]:
    source, target = language_name(language), language_name(corpus_language)
    system = (
        f"Translate a research question from {source} into {target}, the language of the documents it is "
        f"searched in. Use the documents' own legal and technical terms in {target}. Keep names, "
        "abbreviations, numbers and section references (§, Article, Annex) as they are. Answer with the "
        "translation only."
    )
    return [SystemMessage(system), HumanMessage(f"Question: {question}")]


@dataclass(frozen=True, slots=True)
class Checked:
    """Texts that passed the language check, and how many were dropped (empty or another language)."""

    kept: list[str]
    dropped: int


def check_texts(texts: Sequence[str], corpus_language: str, detector: Detector) -> Checked:
    """The texts in ``corpus_language`` (whitespace normalised, duplicates removed, order kept)."""
    kept: list[str] = []
    dropped = 0
    for raw in texts:
        text = " ".join(raw.split())
        if not text or detector.detect(text) != corpus_language:
            dropped += 1
        elif text.casefold() not in (k.casefold() for k in kept):
            kept.append(text)
    return Checked(kept, dropped)


def checked_translation(
    answer: QuestionTranslation | None, question: str, corpus_language: str, detector: Detector
) -> str:
    """The model's translation when it is in the documents' language and is not the question itself
    (a copy of the question is no translation); "" otherwise (also when the model gave no valid answer)."""
    if answer is None:
        return ""
    kept = check_texts([answer.translation], corpus_language, detector).kept
    if not kept or kept[0].casefold() == " ".join(question.split()).casefold():
        return ""
    return kept[0]


@dataclass(frozen=True, slots=True)
class Translated:
    """The outcome of the translation call: the checked translation ("" when dropped)."""

    text: str
    dropped: int  # 1 when the model's translation was dropped (empty, another language, invalid output)
    counts: dict[str, int]  # LLM requests by kind
    tokens: dict[str, int] = field(default_factory=dict)  # "<kind>.prompt" / "<kind>.output"
    warnings: list[str] = field(default_factory=list)


async def translate_question(
    ctx: ResearchContext, question: str, language: str, corpus_language: str
) -> Translated:
    """LLM: the question in ``corpus_language``, checked (see the module docstring)."""
    messages = translation_prompt(question, language, corpus_language)
    step = await ask(ctx.llm, "translate", QuestionTranslation, messages)
    text = checked_translation(step.value, question, corpus_language, ctx.detector)
    warnings = list(step.warnings)
    if not text and step.value is not None:
        warnings.append(
            f"translate: the model's translation of the question is not in {language_name(corpus_language)}"
            " (dropped; the question is searched as written and through the glossary)"
        )
    return Translated(text, 0 if text else 1, step.counts(), step.usage(), warnings)
