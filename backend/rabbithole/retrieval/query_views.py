"""The vectors of a cross-lingual question: the question as written and its glossary translation.

An English question over German documents is embedded twice (:meth:`HybridSearcher.embed_views`): as
written and as the German terms the glossary gives its phrases. Their normalized sum (``combined``,
``retrieval.glossary_vector_weight``) is the query's one vector, which callers use to rank what they reach
(``trace`` ranks the passages it reaches by it). Summing is an early fusion, though: a section the
question's own vector ranks first can fall out of the sum's first places (the translation pulls
elsewhere). With ``retrieval.translation_weight`` above 0, hybrid search therefore runs the two views as
two vector retrievers instead, fused like BM25 (the question's own vector ranks as "vector", the
translation as "translation"), so each one's first hits count (``pin_first``).

A caller that embeds a question once and searches it several times passes the :class:`QueryViews` on
(``run(query_vector=views)``); a plain vector is searched as given, as one retriever.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from rabbithole.core.config import RetrievalSettings
from rabbithole.embeddings.base import Embedder, FloatArray, l2_normalize
from rabbithole.retrieval.glossary import cross_lingual_text


@dataclass(frozen=True, slots=True)
class QueryViews:
    question: FloatArray  # the question as written (unit length)
    translation: FloatArray | None  # its glossary translation (unit length), None when there is none
    combined: FloatArray  # the query's one vector: question + weight x translation, normalized


#: what a search may be given instead of embedding its query: the views of an embedded question, or a
#: plain vector (searched as given)
QueryVector = QueryViews | FloatArray


def combine(question: FloatArray, translation: FloatArray | None, weight: float) -> QueryViews:
    """The views of a question with their combined vector (``weight`` 0 or no translation: the question)."""
    own = l2_normalize(np.asarray(question, dtype=np.float32).reshape(-1))
    if translation is None or weight <= 0:
        return QueryViews(own, None, own)
    other = l2_normalize(np.asarray(translation, dtype=np.float32).reshape(-1))
    return QueryViews(own, other, l2_normalize(own + np.float32(weight) * other))


def combined_vector(query_vector: QueryVector) -> FloatArray:
    """The one vector of ``query_vector`` (its combined vector for views; a plain vector as given)."""
    if isinstance(query_vector, QueryViews):
        return query_vector.combined
    return np.asarray(query_vector, dtype=np.float32).reshape(-1)


def embed_views(
    embedder: Embedder,
    query: str,
    languages: Sequence[str],
    settings: RetrievalSettings,
) -> QueryViews:
    """The views of ``query`` over collections in ``languages``: with a glossary translation (an English
    question over German documents) both views; else the question alone."""
    vector = embedder.embed_query(query)
    weight = settings.glossary_vector_weight
    if weight <= 0 and settings.translation_weight <= 0:
        return combine(vector, None, 0.0)
    german = cross_lingual_text(query, languages, settings)
    if german is None:
        return combine(vector, None, 0.0)
    return combine(vector, embedder.embed_query(german), weight)
