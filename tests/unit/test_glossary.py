"""The English -> German glossary for cross-lingual BM25: parsing, phrase matching, translation."""

from __future__ import annotations

from pathlib import Path

import pytest

from rabbithole.core.config import RetrievalSettings
from rabbithole.retrieval.glossary import (
    Glossary,
    GlossaryError,
    cross_lingual_text,
    english_words,
    load_glossary,
    untranslated_terms,
)

SMALL = """
# comment
dose | Dosis
dose limit | Grenzwert Dosis
occupationally exposed person | beruflich exponierte Person
annual | jährlich
annually | Kalenderjahr
high-level waste | hochradioaktive Abfälle
"""


def test_longest_phrase_wins_and_words_are_not_matched_twice() -> None:
    glossary = Glossary.parse(SMALL)
    matches = glossary.matches("What are the annual dose limits for occupationally exposed persons?")
    assert [m.english for m in matches] == ["annual", "dose limit", "occupationally exposed person"]
    assert glossary.translate("dose limits") == "Grenzwert Dosis"  # not also "Dosis" for "dose"


def test_phrases_match_inflected_words_and_hyphenation() -> None:
    glossary = Glossary.parse(SMALL)
    assert glossary.translate("Where does HIGH-LEVEL WASTE go?") == "hochradioaktive Abfälle"
    assert glossary.translate("the doses") == "Dosis"
    assert english_words("High-level waste's") == ["high", "level", "waste", "s"]


def test_phrases_that_stem_alike_share_their_terms() -> None:
    glossary = Glossary.parse(SMALL)
    assert glossary.translate("annually") == "jährlich Kalenderjahr"
    assert len(glossary) == 5


def test_unknown_words_translate_to_nothing() -> None:
    glossary = Glossary.parse(SMALL)
    assert glossary.matches("zebras and giraffes") == []
    assert glossary.translate("zebras and giraffes") == ""
    assert Glossary([]).translate("dose") == ""


@pytest.mark.parametrize("line", ["no bar here", "| Dosis", "dose |", "dose | ; ;"])
def test_malformed_lines_are_reported_with_their_number(line: str) -> None:
    with pytest.raises(GlossaryError, match=r"<text>:2:"):
        Glossary.parse(f"dose | Dosis\n{line}\n")


def test_extra_file_adds_to_the_built_in_glossary(tmp_path: Path) -> None:
    extra = tmp_path / "more.txt"
    extra.write_text("zebra crossing | Fußgängerüberweg\ndose | Strahlendosis\n", encoding="utf-8")
    combined = load_glossary(extra)
    assert combined.translate("zebra crossing") == "Fußgängerüberweg"
    assert "Strahlendosis" in combined.translate("dose")
    with pytest.raises(GlossaryError, match="cannot read"):
        Glossary.load(tmp_path / "missing.txt")


def test_built_in_glossary_covers_the_domain() -> None:
    glossary = load_glossary()
    assert len(glossary) > 300
    assert "Grenzwert" in glossary.translate("dose limits")
    assert "Strahlenschutzbeauftragter" in glossary.translate("radiation protection officer")
    assert "Endlager" in glossary.translate("final repository")
    assert "Genehmigung" in glossary.translate("licence")


def test_untranslated_terms_keep_citations_numbers_and_names() -> None:
    kept = untranslated_terms("What does § 9a AtG say about Gorleben and 300 Bq per cubic metre?")
    assert kept == ["§ 9a", "AtG", "Gorleben", "300", "Bq"]
    assert untranslated_terms("Who must appoint an officer?") == []


@pytest.mark.parametrize(
    ("english", "german"),
    [
        # words of the sample laws' section titles ("§ 9d Enteignung", "§ 44 Rückführung von Konsumgütern",
        # "Übergangsvorschriften", "§ 173 ... Mitteilungspflichten bei Fund und Erlangung")
        ("Can land be expropriated for a repository?", "Enteignung"),
        ("Who takes back consumer products?", "Konsumgut"),
        ("Which transitional provisions apply?", "Übergangsvorschriften"),
        ("the finding of lost radioactive material", "Abhandenkommen"),
        ("ordinance-making power for health records", "Gesundheitsakte"),
    ],
)
def test_built_in_glossary_maps_the_corpus_section_title_words(english: str, german: str) -> None:
    assert german in load_glossary().translate(english).split()


@pytest.mark.parametrize(
    ("english", "german"),
    [
        # body-text words beyond the 400 most frequent stems (devtools.glossary_coverage)
        ("How often must the device be serviced?", "Wartung"),
        ("Are the costs reimbursed?", "erstattet"),
        ("How long must the records be kept?", "aufbewahren"),
        # a single word that was only inside phrases ("occupational exposure")
        ("occupational doses of pilots", "beruflich"),
        # a phrasal verb whose one-word entry ("added" -> "Zusatz") has another sense
        ("Are the doses from both sources added up?", "addieren"),
    ],
)
def test_built_in_glossary_maps_the_corpus_body_text_words(english: str, german: str) -> None:
    assert german in load_glossary().translate(english).split()


def test_question_framing_words_add_no_german_terms() -> None:
    # generic words of a question's frame would add the same terms to every question ("depending" is not
    # "dependants", which stems alike)
    question = "Is it necessary to list how high it is, depending on what it involves?"
    assert load_glossary().translate(question) == ""


def test_cross_lingual_text_is_the_translation_of_an_english_question_over_german_documents() -> None:
    settings = RetrievalSettings()
    question = "Can land be expropriated to build a repository?"
    german = cross_lingual_text(question, ("de",), settings)
    assert german is not None and "Enteignung" in german.split()
    assert cross_lingual_text(question, ("de", "en"), settings) is None  # English text to match as it is
    assert cross_lingual_text(question, ("en",), settings) is None
    assert cross_lingual_text("Wann ist eine Enteignung zulässig?", ("de",), settings) is None  # German
    assert cross_lingual_text("What about zebras and giraffes?", ("de",), settings) is None  # nothing known
    assert cross_lingual_text(question, ("de",), settings.model_copy(update={"glossary": False})) is None
    off = settings.model_copy(update={"glossary_vector_weight": 0.0})
    assert cross_lingual_text(question, ("de",), off) is None
