"""Reading one extraction batch, so that a weak model's failure costs passages, never the run.

One call reads the batch. When its answer stays invalid (after the structured retries), or was cut at the
output cap (``StepResult.truncated``: its complete findings are kept), the passages whose findings are
missing are asked again in smaller batches: halves, down to one passage, breadth first, within the extra
calls the batch may spend (``research.extract_retry_calls`` per task, shared among its batches by
``routers.to_extraction``). What stays unread is recorded with its documents and pages (``BatchReading``):
the task and the report say that the model could not read it, never that the documents hold nothing.

A passage counts as missing from a cut answer when no finding kept from it cites one of its sentences (a
valid, complete answer that cites nothing of a passage found nothing there).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Any

from rabbithole.core.models import PageText
from rabbithole.research.context import ResearchContext
from rabbithole.research.dig import prompts
from rabbithole.research.dig.evidence import evidence_from_findings
from rabbithole.research.dig.schemas import extraction_schema
from rabbithole.research.dig.tying import sentence_tokens
from rabbithole.research.evidence.numbering import (
    NumberedSentence,
    number_passages,
    render_numbered,
    sentence_text,
)
from rabbithole.research.llm_step import ask, merge_counts
from rabbithole.research.models import Evidence, Passage, QueryAnchor, TaskSpec, UnreadPassage
from rabbithole.research.readings import findings_of, renumbered

__all__ = [
    "BatchReading",
    "missing_passages",
    "read_batch",
    "retry_shares",
    "split_missing",
    "unread_error",
    "unread_places",
]


@dataclass
class BatchReading:
    """What reading one batch gave: its evidence, the model requests and extra calls it took, the calls
    whose answer stayed invalid or came back cut (``failed_calls``), the passages no call could read, the
    facts tied to other sentences or dropped (``tying``), and the warnings."""

    evidence: list[Evidence] = field(default_factory=list)
    requests: int = 0
    tokens: dict[str, int] = field(default_factory=dict)  # "extract.prompt" / "extract.output"
    retry_calls: int = 0
    failed_calls: int = 0
    unread: list[Passage] = field(default_factory=list)
    retied: int = 0
    dropped: int = 0
    reasons: list[str] = field(default_factory=list)
    shared: int = 0  #: passages taken from another batch's reading of them


def retry_shares(total: int, batches: int) -> list[int]:
    """A task's extra extraction calls shared among its batches: as even as whole calls allow, the first
    batches one more; ``total`` in all."""
    if batches <= 0:
        return []
    share, rest = divmod(total, batches)
    return [share + (1 if i < rest else 0) for i in range(batches)]


def split_missing(missing: Sequence[Passage]) -> list[list[Passage]]:
    """The next, smaller calls for ``missing``: two halves (the first one the larger), or the one passage."""
    if len(missing) <= 1:
        return [list(missing)] if missing else []
    middle = (len(missing) + 1) // 2
    return [list(missing[:middle]), list(missing[middle:])]


def missing_passages(
    group: Sequence[Passage],
    table: Sequence[NumberedSentence],
    findings: Sequence[Any] | None,
    *,
    truncated: bool,
) -> list[Passage]:
    """The passages of ``group`` whose findings an answer lacks: all of them without a valid answer
    (``findings`` None), those no kept finding cites when the answer was cut, none otherwise."""
    if findings is None:
        return list(group)
    if not truncated:
        return []
    chunk_of = {s.number: s.chunk_id for s in table}
    cited = {chunk_of[n] for f in findings for n in f.sentences if n in chunk_of}
    return [p for p in group if p.chunk_id not in cited]


async def read_batch(
    ctx: ResearchContext,
    task: TaskSpec,
    anchor: QueryAnchor,
    language: str,
    batch: Sequence[Passage],
    *,
    index: int,
    extra_calls: int,
) -> BatchReading:
    """Read ``batch`` (see the module docstring); evidence ids are "<task>-b<index + 1>-e<n>". Passages
    another batch of the run claimed first are not read again: their reading is awaited and turned into
    this task's evidence (``research.readings``)."""
    pages, laws = await asyncio.to_thread(_documents_of, ctx, batch)
    reader = _BatchReader(ctx, task, anchor, language, pages, laws, index, extra_calls)
    own, elsewhere = ctx.readings.claim(batch)
    try:
        await reader.read(own)
    finally:
        ctx.readings.abandon(own)  # what it could not read: a waiting batch reads it itself
    unread_there: list[Passage] = []
    for passage, pending in elsewhere:
        found = await pending
        if found is None:
            unread_there.append(passage)
            continue
        table = number_passages([passage])
        reader.add(renumbered(found, table), table, [passage])
        reader.reading.shared += 1
    if unread_there:
        await reader.read(unread_there)
    reading = reader.reading
    reading.evidence = [
        e.model_copy(update={"id": f"{task.id}-b{index + 1}-e{n}"}) for n, e in enumerate(reading.evidence, 1)
    ]
    return reading


