"""A collection's OCR languages: the check of a list a user gives against the languages Tesseract has data
for here (``tesseract.installed_languages``; known codes whose data is installed, never a silent fallback),
and the languages a collection's scans are read in (its own, or the server's default
``ingestion.ocr.languages``).

    check_languages(["deu", "fra"])          # OcrLanguageError naming fra and the installed ones
    effective_languages((), settings.ocr)    # ("deu", "eng"): the default where a collection has none
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rabbithole.core.config import IngestionSettings
from rabbithole.core.config.ocr import OcrSettings
from rabbithole.core.errors import InvalidRequestError
from rabbithole.ingestion.ocr.tesseract import NOT_LANGUAGES, TesseractError, installed_languages

#: a Tesseract language code as `tesseract --list-langs` gives them: deu, eng, chi_sim, deu_latf
LANGUAGE_CODE = re.compile(r"^[a-z]{3}(_[a-z]+)?$")
#: languages one collection may read with at once (each one slows Tesseract down)
MAX_LANGUAGES = 8


class OcrLanguageError(InvalidRequestError):
    """OCR languages that cannot be used here: an unknown code, or one whose Tesseract data is missing
    (HTTP 422, CLI exit code 64)."""


def check_languages(codes: Sequence[str]) -> tuple[str, ...]:
    """``codes`` as a collection stores them (in order, each once), when Tesseract can read each here;
    OcrLanguageError naming the first code that cannot be used and the installed languages. An empty list
    is always valid: the collection then reads with the server's default."""
    languages = tuple(code.strip() for code in codes)
    if not languages:
        return ()
    if len(languages) > MAX_LANGUAGES:
        raise OcrLanguageError(f"at most {MAX_LANGUAGES} OCR languages; {len(languages)} were given")
    repeated = sorted({code for code in languages if languages.count(code) > 1})
    if repeated:
        raise OcrLanguageError(f"OCR language {', '.join(repeated)} is given more than once")
    try:
        installed = installed_languages()
    except TesseractError as exc:
        raise OcrLanguageError(f"OCR languages cannot be set: {exc}") from exc
    shown = ", ".join(installed) or "none"
    for code in languages:
        if not LANGUAGE_CODE.match(code) or code in NOT_LANGUAGES:
            raise OcrLanguageError(
                f"'{code}' is not a Tesseract language code (three letters such as deu, eng, fra); "
                f"installed: {shown}"
            )
        if code not in installed:
            raise OcrLanguageError(
                f"Tesseract has no data for the OCR language '{code}' here (installed: {shown}); install "
                f"it with: sudo apt-get install -y tesseract-ocr-{code.replace('_', '-')}"
            )
    return languages


def effective_languages(own: Sequence[str], settings: OcrSettings) -> tuple[str, ...]:
    """The languages a collection's scans are read in: its own, or the server's default."""
    return tuple(own) if own else tuple(settings.languages)


def reading_in(settings: IngestionSettings, languages: Sequence[str]) -> IngestionSettings:
    """``settings`` with OCR reading in ``languages`` (a collection's): the server's settings unchanged."""
    ocr = settings.ocr.model_copy(update={"languages": list(languages)})
    return settings.model_copy(update={"ocr": ocr})
