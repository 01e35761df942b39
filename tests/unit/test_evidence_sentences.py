from __future__ import annotations

import random

import pytest

from rabbithole.research.evidence.sentences import SentenceSpan, split_sentences

# Page 41 of kb/sample/StrlSchG.pdf as the PDF parser stores it (paragraphs separated by blank lines).
STRLSCHG_P41 = (
    "a) die angezeigte Tätigkeit und die vorgesehenen Strahlenschutzmaßnahmen\nbeschrieben sind,\n\n"
    "b) die mögliche Körperdosis der beruflich exponierten Personen bestimmt ist und\n\n"
    "c)  nachgewiesen ist, dass bei der Tätigkeit die Ausrüstungen vorhanden und die\nMaßnahmen getroffen "
    "sind, die nach dem Stand der Technik erforderlich sind, damit\ndie Schutzvorschriften eingehalten "
    "werden,\n\n"
    "2. Nachweis, dass die für die sichere Durchführung der Tätigkeit notwendige Anzahl von\n"
    "Strahlenschutzbeauftragten bestellt ist und ihnen die für die Erfüllung ihrer Aufgaben\n"
    "erforderlichen Befugnisse eingeräumt sind,\n\n"
    "Erfolgt die Anzeige auf Grund einer Abschätzung nach § 55 Absatz 1 Satz 2 oder nach § 55\n"
    "Absatz 2, so kann die zuständige Behörde im Einzelfall eine Frist für eine spätere Vorlage\n"
    "aller oder einzelner Unterlagen bestimmen.\n\n"
    "(3) Die Absätze 1 und 2 sind entsprechend anzuwenden, wenn die angezeigte Tätigkeit\n"
    "wesentlich verändert wird.\n\n"
    "§ 57 Prüfung der angezeigten Tätigkeit\n\n"
    "(1) Die zuständige Behörde prüft die Anzeige innerhalb von vier Wochen nach Eingang der\n"
    "Unterlagen. Teilt die Behörde dem Anzeigenden im Falle einer Abschätzung nach § 55\n"
    "Absatz 1 Satz 1 vor Ablauf dieser Frist schriftlich mit, dass alle erforderlichen Nachweise\n"
    "erbracht sind, darf der Anzeigende die Tätigkeit bereits mit Erhalt der Mitteilung\naufnehmen.\n\n"
    "(3) Die zuständige Behörde kann die Tätigkeit untersagen, wenn\n\n"
    "1. eine der nach § 56 Absatz 2 Satz 1 nachzuweisenden Anforderungen nicht oder nicht\n"
    "mehr erfüllt ist; dies gilt nach Ablauf der Frist nach Absatz 1 nur, wenn nicht in\n"
    "angemessener Zeit Abhilfe geschaffen wird,\n\n"
    "2. Tatsachen vorliegen, aus denen sich Bedenken ergeben, ob das für die sichere\n"
    "Ausführung der Tätigkeit notwendige Personal vorhanden ist,"
)

# The same kind of text as a raw PDF text layer gives it: no blank lines between paragraphs.
STRLSCHG_P6_RAW = (
    "(9) Betrieb einer Röntgeneinrichtung: Eigenverantwortliches Verwenden oder Bereithalten\n"
    "einer Röntgeneinrichtung zur Erzeugung von Röntgenstrahlung. Nicht zum Betrieb gehört\n"
    "die Erzeugung von Röntgenstrahlung im Zusammenhang mit der geschäftsmäßigen\n"
    "Prüfung, Erprobung, Wartung oder Instandsetzung der Röntgeneinrichtung.\n"
    "Röntgeneinrichtungen werden ferner nicht betrieben, soweit sie im Bereich der\n"
    "Bundeswehr oder des Zivilschutzes ausschließlich für den Einsatzfall geprüft, erprobt,\n"
    "gewartet, instand gesetzt oder bereitgehalten werden.\n"
    "(10) Betrieb eines Störstrahlers: Eigenverantwortliches Verwenden oder Bereithalten eines\n"
    "Störstrahlers.\n"
    "(12) Einrichtungen: Gebäude, Gebäudeteile, einzelne Räume oder vergleichbar\n"
    "abgegrenzte Freiflächen, in denen\n"
    "1. nach § 5 oder § 9 des Atomgesetzes mit radioaktiven Stoffen umgegangen wird, oder\n"
    "2. nach § 12 Absatz 1 Nummer 1 eine Anlage zur Erzeugung ionisierender Strahlung, nach §\n"
    "12 Absatz 1 Nummer 4 eine Röntgeneinrichtung betrieben wird.\n"
    "(3) Dieses Gesetz gilt im Rahmen des Seerechtsübereinkommens der Vereinten Nationen vom 10.\n"
    "Dezember 1982 auch in der ausschließlichen Wirtschaftszone."
)


