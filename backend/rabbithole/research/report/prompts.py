"""Prompts of report mode; the output language is a parameter, and the labels of the compiled report are
by language (English for any other)."""

from __future__ import annotations

from collections.abc import Sequence

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage

from rabbithole.research.clarify.prompts import passages_block
from rabbithole.research.language import language_name
from rabbithole.research.models import RetrievedPassage
from rabbithole.research.report.models import SectionResult, SectionSpec

LABELS = {
    "de": {
        "contents": "Inhalt",
        "no_evidence": "Die Dokumente enthalten dazu keine Belege.",
        "page": "S.",
        "passage": "abgerufene Passage",
        "passages": "abgerufene Passagen",
        "unread": "Das Modell konnte {count} nicht lesen ({places}): seine Antworten waren ungültig oder "
        "abgeschnitten.",
        "unread_open": "Ob die Dokumente dazu Belege enthalten, ist damit offen.",
        "stated_under": "Was die Dokumente dazu sagen, steht bereits unter „{heading}“.",
    },
    "en": {
        "contents": "Contents",
        "no_evidence": "The documents hold no evidence on this.",
        "page": "p.",
        "passage": "retrieved passage",
        "passages": "retrieved passages",
        "unread": "The model could not read {count} ({places}): its answers were invalid or cut.",
        "unread_open": "Whether the documents hold evidence on this is therefore open.",
        "stated_under": "What the documents say on this is stated under “{heading}”.",
    },
}


def labels(language: str) -> dict[str, str]:
    return LABELS.get(language, LABELS["en"])


def _brief(topic: str, guidance: str) -> str:
    return f"Topic: {topic}" + (
        f"\nGuidance (audience, length, required sections): {guidance}" if guidance else ""
    )


def outline_prompt(
    topic: str,
    guidance: str,
    hint: Sequence[str],
    passages: Sequence[RetrievedPassage],
    feedback: Sequence[str],
    language: str,
    corpus_language: str,
    min_sections: int,
    max_sections: int,
) -> list[BaseMessage]:
    other = (
        ""
        if corpus_language == language
        else f" For research sections also write the searches in {language_name(corpus_language)}, the "
        "documents' language, as corpus_queries, with the documents' own terms."
    )
    system = (
        f"You plan a structured report of {min_sections} to {max_sections} sections on a topic, from what a "
        "search of the user's documents found. For each section give a title, what it covers, whether it is "
        "researched in the documents (research: true) or written from the researched sections (research: "
        "false: an introduction, a conclusion, a summary), and up to three questions it answers, phrased as "
        f"search queries. Write everything in {language_name(language)}.{other}"
    )
    parts = [f"<context>\n{passages_block(passages)}\n</context>", _brief(topic, guidance)]
    if hint:
        parts.append("Sections the user asked for: " + "; ".join(hint))
    if feedback:
        parts.append("The user's feedback on the earlier outline (follow it):\n- " + "\n- ".join(feedback))
    return [SystemMessage(system), HumanMessage("\n\n".join(parts))]


def _section_line(section: SectionSpec) -> str:
    line = f"Section: {section.title}"
    if section.description:
        line += f"\nIt covers: {section.description}"
    if section.questions:
        line += "\nIt answers: " + "; ".join(section.questions)
    return line


def section_prompt(
    section: SectionSpec,
    topic: str,
    guidance: str,
    evidence: str,
    language: str,
    instructions: str,
) -> list[BaseMessage]:
    system = (
        "You write one section of a report from numbered evidence only. Every claim is one sentence and "
        "lists the ids of the evidence that supports it. Do not write citation marks or quotes into the "
        "text: citations come from the ids. State what the evidence does not settle instead of guessing. "
        f"Write in {language_name(language)}."
    )
    if instructions:
        system += f" A reviewer asked for this improvement of the earlier draft: {instructions}"
    user = f"<context>\n{evidence}\n</context>\n\n{_brief(topic, guidance)}\n{_section_line(section)}"
    return [SystemMessage(system), HumanMessage(user)]


def grade_prompt(
    section: SectionSpec, topic: str, draft: str, language: str, corpus_language: str
) -> list[BaseMessage]:
    other = (
        ""
        if corpus_language == language
        else f" Give the follow-up searches also in {language_name(corpus_language)} as corpus_queries."
    )
    system = (
        "You grade one section of a report: does the draft answer what the section is for, from its cited "
        "evidence? Pass it when it does. Otherwise list what is missing and up to three follow-up searches "
        f"that would find it, in {language_name(language)}.{other}"
    )
    user = f"Topic: {topic}\n{_section_line(section)}\n\n<draft>\n{draft}\n</draft>"
    return [SystemMessage(system), HumanMessage(user)]


def review_prompt(topic: str, guidance: str, draft: str, section_ids: Sequence[str]) -> list[BaseMessage]:
    system = (
        "You review the draft of a report. Name the researched sections (by id) that most need improving "
        "(gaps, weak support, repetition), with instructions and searches that would find what they lack. "
        "Name none when the draft is good. Only these ids may be named: " + ", ".join(section_ids) + "."
    )
    user = f"{_brief(topic, guidance)}\n\n<report>\n{draft}\n</report>"
    return [SystemMessage(system), HumanMessage(user)]


def frame_prompt(
    section: SectionSpec,
    topic: str,
    guidance: str,
    outline: Sequence[SectionSpec],
    researched: str,
    language: str,
) -> list[BaseMessage]:
    system = (
        "You write a framing section of a report (an introduction, a conclusion, a summary, or a section "
        "without its own research) from the report's researched sections. Every claim is one sentence; "
        "where it restates a finding, list the evidence ids that finding cites. Add no facts the sections do "
        f"not state. Write in {language_name(language)}."
    )
    order = "\n".join(f"- {s.title}" for s in outline)
    user = (
        f"<sections>\n{researched}\n</sections>\n\n{_brief(topic, guidance)}\nOutline:\n{order}\n\n"
        f"{_section_line(section)}"
    )
    return [SystemMessage(system), HumanMessage(user)]


def researched_block(sections: Sequence[SectionResult]) -> str:
    """The researched sections as the reviewer and the framing writer see them: claims with their ids."""
    blocks = []
    for s in sections:
        lines = [f'<section id="{s.section.id}" title="{s.section.title}">']
        for c in s.draft.claims:
            ids = f" [{', '.join(c.evidence_ids)}]" if c.evidence_ids else ""
            lines.append(f"{c.text}{ids}")
        lines.append("</section>")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)
