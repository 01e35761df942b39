"""Language detection with lingua (a maintained detector that is accurate on short text), never the LLM.

The detector knows only the configured languages (``research.languages``, ISO 639-1 codes); its models
load on the first call (about 1-2 s), once per process, so the composition root owns one instance.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from lingua import LanguageDetector as _Lingua

#: Language names the prompts use, by ISO 639-1 code (others fall back to the code).
LANGUAGE_NAMES = {
    "de": "German",
    "en": "English",
    "fr": "French",
    "es": "Spanish",
    "it": "Italian",
    "nl": "Dutch",
    "pt": "Portuguese",
    "pl": "Polish",
}


def language_name(code: str) -> str:
    return LANGUAGE_NAMES.get(code, code)


class LanguageDetector:
    """ISO 639-1 code of a text among ``languages``; ``default`` when the text says nothing (empty)."""

    def __init__(self, languages: Sequence[str] = ("de", "en"), default: str = "en") -> None:
        if len(set(languages)) < 2:
            raise ValueError("language detection needs at least two languages")
        self.languages = tuple(dict.fromkeys(code.lower() for code in languages))
        self.default = default if default in self.languages else self.languages[0]
        self._detector: _Lingua | None = None
        self._lock = threading.Lock()

    def _lingua(self) -> _Lingua:
        with self._lock:
            if self._detector is None:
                from lingua import IsoCode639_1, Language, LanguageDetectorBuilder

                wanted = [
                    Language.from_iso_code_639_1(getattr(IsoCode639_1, c.upper())) for c in self.languages
                ]
                self._detector = LanguageDetectorBuilder.from_languages(*wanted).build()
            return self._detector

    def detect(self, text: str) -> str:
        """The most likely language of ``text``."""
        sample = " ".join(text.split())[:2000]
        if not any(ch.isalpha() for ch in sample):
            return self.default
        found = self._lingua().detect_language_of(sample)
        if found is None:
            return self.default
        return str(found.iso_code_639_1.name).lower()

    def is_language(self, text: str, code: str) -> bool:
        return self.detect(text) == code