def texts(text: str, offset: int = 0, **kwargs: int) -> list[str]:
    return [text[s.start - offset : s.end - offset] for s in split_sentences(text, offset, **kwargs)]


def assert_well_formed(text: str, spans: list[SentenceSpan], offset: int = 0, max_chars: int = 500) -> None:
    previous_end = offset
    for span in spans:
        assert offset <= span.start < span.end <= offset + len(text)
        assert span.start >= previous_end
        piece = text[span.start - offset : span.end - offset]
        assert piece == piece.strip()
        assert "\f" not in piece
        assert len(piece) <= max_chars
        between = text[previous_end - offset : span.start - offset]
        assert not between.strip(), f"text lost between spans: {between!r}"
        previous_end = span.end
    assert not text[previous_end - offset :].strip()


def test_parsed_page_paragraphs_list_items_and_headings() -> None:
    got = texts(STRLSCHG_P41)
    assert [t.split()[0] for t in got] == [
        "a)",
        "b)",
        "c)",
        "2.",
        "Erfolgt",
        "(3)",
        "§",
        "(1)",
        "Teilt",
        "(3)",
        "1.",
        "2.",
    ]
    assert got[6] == "§ 57 Prüfung der angezeigten Tätigkeit"
    assert got[7] == (
        "(1) Die zuständige Behörde prüft die Anzeige innerhalb von vier Wochen nach Eingang der\nUnterlagen."
    )
    assert got[10].endswith("angemessener Zeit Abhilfe geschaffen wird,")
    assert "; dies gilt" in got[10]  # a semicolon inside a list item does not split it
    assert_well_formed(STRLSCHG_P41, split_sentences(STRLSCHG_P41))


def test_raw_text_without_blank_lines() -> None:
    got = texts(STRLSCHG_P6_RAW)
    assert got == [
        "(9) Betrieb einer Röntgeneinrichtung: Eigenverantwortliches Verwenden oder Bereithalten\n"
        "einer Röntgeneinrichtung zur Erzeugung von Röntgenstrahlung.",
        "Nicht zum Betrieb gehört\ndie Erzeugung von Röntgenstrahlung im Zusammenhang mit der "
        "geschäftsmäßigen\nPrüfung, Erprobung, Wartung oder Instandsetzung der Röntgeneinrichtung.",
        "Röntgeneinrichtungen werden ferner nicht betrieben, soweit sie im Bereich der\n"
        "Bundeswehr oder des Zivilschutzes ausschließlich für den Einsatzfall geprüft, erprobt,\n"
        "gewartet, instand gesetzt oder bereitgehalten werden.",
        "(10) Betrieb eines Störstrahlers: Eigenverantwortliches Verwenden oder Bereithalten eines\n"
        "Störstrahlers.",
        "(12) Einrichtungen: Gebäude, Gebäudeteile, einzelne Räume oder vergleichbar\n"
        "abgegrenzte Freiflächen, in denen",
        "1. nach § 5 oder § 9 des Atomgesetzes mit radioaktiven Stoffen umgegangen wird, oder",
        "2. nach § 12 Absatz 1 Nummer 1 eine Anlage zur Erzeugung ionisierender Strahlung, nach §\n"
        "12 Absatz 1 Nummer 4 eine Röntgeneinrichtung betrieben wird.",
        "(3) Dieses Gesetz gilt im Rahmen des Seerechtsübereinkommens der Vereinten Nationen vom 10.\n"
        "Dezember 1982 auch in der ausschließlichen Wirtschaftszone.",
    ]


