"""The views the assessment searches (pure): the research queries as written, the checked translation and
corpus queries, and the glossary's German terms (``research/search_views.py``)."""

from __future__ import annotations

from rabbithole.core.config import ResearchSettings, RetrievalSettings
from rabbithole.research.run.state import RunState
from rabbithole.research.search_views import SearchView, build_views, glossary_text
from rabbithole.research.translation import Detector, check_texts

#: views of each kind the assessment searches at most (the anchor writes up to 6 queries per language)
ASSESS_VIEWS = 6


def assessment_views(
    state: RunState, settings: ResearchSettings, retrieval: RetrievalSettings, detector: Detector
) -> tuple[list[SearchView], int]:
    """The views and how many corpus queries the language check dropped. With
    ``research.translation_views`` off, or a question in the documents' language: the research queries and
    the corpus queries as the model wrote them (as before the views)."""
    queries = state.get("research_queries", []) or [state["question"]]
    corpus = state.get("corpus_queries", [])
    language, corpus_language = state["language"], state["corpus_language"]
    if not settings.translation_views or language == corpus_language:
        views = [SearchView("question", q) for q in queries] + [SearchView("translation", q) for q in corpus]
        return views, 0
    checked = check_texts(corpus, corpus_language, detector)

    def glossary(query: str) -> str:
        return glossary_text(query, language, corpus_language, retrieval)

    return build_views(queries, checked.kept, glossary, ASSESS_VIEWS, ASSESS_VIEWS), checked.dropped
