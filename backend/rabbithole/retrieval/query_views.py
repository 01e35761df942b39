"""The vectors of a cross-lingual question: the question as written and its glossary translation.

An English question over German documents is embedded twice (:meth:`HybridSearcher.embed_query`): as
written and as the German terms the glossary gives its phrases. Their normalized sum (``combined``,
``retrieval.glossary_vector_weight``) is the query's one vector, which callers keep (``trace`` ranks the
passages it reaches by it). Summing is an early fusion, though: a section the question's own vector ranks
first can fall out of the sum's first places (the translation pulls elsewhere). With
``retrieval.translation_weight`` above 0, hybrid search therefore runs the two views as two vector
retrievers instead, fused like BM25 (the question's own vector ranks as "vector", the translation as
"translation"), so each one's first hits count (``pin_first``).

A caller that passes the combined vector back (``run(query_vector=...)``) gets the views again from a small
cache keyed by the query, its collections' languages and that exact vector; any other vector is searched as
given.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from rabbithole.core.config import RetrievalSettings
from rabbithole.embeddings.base import Embedder, FloatArray, l2_normalize
from rabbithole.retrieval.glossary import cross_lingual_text

#: query views remembered for callers that pass the combined vector back
CACHE_SIZE = 64


@dataclass(frozen=True, slots=True)
class QueryViews:
    question: FloatArray  # the question as written (unit length)
    translation: FloatArray | None  # its glossary translation (unit length), None when there is none
    combined: FloatArray  # the query's one vector: question + weight x translation, normalized


def combine(question: FloatArray, translation: FloatArray | None, weight: float) -> QueryViews:
    """The views of a question with their combined vector (``weight`` 0 or no translation: the question)."""
    own = l2_normalize(np.asarray(question, dtype=np.float32).reshape(-1))
    if translation is None or weight <= 0:
        return QueryViews(own, None, own)
    other = l2_normalize(np.asarray(translation, dtype=np.float32).reshape(-1))
    return QueryViews(own, other, l2_normalize(own + np.float32(weight) * other))


class QueryViewCache:
    """The last ``size`` views, by (query, languages); thread-safe."""

    def __init__(self, size: int = CACHE_SIZE) -> None:
        self._size = size
        self._views: OrderedDict[tuple[str, tuple[str, ...]], QueryViews] = OrderedDict()
        self._lock = threading.Lock()

    def put(self, query: str, languages: Sequence[str], views: QueryViews) -> None:
        key = (query, tuple(languages))
        with self._lock:
            self._views[key] = views
            self._views.move_to_end(key)
            while len(self._views) > self._size:
                self._views.popitem(last=False)

    def get(self, query: str, languages: Sequence[str], vector: FloatArray) -> QueryViews | None:
        """The views of ``query`` whose combined vector is ``vector`` (None when not remembered)."""
        with self._lock:
            views = self._views.get((query, tuple(languages)))
        if views is None or views.combined.shape != vector.shape:
            return None
        return views if np.array_equal(views.combined, vector) else None


def embed_views(
    embedder: Embedder,
    query: str,
    languages: Sequence[str],
    settings: RetrievalSettings,
    cache: QueryViewCache,
) -> QueryViews:
    """The views of ``query`` over collections in ``languages``: with a glossary translation (an English
    question over German documents) both views, remembered in ``cache``; else the question alone."""
    vector = embedder.embed_query(query)
    weight = settings.glossary_vector_weight
    if weight <= 0 and settings.translation_weight <= 0:
        return combine(vector, None, 0.0)
    german = cross_lingual_text(query, languages, settings)
    if german is None:
        return combine(vector, None, 0.0)
    views = combine(vector, embedder.embed_query(german), weight)
    cache.put(query, languages, views)
    return views
