"""Prompts of digging; the output language is a parameter."""

from __future__ import annotations

from collections.abc import Sequence

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage

from rabbithole.references.expansion import GateRequest
from rabbithole.research.language import language_name
from rabbithole.research.models import Evidence, QueryAnchor, TaskSpec


def _task_line(task: TaskSpec, anchor: QueryAnchor) -> str:
    description = f" ({task.description})" if task.description else ""
    return f"Research question: {anchor.question}\nTask: {task.title}{description}"


def queries_prompt(
    task: TaskSpec, anchor: QueryAnchor, language: str, corpus_language: str
) -> list[BaseMessage]:
    other = (
        ""
        if corpus_language == language
        else f" Also write the same searches in {language_name(corpus_language)}, the documents' language, "
        "as corpus_queries, with the documents' own terms."
    )
    system = (
        "Write up to three search queries (keyword + semantic search) that find what this task needs, "
        f"in {language_name(language)}.{other}"
    )
    return [SystemMessage(system), HumanMessage(_task_line(task, anchor))]


def gate_prompt(
    task: TaskSpec, anchor: QueryAnchor, requests: Sequence[GateRequest], headings: Sequence[str]
) -> list[BaseMessage]:
    system = (
        "Passages found for a research task cite other sections. Decide for each numbered reference whether "
        "following it helps answer the task (definitions, conditions, limits, procedures, exceptions the "
        "passage relies on) or not (unrelated procedure, formal or transitional provisions). Judge every "
        "reference; give a short reason."
    )
    lines = []
    for i, (r, heading) in enumerate(zip(requests, headings, strict=True)):
        src = r.source.chunk
        target = f"{r.target.document} {r.target.section}" + (f" ({heading})" if heading else "")
        lines.append(
            f"[{i}] in {src.document} {src.section or ''}: "
            f'"{" ".join(r.reference.mention.split())}" -> {target}'
        )
    user = f"{_task_line(task, anchor)}\n\nReferences:\n" + "\n".join(lines)
    return [SystemMessage(system), HumanMessage(user)]


def extraction_prompt(task: TaskSpec, anchor: QueryAnchor, numbered: str, language: str) -> list[BaseMessage]:
    system = (
        "You extract evidence for a research task from passages whose sentences are numbered [n]. List the "
        "facts that matter for the task; for each, give the numbers of the sentences that state it (only "
        "numbers shown), a one-sentence statement of the fact in "
        f"{language_name(language)}, and whether it answers the task or is only related. Do not copy or "
        "invent text: the sentences you choose are quoted from the document. Leave out what is irrelevant."
    )
    user = f"<context>\n{numbered}\n</context>\n\n{_task_line(task, anchor)}\nQuestion: {task.title}"
    return [SystemMessage(system), HumanMessage(user)]


def summary_prompt(
    task: TaskSpec, anchor: QueryAnchor, evidence: Sequence[Evidence], language: str
) -> list[BaseMessage]:
    system = (
        "Summarise what the evidence found for a research task says: the findings that answer the task, the "
        "gaps it leaves open, and related findings that do not answer it. Use only the evidence. Write in "
        f"{language_name(language)}."
    )
    items = "\n".join(
        f'<passage id="{e.id}">{e.fact}\n"{e.quote}" ({e.document}, {e.section or ""}, p. {e.page})</passage>'
        for e in evidence
    )
    user = f"<context>\n{items}\n</context>\n\n{_task_line(task, anchor)}\nQuestion: {task.title}"
    return [SystemMessage(system), HumanMessage(user)]
