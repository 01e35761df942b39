"""The MCP answers that have no API schema yet: a trace with its chain, a started run. Every other tool
answers with the API's own schema (SearchResponse, PassageReferenceOut, CollectionOut, RunDetail,
ResearchResult)."""

from __future__ import annotations

from pydantic import BaseModel, Field

from rabbithole.references.tracing import Trace
from rabbithole.research.models import RunMode, RunStatus


class TraceStep(BaseModel):
    from_chunk_id: str = Field(description="The passage whose reference led here.")
    mention: str = Field(description="The reference as written in that passage.")


class TracedPassageOut(BaseModel):
    chunk_id: str
    document: str
    page: int = Field(description="1-based page where the passage starts.")
    page_end: int
    section: str | None = Field(description='Section label, e.g. "§ 80".')
    heading: str
    text: str = Field(description="The passage, verbatim.")
    start: int = Field(description="Character offset of the passage in the document text.")
    end: int
    depth: int = Field(description="0: a search hit; n: reached through n references.")
    via: TraceStep | None = Field(description="How it was reached (null: a search hit).")
    score: float | None = Field(description="Similarity to the query (a hit's fused score without one).")


class UnresolvedOut(BaseModel):
    from_chunk_id: str
    document: str
    mention: str
    type: str
    target: str | None
    section: str | None
    reason: str


class TraceOut(BaseModel):
    query: str
    collection: str
    passages: list[TracedPassageOut]
    unresolved: list[UnresolvedOut] = Field(description="References that could not be followed, and why.")

    @classmethod
    def of(cls, trace: Trace) -> TraceOut:
        passages = []
        for p in trace.passages:
            chunk = p.chunk
            score = p.relevance if p.relevance is not None else p.search_score
            passages.append(
                TracedPassageOut(
                    chunk_id=chunk.id,
                    document=chunk.document,
                    page=chunk.page,
                    page_end=chunk.page_end,
                    section=chunk.section,
                    heading=chunk.heading,
                    text=chunk.text,
                    start=chunk.start,
                    end=chunk.end,
                    depth=p.depth,
                    via=None
                    if p.via is None
                    else TraceStep(from_chunk_id=p.via.source_id, mention=p.via.mention),
                    score=None if score is None else round(score, 6),
                )
            )
        unresolved = [
            UnresolvedOut(
                from_chunk_id=u.source_id,
                document=u.source_document,
                mention=u.mention,
                type=u.type.value,
                target=u.target,
                section=u.section,
                reason=u.reason.value,
            )
            for u in trace.result.unresolved
        ]
        return cls(query=trace.query, collection=trace.collection, passages=passages, unresolved=unresolved)


class RunStarted(BaseModel):
    run_id: str
    status: RunStatus
    mode: RunMode
    report_uri: str = Field(description="The MCP resource of the report, readable once the run is done.")
    answer_at: str | None = Field(
        description="An interactive run's questions (clarification, plan) are answered there: the API's "
        "resume endpoint, or the run's page of the web app. Null for a quick run (no questions)."
    )
