"""OCR word boxes as the catalog stores them (pages.words_json: [[start, end, x0, y0, x1, y1], ...], page
text offsets and page fractions), and the boxes that show a stretch of a page's text."""

from __future__ import annotations

import json

from rabbithole.core.models import WordBox


def encode_words(words: tuple[WordBox, ...]) -> str:
    if not words:
        return ""
    return json.dumps([[w.start, w.end, w.x0, w.y0, w.x1, w.y1] for w in words], separators=(",", ":"))


def decode_words(stored: str) -> tuple[WordBox, ...]:
    if not stored:
        return ()
    return tuple(
        WordBox(int(s), int(e), float(x0), float(y0), float(x1), float(y1))
        for s, e, x0, y0, x1, y1 in json.loads(stored)
    )


def boxes_for(words: tuple[WordBox, ...], start: int, end: int) -> list[WordBox]:
    """The words whose characters overlap [start, end) of the page text, in reading order."""
    return [w for w in words if w.start < end and w.end > start]
