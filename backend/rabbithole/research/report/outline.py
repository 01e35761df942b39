"""The outline as proposed and as the user edits it (pure): deduplicated titles, at most a limit of
sections, renumbered s1..sn. An edited section is searched for the questions the user sent (blank and
repeated ones dropped; none left: its title); without them it keeps its questions only while its title is
unchanged. Its queries in the documents' language are kept only while its title and questions are."""

from __future__ import annotations

from collections.abc import Sequence

from rabbithole.core.text import text_key, unique_texts
from rabbithole.research.report.models import SectionSpec
from rabbithole.research.report.schemas import OutlineAnswer, SectionDraft


class OutlineEditError(ValueError):
    """An edited outline that cannot be used (no section, too many, empty or duplicate titles)."""


def _keys(texts: Sequence[str]) -> list[str]:
    return [text_key(t) for t in texts]


def renumber(sections: Sequence[SectionSpec]) -> list[SectionSpec]:
    return [s.model_copy(update={"id": f"s{i}"}) for i, s in enumerate(sections, start=1)]


def proposed_outline(drafts: Sequence[SectionDraft], hint: Sequence[str], limit: int) -> list[SectionSpec]:
    """The model's sections, deduplicated; a section the user asked for (``hint``) that the model left out
    is added as a research section (its title is its question)."""
    out: list[SectionSpec] = []
    for d in drafts:
        title = " ".join(d.title.split())
        if not title or text_key(title) in (text_key(s.title) for s in out):
            continue
        out.append(
            SectionSpec(
                id="",
                title=title,
                description=" ".join(d.description.split()),
                research=d.research,
                questions=unique_texts(d.questions),
                corpus_queries=unique_texts(d.corpus_queries),
            )
        )
    for wanted in unique_texts(hint):
        if text_key(wanted) not in (text_key(s.title) for s in out):
            out.append(SectionSpec(id="", title=wanted, research=True, questions=[wanted]))
    return renumber(out[:limit])


def apply_answer(proposed: Sequence[SectionSpec], answer: OutlineAnswer, limit: int) -> list[SectionSpec]:
    """The outline after ``approve`` or ``edit``; OutlineEditError says what is wrong with an edited one.
    (``feedback`` does not approve anything: the graph re-plans.)"""
    if answer.action == "approve":
        return list(proposed)
    if answer.action != "edit" or answer.sections is None:
        raise OutlineEditError(f"'{answer.action}' does not approve an outline")
    if not answer.sections:
        raise OutlineEditError("the outline needs at least one section")
    if len(answer.sections) > limit:
        raise OutlineEditError(f"the outline may have at most {limit} sections, got {len(answer.sections)}")
    known = {s.id: s for s in proposed}
    out: list[SectionSpec] = []
    for edit in answer.sections:
        title = " ".join(edit.title.split())
        if not title:
            raise OutlineEditError("a section needs a title")
        if text_key(title) in (text_key(s.title) for s in out):
            raise OutlineEditError(f"the section '{title}' appears twice")
        before = known.get(edit.id) if edit.id else None
        same = before is not None and text_key(before.title) == text_key(title)
        if edit.questions is not None:
            questions = unique_texts(edit.questions) or [title]
            kept = same and before is not None and _keys(questions) == _keys(before.questions)
            corpus = before.corpus_queries if kept and before is not None else []
        elif same and before is not None:
            questions, corpus = before.questions, before.corpus_queries
        else:
            questions, corpus = [title], []
        description = " ".join(edit.description.split())
        if not description and same and before is not None:
            description = before.description
        out.append(
            SectionSpec(
                id="",
                title=title,
                description=description,
                research=edit.research,
                questions=questions,
                corpus_queries=corpus,
            )
        )
    return renumber(out)