@pytest.mark.parametrize(
    "sentence",
    [
        "Die Pflicht gilt nach § 5 Abs. 2 S. 1 Nr. 3 i. V. m. Art. 4 Buchst. a der Richtlinie.",
        "Dies gilt z. B. für Anlagen, d. h. für ortsfeste Einrichtungen, u. a. Beschleuniger.",
        "Die Regelung, vgl. BGBl. I S. 1966, gilt bzw. wirkt ggf. auch insb. für Altanlagen.",
        "Die Anzeige erfolgt gem. Anl. 3 Ziff. 4 lit. b Kap. 2 des Gesetzes.",
        "Das Gesetz vom 20. Juli 2001 wurde am 3. Oktober geändert.",
        "Die Frist nach der 2. Durchführungsverordnung endet am 1. Januar.",
        "Herr Dr. Müller und Prof. Schmidt unterschrieben etc. Protokolle.",
        "The rule applies, e.g. to reactors, i.e. Fixed installations, cf. Sec. 5 on p. 12.",
        "See pp. 10-12 and No. 5 of the annex, as Mr. Smith noted.",
        "Er zitierte Art. 2 G v. 20.5.2021 I 1194 und die Bek. v. 3.1.2022.",
        "Die Werte (vgl. Anlage 4) sind zzgl. Zuschlägen anzusetzen.",
        "Das Umweltrahmengesetz vom 29. Juni 1990 (GBl. I Nr. 42 S. 649) und BAnz. Nr. 152a gelten.",
        "Amtl. Anm.: Sofern vorhanden.",
    ],
)
def test_abbreviations_dates_and_ordinals_do_not_end_a_sentence(sentence: str) -> None:
    assert texts(sentence) == [sentence]
    two = sentence + " Danach folgt ein zweiter Satz."
    assert texts(two) == [sentence, "Danach folgt ein zweiter Satz."]


def test_sentence_ending_in_a_number_still_ends() -> None:
    text = "Maßgeblich ist § 5 Abs. 2 Satz 1 Nr. 3. Die Behörde entscheidet. Sie prüft (erneut). Ende"
    assert texts(text) == [
        "Maßgeblich ist § 5 Abs. 2 Satz 1 Nr. 3.",
        "Die Behörde entscheidet.",
        "Sie prüft (erneut).",
        "Ende",
    ]


def test_inline_paragraph_numbers_stay_with_their_sentence() -> None:
    text = (
        "Die Behörden leiten Kopien weiter. 3. Die Originale bleiben dort. 4. Bei der Verbringung gilt dies."
    )
    assert texts(text) == [
        "Die Behörden leiten Kopien weiter.",
        "3. Die Originale bleiben dort.",
        "4. Bei der Verbringung gilt dies.",
    ]
    items = (
        "ohne Genehmigung,\n\n1a. Kernmaterialien befördert, ohne die Anzeige nach Rubrik 17b. "
        "Die Frist läuft."
    )
    assert texts(items) == [
        "ohne Genehmigung,",
        "1a. Kernmaterialien befördert, ohne die Anzeige nach Rubrik 17b.",
        "Die Frist läuft.",
    ]


def test_lowercase_after_a_dot_does_not_split() -> None:
    text = "Die Werte gelten ca. bis 2030. danach nicht mehr."
    assert texts(text) == [text]


def test_enumeration_items_are_own_spans() -> None:
    text = (
        "Die Behörde kann anordnen:\n1. die Messung der Ortsdosis;\n2. die Prüfung nach § 5 Abs. 2;\n"
        "3. die Meldung an die Behörde und\n4. die Stilllegung."
    )
    assert texts(text) == [
        "Die Behörde kann anordnen:",
        "1. die Messung der Ortsdosis;",
        "2. die Prüfung nach § 5 Abs. 2;",
        "3. die Meldung an die Behörde und",
        "4. die Stilllegung.",
    ]


