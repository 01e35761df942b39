"""The check of a collection's OCR languages against the Tesseract of this machine, through
ingestion/ocr/languages.py: installed codes pass in their order, the default needs nothing, and without
Tesseract no language can be set (the message says how to install it); never a silent fallback."""

from __future__ import annotations

import pytest

from rabbithole.ingestion.ocr.languages import (
    MAX_LANGUAGES,
    OcrLanguageError,
    check_languages,
    installed_languages,
)


def test_installed_languages_pass_in_their_order() -> None:
    assert check_languages([" eng", "deu "]) == ("eng", "deu")
    assert check_languages([]) == ()
    installed = installed_languages()
    assert installed is not None and {"deu", "eng"} <= set(installed) and "osd" not in installed


def test_too_many_languages_are_refused() -> None:
    with pytest.raises(OcrLanguageError, match=f"at most {MAX_LANGUAGES} OCR languages; 9 were given"):
        check_languages(["deu"] * 9)


@pytest.mark.usefixtures("without_tesseract")
def test_without_tesseract_no_language_can_be_set() -> None:
    assert installed_languages() is None
    with pytest.raises(OcrLanguageError, match="Tesseract is not installed; install it with: sudo apt-get"):
        check_languages(["deu"])
    assert check_languages([]) == ()  # the server's default: reported per scan when it is read
