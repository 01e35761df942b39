from __future__ import annotations

from rabbithole.core.text import text_key, unique_texts


def test_texts_are_the_same_whatever_their_spacing_and_case() -> None:
    assert text_key("  Grenzwerte   für\nPersonen ") == text_key("grenzwerte für personen")
    assert text_key("§ 78") != text_key("§ 79")


def test_unique_texts_collapse_spaces_and_drop_empty_and_repeated_items_in_order() -> None:
    items = ["  Dose  limits ", "", "dose limits", "Monitoring", "   ", "MONITORING", "Duties"]
    assert unique_texts(items) == ["Dose limits", "Monitoring", "Duties"]
