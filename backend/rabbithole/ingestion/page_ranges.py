"""Page numbers as people write them in a message: "pages 1–3, 5" (the PDF parser's and OCR's warnings)."""

from __future__ import annotations

from collections.abc import Sequence


def plural(numbers: Sequence[int]) -> str:
    return "page" if len(numbers) == 1 else "pages"


def page_ranges(numbers: Sequence[int]) -> str:
    """[1, 2, 3, 5] -> "1–3, 5"."""
    out: list[str] = []
    ordered = sorted(numbers)
    start = prev = ordered[0]
    for n in [*ordered[1:], None]:
        if n is not None and n == prev + 1:
            prev = n
            continue
        out.append(str(start) if start == prev else f"{start}–{prev}")
        if n is not None:
            start = prev = n
    return ", ".join(out)
