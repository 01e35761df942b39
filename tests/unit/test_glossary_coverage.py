"""The glossary coverage tool: which corpus stems no glossary term produces, which terms the corpus lacks."""

from __future__ import annotations

from pathlib import Path

import pytest

from rabbithole.devtools.glossary_coverage import (
    absent_terms,
    corpus_stems,
    corpus_vocabulary,
    english_only_in_phrases,
    glossary_stems,
    main,
    uncovered_stems,
)
from rabbithole.retrieval.glossary import parse_entries

TEXTS = [
    "Die Wartung der Anlage ist jährlich durchzuführen. Die Kosten der Wartung werden erstattet.",
    "Der Betreiber hat die Wartung zu dokumentieren; § 12 Absatz 3 gilt für 2019 entsprechend.",
]

ENTRIES = parse_entries(
    """
maintenance | Wartung
facility | Anlage
occupational exposure | berufliche Exposition
occupational disease | Berufskrankheit
exposure | Exposition
reimburse | Rückerstattung
"""
)


def test_corpus_stems_are_counted_by_frequency_with_their_spellings() -> None:
    counts = corpus_stems(TEXTS)
    top = counts[0]
    assert (top.stem, top.count, top.texts, top.forms) == ("wartung", 3, 2, ("Wartung",))
    stems = [c.stem for c in counts]
    assert "§12" not in stems and "2019" not in stems  # citations and numbers are no content words
    assert "abs" not in stems  # canonical abbreviation tokens are no content words either
    assert "die" not in stems and "der" not in stems  # stopwords


def test_uncovered_stems_leave_out_what_a_glossary_term_produces() -> None:
    covered = glossary_stems(ENTRIES)
    assert {"wartung", "anlag", "exposition"} <= covered
    missing = [c.stem for c in uncovered_stems(corpus_stems(TEXTS), covered)]
    assert "wartung" not in missing and "anlag" not in missing
    assert "erstatt" in missing  # "Rückerstattung" stems to "ruckerstatt", not the verb's "erstatt"
    assert "betreib" in missing and "kost" in missing


def test_absent_terms_are_glossary_terms_the_corpus_never_uses() -> None:
    absent = absent_terms(ENTRIES, corpus_vocabulary(TEXTS))
    assert ("reimburse", "Rückerstattung") in absent
    assert ("occupational exposure", "berufliche Exposition") in absent
    assert ("maintenance", "Wartung") not in absent and ("facility", "Anlage") not in absent


def test_english_words_only_inside_phrases_are_listed_by_phrase_count() -> None:
    assert english_only_in_phrases(ENTRIES) == [("occupational", 2), ("disease", 1)]
    with_single = [*ENTRIES, ("occupationally", ("beruflich",))]  # stems alike: covers "occupational"
    assert english_only_in_phrases(with_single) == [("disease", 1)]


def test_main_reports_an_uningested_data_dir(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="no catalog"):
        main(["--data-dir", str(tmp_path)])
