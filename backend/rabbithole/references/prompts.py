"""Prompts of the reference engine. Every builder takes the output language (``"de"``, ``"en"``, or a
language name) for the free text the model writes; quoted mentions always stay in the text's language."""

from __future__ import annotations

from collections.abc import Sequence

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage

__all__ = ["language_name", "reference_detection_messages"]

_LANGUAGES = {"de": "German", "en": "English", "fr": "French", "it": "Italian", "es": "Spanish"}


def language_name(language: str) -> str:
    """ "de" -> "German"; a name is kept as given."""
    return _LANGUAGES.get(language.strip().casefold(), language.strip() or "English")


_DETECTION_SYSTEM = """You find references in legal, regulatory and technical documents: places where \
the text points to another provision, annex, law, regulation, standard or document section, such as \
"§ 7 Absatz 1 des Atomgesetzes", "Anlage 4 zu diesem Gesetz", "Artikel 3 der Richtlinie 2013/59/Euratom", \
"die in der vorstehenden Vorschrift genannte Verordnung", "section 4.2" or "KTA 1401".

Rules:
- Copy every mention character for character from the text (same spelling, same abbreviations); never \
paraphrase, translate or complete it. A mention that is not in the text verbatim is worthless.
- List references the already-found list below does not contain: implicit or unusual wording, law names \
far from their section number, abbreviations, references spread over a sentence. Do not repeat the \
already-found ones.
- Give the structure separately: "section" is the number after § (e.g. "7", "9a"), "absatz" the paragraph, \
"satz" the sentence, "nummer" the item number, "annex" the Anlage/Anhang number, "article" the Artikel.
- "law" is the name of the cited law or act as written in the text ("des Atomgesetzes", "AtG"); leave it \
null when the reference points into the text's own document.
- Write the optional "note" in {language}.
- If there is nothing to add, answer with an empty list."""


def reference_detection_messages(
    text: str, *, language: str = "en", known: Sequence[str] = ()
) -> list[BaseMessage]:
    """Messages asking for the references in ``text`` beyond the ``known`` mentions (the grammar's)."""
    found = "\n".join(f"- {m}" for m in dict.fromkeys(known)) or "- (none)"
    user = (
        f"Already found (do not repeat):\n{found}\n\n"
        f"Text:\n<document>\n{text}\n</document>\n\n"
        "Question: Which further references does the text contain?"
    )
    return [SystemMessage(_DETECTION_SYSTEM.format(language=language_name(language))), HumanMessage(user)]
