"""What one search returns besides its hits (timings, candidate counts, the collections BM25 left out or
searched through the glossary), and the search modes."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from rabbithole.core.models import SearchHit

SearchMode = Literal["hybrid", "vector", "bm25"]
MODES: tuple[SearchMode, ...] = ("hybrid", "vector", "bm25")


@dataclass(slots=True)
class SearchResult:
    hits: list[SearchHit]
    mode: SearchMode
    timings: dict[str, float] = field(default_factory=dict)  # seconds per stage
    candidates: dict[str, int] = field(default_factory=dict)  # retriever -> merged candidate count
    bm25_skipped: list[str] = field(default_factory=list)  # collections not searched by BM25 (language)
    bm25_translated: list[str] = field(default_factory=list)  # collections BM25 searched via the glossary
