"""The views a research run searches a question (or a task) in, and what each one found.

A question over documents in another language (an English question over the German laws) is searched in
three kinds of view:

- ``question``: as the user wrote it (and the model's queries in the user's language); the searcher already
  moves its BM25 and vector sides through the glossary (``retrieval/query_views.py``);
- ``translation``: in the documents' language, by the model: its checked translation of the question
  (``research/translation.py``) and the queries it wrote for the documents (``corpus_queries``), those that
  passed the language check;
- ``glossary``: in the documents' language without the model: the German terms the English->German glossary
  (``retrieval/glossary.py``) gives the query's phrases, with its names, numbers and § citations. It carries
  the question when the model's translation is dropped (a weak model; the fake Ollama, whose answers are
  made of the prompt's words).

A question in the documents' language has the ``question`` view alone (as before).

Candidates (:func:`figures`): a passage that a view in the documents' language (``translation`` or
``glossary``) finds with a BM25 score of at least ``research.assess_bm25_floor``, so the words of the
documents occur in it. The assessment never declines on the best similarity alone while a view has one
(``research/run/assessment.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from rabbithole.core.config import RetrievalSettings
from rabbithole.core.models import SearchHit
from rabbithole.core.text import unique_texts
from rabbithole.retrieval.glossary import load_glossary, untranslated_terms

ViewKind = Literal["question", "translation", "glossary"]
#: the views in the documents' language, whose BM25 hits count as candidates
DOCUMENT_VIEWS: tuple[ViewKind, ...] = ("translation", "glossary")


@dataclass(frozen=True, slots=True)
class SearchView:
    kind: ViewKind
    query: str


@dataclass(frozen=True, slots=True)
class ViewFigure:
    """What one view found: its best similarity (to its own query) and its candidates."""

    kind: ViewKind
    query: str
    best_similarity: float
    candidates: int


def glossary_text(query: str, language: str, corpus_language: str, settings: RetrievalSettings) -> str:
    """The German terms of an English query's known phrases, then its names, numbers and § citations
    ("" when the glossary is off, the query is not English over German documents, or it knows no phrase)."""
    if not settings.glossary or language != "en" or corpus_language != "de":
        return ""
    terms = load_glossary(settings.glossary_path).translate(query)
    if not terms:
        return ""
    return " ".join(unique_texts([*terms.split(), *untranslated_terms(query)]))


def build_views(
    queries: Sequence[str],
    corpus_queries: Sequence[str],
    glossary: Callable[[str], str],
    per_kind: int,
    glossary_views: int,
) -> list[SearchView]:
    """Up to ``per_kind`` views of the queries as written and of the checked ones in the documents'
    language, and up to ``glossary_views`` of the glossary's German terms of the queries as written
    (duplicates searched once)."""
    views = [SearchView("question", q) for q in unique_texts(queries)[:per_kind]]
    views += [SearchView("translation", q) for q in unique_texts(corpus_queries)[:per_kind]]
    german = unique_texts([g for g in (glossary(q) for q in queries) if g])
    views += [SearchView("glossary", g) for g in german[:glossary_views]]
    seen: set[str] = set()
    out = []
    for view in views:
        if view.query.casefold() not in seen:
            seen.add(view.query.casefold())
            out.append(view)
    return out


def candidates(view: SearchView, hits: Sequence[SearchHit], bm25_floor: float) -> int:
    """Hits of a view in the documents' language with a BM25 score of at least ``bm25_floor``."""
    if view.kind not in DOCUMENT_VIEWS:
        return 0
    return sum(1 for h in hits if (h.bm25 or 0.0) >= bm25_floor)


def figures(
    views: Sequence[SearchView], hit_lists: Sequence[Sequence[SearchHit]], bm25_floor: float
) -> list[ViewFigure]:
    """Per view: its best similarity and its candidates."""
    return [
        ViewFigure(
            kind=view.kind,
            query=view.query,
            best_similarity=round(max((h.similarity or 0.0 for h in hits), default=0.0), 4),
            candidates=candidates(view, hits, bm25_floor),
        )
        for view, hits in zip(views, hit_lists, strict=True)
    ]
