"""The everyday-German -> legal-terms thesaurus of the BM25 side of search (retrieval/thesaurus.py)."""

from __future__ import annotations

import pytest

from rabbithole.core.config import RetrievalSettings
from rabbithole.retrieval.glossary import GlossaryError
from rabbithole.retrieval.thesaurus import Thesaurus, expanded_query, load_thesaurus
from rabbithole.retrieval.tokenizer import tokenize_query

SETTINGS = RetrievalSettings.model_validate({})


def test_the_built_in_list_maps_everyday_words_to_the_laws_terms() -> None:
    thesaurus = load_thesaurus()
    assert len(thesaurus) > 50
    assert thesaurus.terms("Darf Atommüll in die Antarktis gebracht werden?") == [
        "radioaktive Abfälle",
        "südlich des 60. Grades südlicher Breite",
    ]
    # inflected and capitalised forms match through their German stems
    assert thesaurus.terms("Welche Bedenken darf ein Bürger vorbringen?") == [
        "Einwendungen",
        "Öffentlichkeit",
        "Dritte",
    ]
    assert thesaurus.terms("wer muss den ernstfall proben") == ["Notfall", "Übung", "Notfallübung"]
    assert thesaurus.terms("Grenzwert effektive Dosis Kalenderjahr") == []


def test_longest_phrase_first_and_repeats_dropped() -> None:
    thesaurus = Thesaurus.parse("radon | Radon\nradon messen | Radonmessung; Messung\nmessen | Messung\n")
    assert thesaurus.terms("Radon messen lassen") == ["Radonmessung", "Messung"]
    assert thesaurus.terms("Messen, messen und Radon") == ["Messung", "Radon"]


def test_entries_of_one_stem_share_their_terms() -> None:
    thesaurus = Thesaurus.parse("Beschäftigter | Arbeitskraft\nBeschäftigte | beruflich exponierte Person\n")
    assert thesaurus.terms("die Beschäftigten") == ["Arbeitskraft", "beruflich exponierte Person"]


def test_a_malformed_line_is_an_error() -> None:
    with pytest.raises(GlossaryError, match="expected"):
        Thesaurus.parse("atommüll radioaktive Abfälle\n")


def test_the_bm25_query_keeps_its_words_and_adds_the_terms() -> None:
    query = "Darf Atommüll in die Antarktis gebracht werden?"
    expanded = expanded_query(query, "de", ("de",), SETTINGS)
    assert expanded is not None and expanded.startswith(query)
    tokens = tokenize_query(expanded, ("de",))
    assert {"atommull", "antarktis", "radioaktiv", "abfall", "breit"} <= set(tokens)


def test_expansion_only_for_german_or_neutral_queries_over_german_documents() -> None:
    query = "Wie oft muss ein Strahlenschutzbeauftragter sein Fachwissen auffrischen?"
    assert expanded_query(query, None, ("de",), SETTINGS) is not None  # language unclear: German terms
    assert expanded_query(query, "en", ("de",), SETTINGS) is None  # English questions take the glossary
    assert expanded_query(query, "de", ("en",), SETTINGS) is None  # no German document to match
    off = SETTINGS.model_copy(update={"thesaurus": False})
    assert expanded_query(query, "de", ("de",), off) is None
    nothing_known = "Dichtheitsprüfung Strahlenquellen"
    assert expanded_query(nothing_known, "de", ("de",), SETTINGS) is None
