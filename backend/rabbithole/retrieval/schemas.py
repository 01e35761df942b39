"""The public shape of a search result, shared by the HTTP API and `rabbithole search --json`."""

from __future__ import annotations

from pydantic import BaseModel, Field

from rabbithole.core.models import SearchHit


class SearchResultItem(BaseModel):
    collection: str
    document: str
    page: int = Field(description="1-based page where the passage starts.")
    page_end: int
    section: str | None = Field(description='Section label, e.g. "§ 80" or "4.2".')
    heading: str
    text: str
    score: float = Field(description="Fused score in [0, 1]; 1.0 = ranked first by every retriever.")
    similarity: float | None = Field(description="Cosine similarity of passage and query.")
    bm25: float | None
    chunk_id: str
    start: int = Field(description="Character offset of the passage in the document text.")
    end: int

    @classmethod
    def from_hit(cls, hit: SearchHit) -> SearchResultItem:
        chunk = hit.chunk
        return cls(
            collection=chunk.collection,
            document=chunk.document,
            page=chunk.page,
            page_end=chunk.page_end,
            section=chunk.section,
            heading=chunk.heading,
            text=chunk.text,
            score=round(hit.score, 6),
            similarity=None if hit.similarity is None else round(hit.similarity, 6),
            bm25=None if hit.bm25 is None else round(hit.bm25, 6),
            chunk_id=chunk.id,
            start=chunk.start,
            end=chunk.end,
        )


class SearchResponse(BaseModel):
    query: str
    mode: str
    results: list[SearchResultItem]
