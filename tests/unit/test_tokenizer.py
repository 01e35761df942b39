from __future__ import annotations

import pytest

from rabbithole.retrieval.tokenizer import (
    detect_language,
    normalize,
    query_language,
    raw_tokens,
    section_tokens,
    tokenize,
    tokenize_documents,
    tokenize_query,
)


def test_case_and_umlaut_folding_make_both_spellings_match() -> None:
    assert tokenize("Änderung") == tokenize("Aenderung") == tokenize("ÄNDERUNG")
    assert tokenize("Überprüfung") == tokenize("Ueberpruefung")
    assert tokenize("Größe") == tokenize("Groesse")


def test_sharp_s_is_folded_to_ss() -> None:
    assert tokenize("Straße") == tokenize("Strasse")
    assert normalize("Maßnahme") == "massnahme"
    assert tokenize("Gemäß § 5") == ["§5"]  # "gemäß" is a stopword in its folded form


def test_decomposed_umlauts_and_ligatures_from_pdfs_are_normalized() -> None:
    decomposed = "A\u0308nderung"  # A + combining diaeresis
    assert tokenize(decomposed) == tokenize("Änderung")
    assert raw_tokens("\ufb01nden") == ["finden"]  # "fi" ligature


@pytest.mark.parametrize("text", ["§ 80", "§80", "§  80", "§\u00a080", "(§ 80)"])
def test_section_sign_is_attached_to_its_number(text: str) -> None:
    assert tokenize(text) == ["§80"]


def test_section_letters_and_lists_and_ranges() -> None:
    assert tokenize("§ 9a") == ["§9a"]
    assert tokenize("§§ 6, 7, 9 oder 9b") == ["§6", "§7", "§9", "§9b"]
    assert tokenize("§§ 8 bis 10") == ["§8", "§9", "§10"]
    assert tokenize("§§ 78 und 80") == ["§78", "§80"]
    # a huge "range" is not expanded, but both ends are kept
    assert tokenize("§§ 1 bis 200") == ["§1", "§200"]


def test_paragraph_abbreviations_are_normalized() -> None:
    assert tokenize("§ 7 Abs. 2") == tokenize("§ 7 Absatz 2") == ["§7", "abs", "2"]
    assert tokenize("Absätze 1 und 2") == ["abs", "1", "2"]
    assert tokenize("Nr. 3") == tokenize("Nummer 3") == ["nr", "3"]
    assert tokenize("Satz 1") == ["satz", "1"]


def test_german_and_english_stopwords_are_removed() -> None:
    assert tokenize("der die das und oder für über") == []
    assert tokenize("the of and with for", language="en") == []
    assert tokenize("Die Genehmigung der Anlage") == ["genehm", "anlag"]


def test_german_stemming_conflates_inflections() -> None:
    assert tokenize("Genehmigung") == tokenize("Genehmigungen")
    assert tokenize("Anlage") == tokenize("Anlagen")
    assert tokenize("Kernbrennstoffe") == tokenize("Kernbrennstoffen")
    assert tokenize("Grenzwerte") == tokenize("Grenzwert")


def test_english_documents_are_stemmed_in_english() -> None:
    text = "The limits for exposed workers are defined by the following rules"
    assert detect_language(raw_tokens(text)) == "en"
    tokens = tokenize(text)
    assert "limit" in tokens and "expos" in tokens and "rule" in tokens


def test_numbers_are_kept() -> None:
    assert tokenize("20 Millisievert im Kalenderjahr") == ["20", "millisievert", "kalenderjahr"]
    assert "0,3" in tokenize("0,3 Millisievert")
    assert tokenize("2017-06-27") == ["2017", "06", "27"]


def test_single_letters_are_dropped() -> None:
    assert tokenize("a) b) z. B.") == []


def test_hyphenation_at_line_break_is_joined_but_real_hyphens_stay() -> None:
    assert tokenize("Strahlen-\nschutz") == tokenize("Strahlenschutz")
    assert tokenize("Kern- und\nBrennstoffe") == tokenize("Kern Brennstoffe")
    # a capitalised continuation is a real compound hyphen: both parts stay tokens
    assert tokenize("Organ-\nÄquivalentdosis") == tokenize("Organ Äquivalentdosis")
    assert tokenize("Kern-\nund Brennstoffe") == tokenize("Kern Brennstoffe")


def test_soft_hyphens_from_pdfs_vanish() -> None:
    assert (
        tokenize("Strahlen\u00adschutz") == tokenize("Strahlen\u00ad\nschutz") == tokenize("Strahlenschutz")
    )


def test_query_languages_keep_both_stems() -> None:
    only_de = tokenize_query("exposed persons")
    both = tokenize_query("exposed persons", ("de", "en"))
    assert set(only_de) < set(both)
    assert "expos" in both and "person" in both
    assert len(both) == len(set(both))  # no duplicates


def test_query_section_citations_add_membership_tokens() -> None:
    assert tokenize_query("§ 7 AtG") == ["§7", "@§7", "atg"]
    assert section_tokens("§ 80") == ["@§80"]
    assert section_tokens("Anlage 4") == []
    assert section_tokens(None) == []


def test_query_language_detection_is_conservative() -> None:
    assert query_language("What are the annual dose limits for occupationally exposed persons?") == "en"
    assert (
        query_language("Wie viel Strahlung darf ein Beschäftigter über sein Arbeitsleben abbekommen?") == "de"
    )
    assert query_language("Grenzwert effektive Dosis Kalenderjahr") is None
    assert query_language("§ 7 AtG") is None


def test_tokenize_documents_reports_languages() -> None:
    token_lists, languages = tokenize_documents(
        ["Die Genehmigung der Anlage ist zu erteilen, wenn", "The licence is granted if the applicant is"]
    )
    assert languages == ["de", "en"]
    assert token_lists[0] == ["genehm", "anlag", "erteil"]
    _, forced = tokenize_documents(["The licence is granted"], "de")
    assert forced == ["de"]
    with pytest.raises(ValueError):
        tokenize_documents(["a", "b"], ["de"])
