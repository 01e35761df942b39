"""Headings judged by their text alone (OCR lines and plain text carry no font): a cited section is not a
heading, and an annex or § heading may run to five lines."""

from __future__ import annotations

from rabbithole.ingestion.structure import detect_structure


def labels(text: str) -> list[str | None]:
    return [s.label for s in detect_structure(text).sections]


def test_a_table_row_citing_a_section_is_not_a_heading() -> None:
    text = (
        "§ 1 Übergang der Finanzierungspflicht\n\nText des Paragraphen.\n\n"
        "§ 2 Übergang der Handlungspflicht\n\nText.\n\n"
        "§ 12 Absatz 1 Nummer 3 StrlSchG Brunsbüttel\n\n§ 7 Abs. 1 AtG Grafenrheinfeld\n\n"
        "§ 3 Zwischenlager\n\nText."
    )
    assert labels(text) == ["§ 1", "§ 2", "§ 3"]


def test_an_annex_heading_of_four_lines_is_found() -> None:
    text = (
        "§ 1 Zweck\n\nText des Paragraphen.\n\n§ 2 Begriffe\n\nText.\n\n"
        "Anlage 4 Aktivitätsabhängige Erhöhungsbeträge zur Ermittlung der\n"
        "Regeldeckungssumme für die Beförderung von Kernmaterialien, für\n"
        "sonstige Kernanlagen und Kernanlagen in Stilllegung in Millionen\n"
        "Euro\n\n(Fundstelle: BGBl. I 2022, 128)\n\nGesamtaktivität in Bq 10 hoch 15"
    )
    sections = detect_structure(text).sections
    assert [s.label for s in sections] == ["§ 1", "§ 2", "Anlage 4"]
    assert sections[-1].heading.startswith("Aktivitätsabhängige Erhöhungsbeträge")
    assert sections[-1].heading.endswith("in Millionen Euro")


def test_a_sentence_of_three_lines_opening_with_an_annex_number_is_not_a_heading() -> None:
    text = (
        "§ 1 Zweck\n\nText.\n\n§ 2 Begriffe\n\nText.\n\n"
        "Anlage 3 Teil D genannten Fällen ist eine Genehmigung nicht erforderlich, wenn\n"
        "die Voraussetzungen vorliegen und der Betreiber die Anzeige erstattet hat, und\n"
        "zwar vor Beginn der Tätigkeit.\n\nText."
    )
    assert labels(text) == ["§ 1", "§ 2"]


def test_numbered_list_items_of_a_statute_read_without_fonts_stay_in_their_section() -> None:
    text = (
        "§ 1 Anwendungsbereich\n\n(1) Diese Verordnung gilt für Anlagen.\n\n"
        "(2) Für folgende Anlagen gelten die §§ 6 bis 8:\n\n1. Aufbewahrungen nach § 6 des Atomgesetzes,\n\n"
        "2. Anlagen in Stilllegung\n\n3. Bewertungszeitraum\n\n§ 2 Begriffsbestimmungen\n\nText."
    )
    sections = detect_structure(text).sections
    assert [s.label for s in sections] == ["§ 1", "§ 2"]
    assert text[sections[0].start : sections[0].end].endswith("3. Bewertungszeitraum")
