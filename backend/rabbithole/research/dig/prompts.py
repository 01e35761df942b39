"""Prompts of digging; the output language is a parameter."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import PurePath

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


def _document(name: str | None) -> str:
    """A document as the prompt names it: its file name without the extension."""
    return PurePath(name).stem if name else ""


@dataclass
class GateLines:
    """The candidate references of one gate call, compactly: a line names the passage the references
    stand in once for the lines under it, each candidate is ``[n] "mention" -> target`` (the target's
    document only when it is another one, its heading only the first time it appears), and a candidate
    identical to one already listed (same passage, mention and target) is not listed again: ``same_as``
    names the line that judges it."""

    lines: list[str] = field(default_factory=list)
    _source: tuple[str, str] | None = None
    _headed: set[tuple[str, str]] = field(default_factory=set)
    _listed: dict[tuple[str, str, str, str, str], int] = field(default_factory=dict)

    @staticmethod
    def _key(request: GateRequest) -> tuple[str, str, str, str, str]:
        src = request.source.chunk
        mention = " ".join(request.reference.mention.split())
        target = request.target
        return (src.document, src.section or "", mention, target.document or "", target.section or "")

    def same_as(self, request: GateRequest) -> int | None:
        """The number of the line listing a candidate identical to ``request`` (None: none)."""
        return self._listed.get(self._key(request))

    def add(self, request: GateRequest, heading: str) -> str:
        """List ``request`` as line number ``len(lines)``; the text it adds to the prompt."""
        number = len(self.lines)
        src = request.source.chunk
        source = (src.document, src.section or "")
        text = ""
        if source != self._source:
            text = f"in {_document(src.document)} {src.section or ''}".rstrip() + ":\n"
            self._source = source
        target = request.target
        document = "" if target.document == src.document else _document(target.document)
        where = f"{document} {target.section or '(whole document)'}".strip()
        key = (target.document or "", target.section or "")
        if heading and key not in self._headed:
            where += f" ({heading})"
            self._headed.add(key)
        mention = " ".join(request.reference.mention.split())
        text += f'[{number}] "{mention}" -> {where}'
        self._listed[self._key(request)] = number
        self.lines.append(text)
        return text


def gate_prompt(task: TaskSpec, anchor: QueryAnchor, lines: Sequence[str]) -> list[BaseMessage]:
    system = (
        'Passages found for a research task cite other sections, listed as [n] "mention" -> target (its '
        "heading) under the passage they stand in. For every reference: does following it help answer the "
        "task (definitions, conditions, limits, procedures, exceptions relied on) or not (unrelated, formal "
        "or transitional provisions)?"
    )
    user = f"{_task_line(task, anchor)}\n\nReferences:\n" + "\n".join(lines)
    return [SystemMessage(system), HumanMessage(user)]


def extraction_prompt(task: TaskSpec, anchor: QueryAnchor, numbered: str, language: str) -> list[BaseMessage]:
    # what each field holds, the answer's shape says (the schema's descriptions); this says the rest
    system = (
        "List the facts in the numbered sentences [n] that matter for the research task, each stated in "
        f"{language_name(language)}. The sentences you name are quoted from the document: do not copy or "
        "invent text. Leave out what is irrelevant."
    )
    user = f"<context>\n{numbered}\n</context>\n\n{_task_line(task, anchor)}\nQuestion: {task.title}"
    return [SystemMessage(system), HumanMessage(user)]


def _summary_item(e: Evidence) -> str:
    """A finding as the summary's prompt shows it: the fact and where it stands. The summary restates the
    task's facts; their quotes stay with the evidence (the section prompts show their openings)."""
    return f'<passage id="{e.id}">{e.fact} ({e.document}, {e.section or ""}, p. {e.page})</passage>'


def summary_prompt(
    task: TaskSpec, anchor: QueryAnchor, evidence: Sequence[Evidence], language: str
) -> list[BaseMessage]:
    system = (
        "Summarise what the evidence found for a research task says: the findings that answer the task, the "
        "gaps it leaves open, and related findings that do not answer it. Use only the evidence. Write in "
        f"{language_name(language)}."
    )
    items = "\n".join(_summary_item(e) for e in evidence)
    user = f"<context>\n{items}\n</context>\n\n{_task_line(task, anchor)}\nQuestion: {task.title}"
    return [SystemMessage(system), HumanMessage(user)]
