"""Absätze inside a § section's chunks: "(2) ..." at a line start opens Absatz 2.

A section longer than one chunk is split over several; which chunks hold the Absatz a reference names
("§ 5 Absatz 26") is told by these marks, carrying the Absatz running at a chunk's end into the next.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

from rabbithole.core.models import Chunk

__all__ = ["absatz_at", "absatz_chunks"]

_ABSATZ_MARK: Final = re.compile(r"(?:^|\n)[ \t]*\((\d+[a-z]?)\)[ \t]")


def absatz_chunks(chunks: Sequence[Chunk], absaetze: set[str]) -> list[Chunk]:
    """The chunks of one section (document order) that hold any of ``absaetze`` ("(2) ..." starts an
    Absatz; a chunk also holds the Absatz running at its start); [] when the section shows no such mark."""
    wanted = {a.casefold() for a in absaetze}
    running: str | None = None
    out: list[Chunk] = []
    for chunk in chunks:
        marks = list(_ABSATZ_MARK.finditer(chunk.text))
        starts_with_mark = bool(marks) and not chunk.text[: marks[0].start()].strip()
        held = {running} if running is not None and not starts_with_mark else set()
        for m in marks:
            held.add(m.group(1).casefold())
            running = m.group(1).casefold()
        if held & wanted:
            out.append(chunk)
    return out


def absatz_at(chunks: Sequence[Chunk], chunk: Chunk, offset: int) -> str | None:
    """The Absatz running at ``offset`` of ``chunk`` (one of ``chunks``, its section in document order):
    the last "(n)" mark before it in the chunk, else the one running at the chunk's start."""
    marks = [m.group(1).casefold() for m in _ABSATZ_MARK.finditer(chunk.text, 0, offset)]
    if marks:
        return marks[-1]
    running: str | None = None
    for other in chunks:
        if other.ordinal >= chunk.ordinal:
            break
        for m in _ABSATZ_MARK.finditer(other.text):
            running = m.group(1).casefold()
    return running
