"""Small text helpers shared by ingestion (chunking) and research (sentence spans)."""

from __future__ import annotations

from collections.abc import Sequence


def trim_span(text: str, start: int, end: int) -> tuple[int, int]:
    """``[start, end)`` of ``text`` without leading and trailing whitespace (empty spans stay empty)."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def text_key(text: str) -> str:
    """What makes two titles or queries the same: whitespace collapsed, case folded."""
    return " ".join(text.split()).casefold()


def unique_texts(items: Sequence[str]) -> list[str]:
    """Whitespace collapsed, empty and repeated (``text_key``) items dropped, order kept."""
    out: list[str] = []
    seen: set[str] = set()
    for item in items:
        item = " ".join(item.split())
        if item and text_key(item) not in seen:
            seen.add(text_key(item))
            out.append(item)
    return out
