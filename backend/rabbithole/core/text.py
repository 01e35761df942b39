"""Small text helpers shared by ingestion (chunking) and research (sentence spans)."""

from __future__ import annotations


def trim_span(text: str, start: int, end: int) -> tuple[int, int]:
    """``[start, end)`` of ``text`` without leading and trailing whitespace (empty spans stay empty)."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end
