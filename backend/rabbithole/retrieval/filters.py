"""Search filters and their translation to a Chroma ``where`` (the BM25 side applies the same filters
as a boolean mask, see :meth:`rabbithole.retrieval.bm25_index.BM25Index.mask`).

Collections are not a filter here: each Rabbithole collection is its own Chroma collection and BM25
index, and the searcher is given the collections to search.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from rabbithole.core.errors import InvalidRequestError
from rabbithole.core.sections import Where, section_key

#: More pages than any document has (ingestion.max_pages is far below); the stores take 64-bit integers.
MAX_PAGE = 1_000_000

__all__ = ["SearchFilters", "Where", "section_key"]


def _as_tuple(value: str | Iterable[str] | None) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    return tuple(dict.fromkeys(value))


@dataclass(frozen=True, slots=True)
class SearchFilters:
    """Restrict a search. Empty = no restriction.

    documents: document names (file names within the collection), any of them.
    sections: section labels ("§ 80"; compared after :func:`section_key`), any of them.
    page_from / page_to: inclusive 1-based page range; a chunk matches when its pages
    [page, page_end] overlap the range.
    """

    documents: tuple[str, ...] = ()
    sections: tuple[str, ...] = ()
    page_from: int | None = None
    page_to: int | None = None

    @classmethod
    def create(
        cls,
        documents: str | Iterable[str] | None = None,
        sections: str | Iterable[str] | None = None,
        page_from: int | None = None,
        page_to: int | None = None,
    ) -> SearchFilters:
        filters = cls(_as_tuple(documents), _as_tuple(sections), page_from, page_to)
        filters.validate()
        return filters

    def validate(self) -> None:
        for name, value in (("page_from", self.page_from), ("page_to", self.page_to)):
            if value is not None and not 1 <= value <= MAX_PAGE:
                raise InvalidRequestError(f"{name} must be between 1 and {MAX_PAGE}, got {value}")
        if self.page_from is not None and self.page_to is not None and self.page_from > self.page_to:
            raise InvalidRequestError(f"page_from ({self.page_from}) is after page_to ({self.page_to})")

    @property
    def is_empty(self) -> bool:
        return not (self.documents or self.sections or self.page_from is not None or self.page_to is not None)

    @property
    def section_keys(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(section_key(s) for s in self.sections))

    def to_chroma_where(self) -> Where | None:
        """Chroma metadata filter over the fields written by ``chunk_metadata`` (None = no filter)."""
        clauses: list[Where] = []
        if self.documents:
            clauses.append(_one_of("document", self.documents))
        if self.sections:
            clauses.append(_one_of("section_key", self.section_keys))
        if self.page_to is not None:
            clauses.append({"page": {"$lte": self.page_to}})
        if self.page_from is not None:
            clauses.append({"page_end": {"$gte": self.page_from}})
        if not clauses:
            return None
        return clauses[0] if len(clauses) == 1 else {"$and": clauses}


def _one_of(field: str, values: tuple[str, ...]) -> Where:
    if len(values) == 1:
        return {field: {"$eq": values[0]}}
    return {field: {"$in": list(values)}}
