"""Section signs Tesseract misread ("8", "$", "S", "88") are restored where the context leaves no doubt, and
nothing else changes (the length stays, so word boxes keep their offsets)."""

from __future__ import annotations

import pytest

from rabbithole.ingestion.ocr.section_signs import restore_section_signs


@pytest.mark.parametrize(
    ("read", "restored"),
    [
        ("8 5a Kosten der staatlichen Verwahrung", "§ 5a Kosten der staatlichen Verwahrung"),
        ("88 7 und 9 Gebühren", "§§ 7 und 9 Gebühren"),
        ("Anträge nach 8 27 Absatz 1 des", "Anträge nach § 27 Absatz 1 des"),
        ("nach den 88 6 und 9 des Atomgesetzes", "nach den §§ 6 und 9 des Atomgesetzes"),
        ("$ 12 Abs. 3 gilt entsprechend", "§ 12 Abs. 3 gilt entsprechend"),
        ("der Betrag von 8 500 Euro", "der Betrag von 8 500 Euro"),
        ("Es sind 8 5 Jahre", "Es sind 8 5 Jahre"),
        ("8 Kinder", "8 Kinder"),
        ("§ 3 Gebührenbemessung", "§ 3 Gebührenbemessung"),
    ],
)
def test_section_signs(read: str, restored: str) -> None:
    assert restore_section_signs(read) == restored
    assert len(restore_section_signs(read)) == len(read)
