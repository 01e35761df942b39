"""The views a task is searched in (``research/search_views.py``): its queries as written, its corpus
queries that pass the language check, and the glossary's German terms of its queries."""

from __future__ import annotations

from rabbithole.core.config import ResearchSettings, RetrievalSettings
from rabbithole.research.models import TaskSpec
from rabbithole.research.search_views import SearchView, build_views, glossary_text
from rabbithole.research.translation import Detector, check_texts

#: glossary views of a task: its first query's German terms (its other queries rephrase it; more glossary
#: views found the same gold sections of the dev set with more passages to read, docs/benchmarks.md)
TASK_GLOSSARY_VIEWS = 1


def task_views(
    task: TaskSpec,
    language: str,
    corpus_language: str,
    settings: ResearchSettings,
    retrieval: RetrievalSettings,
    detector: Detector,
) -> tuple[list[SearchView], int]:
    """The task's views (``research.queries_per_task`` as written and in the documents' language, one of
    the glossary's terms) and how many of its corpus queries the language check dropped. With
    ``research.translation_views`` off, or a task in the documents' language: its queries and corpus queries
    as written (the task's title when it has none)."""
    per_kind = settings.queries_per_task
    queries = task.queries[:per_kind]
    if not settings.translation_views or language == corpus_language:
        views = [SearchView("question", q) for q in queries]
        views += [SearchView("translation", q) for q in task.corpus_queries[:per_kind]]
        return views or [SearchView("question", task.title)], 0
    checked = check_texts(task.corpus_queries, corpus_language, detector)

    def glossary(query: str) -> str:
        return glossary_text(query, language, corpus_language, retrieval)

    views = build_views(queries or [task.title], checked.kept, glossary, per_kind, TASK_GLOSSARY_VIEWS)
    return views, checked.dropped