class _BatchReader:
    """The model calls of one batch: a call per group of passages, the missing ones asked again in halves
    within the batch's extra calls; each passage read is settled in the run's readings."""

    def __init__(
        self,
        ctx: ResearchContext,
        task: TaskSpec,
        anchor: QueryAnchor,
        language: str,
        pages: dict[tuple[str, str], list[PageText]],
        laws: dict[str, list[str]],
        index: int,
        extra_calls: int,
    ) -> None:
        self.ctx, self.task, self.anchor, self.language = ctx, task, anchor, language
        self.pages, self.laws = pages, laws
        self.index, self.extra_calls = index, extra_calls
        self.reading = BatchReading()
        self._called = False

    async def read(self, passages: Sequence[Passage]) -> None:
        """Ask the model for ``passages`` (the first call is free; the calls after it spend extra calls)."""
        reading = self.reading
        queue: list[list[Passage]] = [list(passages)] if passages else []
        while queue:
            group = queue.pop(0)
            if self._called and reading.retry_calls >= self.extra_calls:
                reading.unread.extend(group)
                continue
            reading.retry_calls += 1 if self._called else 0
            self._called = True
            table = number_passages(group)
            if not table:
                continue
            schema = extraction_schema([s.number for s in table])
            messages = prompts.extraction_prompt(
                self.task, self.anchor, render_numbered(group, table), self.language
            )
            step = await ask(self.ctx.llm, "extract", schema, messages)
            reading.requests += step.requests
            reading.tokens = merge_counts(reading.tokens, step.usage())
            reading.reasons.extend(step.warnings)
            truncated = bool(getattr(step, "truncated", False))
            findings: Sequence[Any] | None = None if step.value is None else step.value.findings  # type: ignore[attr-defined]
            if findings is not None:
                self.add(findings, table, group)
            missing = missing_passages(group, table, findings, truncated=truncated)
            if findings is not None:
                for p in group:
                    if p not in missing:
                        self.ctx.readings.settle(p, findings_of(p, findings, table))
            if findings is None or missing:
                reading.failed_calls += 1
                if truncated and findings is not None:
                    reading.reasons.append(
                        f"extract: the answer was cut ({len(missing)} passage(s) without findings)"
                    )
            if missing:
                if len(group) == 1:
                    reading.unread.extend(missing)
                else:
                    queue.extend(split_missing(missing))

    def add(
        self, findings: Sequence[Any], table: Sequence[NumberedSentence], group: Sequence[Passage]
    ) -> None:
        """Evidence from ``findings`` over ``group`` (numbered as in ``table``), each fact tied to the
        sentences that hold its numbers and provisions."""
        by_id = {p.chunk_id: p for p in group}
        texts = {s.number: sentence_text(by_id[s.chunk_id], s) for s in table}
        labels = {p.chunk_id: p.section or "" for p in group}
        found = evidence_from_findings(
            findings,
            table,
            group,
            self.pages,
            task_id=self.task.id,
            id_prefix=f"{self.task.id}-b{self.index + 1}",
            anchor=self.anchor,
            settings=self.ctx.settings,
            sentences=sentence_tokens(table, texts, self.laws, labels),
        )
        self.reading.evidence.extend(found.evidence)
        self.reading.retied += found.retied
        self.reading.dropped += found.dropped


def _documents_of(
    ctx: ResearchContext, batch: Sequence[Passage]
) -> tuple[dict[tuple[str, str], list[PageText]], dict[str, list[str]]]:
    """The pages of the batch's documents, and the names of each passage's law (file stem, the catalog's
    abbreviation and title), which its provisions without a law name belong to."""
    pages: dict[tuple[str, str], list[PageText]] = {}
    names: dict[tuple[str, str], list[str]] = {}
    for p in batch:
        key = (p.collection, p.document)
        if key not in pages:
            pages[key] = ctx.catalog.pages(p.collection, p.document)
    for collection in {p.collection for p in batch}:
        for info in ctx.catalog.documents(collection):
            names[(collection, info.file_name)] = [
                n for n in (PurePath(info.file_name).stem, info.abbreviation, info.title) if n
            ]
    laws = {p.chunk_id: names.get((p.collection, p.document), [PurePath(p.document).stem]) for p in batch}
    return pages, laws


def unread_places(passages: Sequence[Passage | UnreadPassage], page_label: str = "p.") -> str:
    """Where unread passages lie: "AtG.pdf p. 3; StrlSchG.pdf p. 12, 14". Documents by name and pages in
    order, so the same passages read the same whichever parallel batch failed first."""
    pages: dict[str, set[int]] = {}
    for p in passages:
        pages.setdefault(p.document, set()).add(p.page)
    return "; ".join(
        f"{doc} {page_label} {', '.join(str(n) for n in sorted(pages[doc]))}" for doc in sorted(pages)
    )


def unread_error(unread: Sequence[UnreadPassage], passages: int) -> str | None:
    """The error of a task that found nothing because the model could not read its passages (None: it
    read them all)."""
    if not unread:
        return None
    return (
        f"the model could not read {len(unread)} of the {passages} passage(s) retrieved "
        f"({unread_places(unread)}): its extraction answers stayed invalid or were cut"
    )