def test_wrapped_line_starting_with_a_number_is_not_a_list_item() -> None:
    text = "Die Frist beginnt am\n1. Januar des Jahres und endet nach\n3 Monaten."
    assert texts(text) == [text]


def test_absatz_mark_at_line_start_always_starts_a_sentence() -> None:
    text = (
        "§ 80 Grenzwerte für beruflich exponierte Personen\n"
        "(1) Der Grenzwert beträgt 20 Millisievert\n(2) Abweichend"
    )
    assert texts(text) == [
        "§ 80 Grenzwerte für beruflich exponierte Personen",
        "(1) Der Grenzwert beträgt 20 Millisievert",
        "(2) Abweichend",
    ]


def test_english_text() -> None:
    text = (
        "Radiation protection is regulated by law. Is the limit 20 mSv? Yes! "
        'The report (see Fig. 3) says "the dose is low." Then it ends... Finally, a new one.'
    )
    assert texts(text) == [
        "Radiation protection is regulated by law.",
        "Is the limit 20 mSv?",
        "Yes!",
        'The report (see Fig. 3) says "the dose is low."',
        "Then it ends...",
        "Finally, a new one.",
    ]


def test_offset_is_added_and_pages_are_never_crossed() -> None:
    text = "Erster Satz der Seite ohne Ende\n\ffortgesetzt auf der nächsten Seite. Zweiter Satz.\n\f\n\f"
    spans = split_sentences(text, 1000)
    got = [text[s.start - 1000 : s.end - 1000] for s in spans]
    assert got == ["Erster Satz der Seite ohne Ende", "fortgesetzt auf der nächsten Seite.", "Zweiter Satz."]
    assert spans[0] == SentenceSpan(1000, 1000 + len("Erster Satz der Seite ohne Ende"))
    assert_well_formed(text, spans, 1000)


def test_empty_and_blank_text() -> None:
    assert split_sentences("") == []
    assert split_sentences(" \n\n\f \t") == []


def test_long_span_is_cut_at_the_best_break_before_the_limit() -> None:
    clause = "die Behörde prüft die Unterlagen"
    text = f"{clause}, {clause}; {clause}, {clause} und {clause}."
    got = texts(text, max_chars=100)
    assert got[0] == f"{clause}, {clause};"
    assert all(len(t) <= 100 for t in got)
    assert "".join(got).replace(" ", "") == text.replace(" ", "")


def test_long_span_without_punctuation_is_cut_at_a_space_or_hard() -> None:
    words = "wort " * 50
    got = texts(words, max_chars=23)
    assert all(len(t) <= 23 for t in got)
    assert " ".join(got).split() == words.split()
    solid = "x" * 25
    assert texts(solid, max_chars=10) == ["x" * 10, "x" * 10, "x" * 5]


def test_max_chars_must_be_positive() -> None:
    with pytest.raises(ValueError):
        split_sentences("Text.", max_chars=0)


def test_properties_on_random_text() -> None:
    rng = random.Random(7)
    vocabulary = [
        "Abs.", "Nr.", "§", "5", "1.", "(2)", "Die", "Behörde", "prüft", "z.", "B.", "20.", "Juli", "und",
        ";", ",", ".", "?", "\n", "\n\n", "\n\f", "a)", "e.g.", "Satz", "Ende.", "  ", "„Zitat“", "...",
    ]  # fmt: skip
    for _ in range(300):
        text = " ".join(rng.choice(vocabulary) for _ in range(rng.randint(0, 80)))
        max_chars = rng.choice([15, 40, 500])
        offset = rng.randint(0, 50)
        spans = split_sentences(text, offset, max_chars=max_chars)
        assert_well_formed(text, spans, offset, max_chars)


def test_real_page_covers_everything() -> None:
    for text in (STRLSCHG_P41, STRLSCHG_P6_RAW):
        for max_chars in (60, 500):
            assert_well_formed(text, split_sentences(text, 17, max_chars=max_chars), 17, max_chars)
