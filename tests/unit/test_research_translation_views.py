"""The views a research run searches an English question over German documents in (pure parts): the
language check of the model's translation and corpus queries, the glossary view, the views of a task and
the candidates of a view."""

from __future__ import annotations

import pytest

from rabbithole.core.config import ResearchSettings, RetrievalSettings
from rabbithole.core.models import Chunk, SearchHit
from rabbithole.research.dig.query_views import task_views
from rabbithole.research.language import LanguageDetector
from rabbithole.research.models import TaskSpec
from rabbithole.research.search_views import SearchView, build_views, figures, glossary_text
from rabbithole.research.translation import QuestionTranslation, check_texts, checked_translation

RETRIEVAL = RetrievalSettings()
QUESTION = "Who bears the costs of the final repository site selection?"
GERMAN = "Wer trägt die Kosten der Standortauswahl für das Endlager?"


@pytest.fixture(scope="module")
def detector() -> LanguageDetector:
    return LanguageDetector(("de", "en"))


def test_texts_in_another_language_or_empty_are_dropped_and_counted(detector: LanguageDetector) -> None:
    checked = check_texts(
        [
            GERMAN,
            "final repository site selection costs",
            "  ",
            f" {GERMAN.lower()} ",
            "Kosten Standortauswahl",
        ],
        "de",
        detector,
    )
    assert checked.kept == [GERMAN, "Kosten Standortauswahl"]  # the repeat is searched once, not dropped
    assert checked.dropped == 2


def test_a_translation_is_kept_only_in_the_documents_language(detector: LanguageDetector) -> None:
    assert (
        checked_translation(QuestionTranslation(translation=f" {GERMAN}\n"), QUESTION, "de", detector)
        == GERMAN
    )
    # the fake's kind of answer: words of the prompt, English
    salad = QuestionTranslation(translation="bears costs final repository")
    assert checked_translation(salad, QUESTION, "de", detector) == ""
    assert checked_translation(QuestionTranslation(translation=""), QUESTION, "de", detector) == ""
    assert checked_translation(None, QUESTION, "de", detector) == ""
    # a copy of the question is no translation, even in the documents' language
    assert checked_translation(QuestionTranslation(translation=GERMAN), GERMAN, "de", detector) == ""


def test_the_glossary_view_is_german_terms_with_names_and_citations() -> None:
    text = glossary_text("Who pays the levy under § 29 StandAG?", "en", "de", RETRIEVAL)
    assert "Umlage" in text.split() and "§ 29" in text and "StandAG" in text
    assert glossary_text(GERMAN, "de", "de", RETRIEVAL) == ""
    assert glossary_text(QUESTION, "en", "en", RETRIEVAL) == ""
    assert glossary_text(QUESTION, "en", "de", RETRIEVAL.model_copy(update={"glossary": False})) == ""
    assert glossary_text("How do I bake sourdough bread?", "en", "de", RETRIEVAL) == ""  # no known phrase


def test_views_of_each_kind_are_bounded_and_searched_once() -> None:
    glossary = {"q1": "Kosten", "q2": "Kosten", "q3": "Umlage"}.get
    views = build_views(["q1", "q2", "q3"], ["Kosten", "Frage"], lambda q: glossary(q) or "", 2, 2)
    assert views == [
        SearchView("question", "q1"),
        SearchView("question", "q2"),
        SearchView("translation", "Kosten"),
        SearchView("translation", "Frage"),
        SearchView("glossary", "Umlage"),  # "Kosten" is already a view
    ]


def test_a_task_drops_its_corpus_queries_in_the_wrong_language(detector: LanguageDetector) -> None:
    task = TaskSpec(
        id="t2",
        title="Costs",
        queries=["Who bears the costs of the site selection?"],
        corpus_queries=["costs site selection", "Kosten des Standortauswahlverfahrens"],
    )
    views, dropped = task_views(task, "en", "de", ResearchSettings(), RETRIEVAL, detector)
    assert dropped == 1
    assert [(v.kind, v.query) for v in views] == [
        ("question", "Who bears the costs of the site selection?"),
        ("translation", "Kosten des Standortauswahlverfahrens"),
        ("glossary", "Kosten tragen Standortauswahl"),
    ]
    # switched off, or a task in the documents' language: the queries as written, nothing checked
    off = ResearchSettings(translation_views=False)
    views, dropped = task_views(task, "en", "de", off, RETRIEVAL, detector)
    assert dropped == 0 and [v.kind for v in views] == ["question", "translation", "translation"]
    untitled = TaskSpec(id="t3", title="Kosten", queries=[])
    assert task_views(untitled, "de", "de", ResearchSettings(), RETRIEVAL, detector) == (
        [SearchView("question", "Kosten")],
        0,
    )


def hit(bm25: float | None, similarity: float) -> SearchHit:
    chunk = Chunk("c", "sample", "StandAG.pdf", 0, "text", 0, 4, 1, 1, "§ 28", "Umlage")
    return SearchHit(chunk, 0.5, similarity=similarity, bm25=bm25)


def test_candidates_are_bm25_hits_of_the_views_in_the_documents_language() -> None:
    views = [SearchView("question", "q"), SearchView("glossary", "g"), SearchView("translation", "t")]
    hits = [[hit(9.0, 0.2)], [hit(4.0, 0.21), hit(3.9, 0.3), hit(None, 0.1)], []]
    found = figures(views, hits, bm25_floor=4.0)
    assert [(f.kind, f.best_similarity, f.candidates) for f in found] == [
        ("question", 0.2, 0),  # the question's own words are not the documents'
        ("glossary", 0.3, 1),
        ("translation", 0.0, 0),
    ]
