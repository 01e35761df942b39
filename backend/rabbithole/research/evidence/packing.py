"""Packing the synthesis prompt into the model's context window, by priority, never truncating.

Items (evidence, task summaries, the clarification summary, ...) are taken in priority order (lower number
first; equal priorities in their given order) and each is kept whole if it still fits the budget or skipped
if it does not, so a smaller item of lower priority can still use the room left. What is cut is reported by
key, never silently dropped or shortened.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

__all__ = ["PackItem", "PackResult", "pack"]


@dataclass(frozen=True)
class PackItem:
    key: str
    text: str
    priority: int  # lower is more important
    tokens: int  # the caller's count for ``text`` (with its prompt framing)


@dataclass(slots=True)
class PackResult:
    kept: list[PackItem] = field(default_factory=list)  # in the original order
    cut: list[str] = field(default_factory=list)  # keys that did not fit, in the original order
    used: int = 0  # tokens of the kept items


def pack(items: Sequence[PackItem], budget: int) -> PackResult:
    """The items that fit ``budget`` tokens, chosen by priority (see the module docstring)."""
    if any(item.tokens < 0 for item in items):
        raise ValueError("an item cannot have a negative token count")
    taken: set[int] = set()
    used = 0
    for index in sorted(range(len(items)), key=lambda i: items[i].priority):
        if used + items[index].tokens <= budget:
            taken.add(index)
            used += items[index].tokens
    return PackResult(
        kept=[item for i, item in enumerate(items) if i in taken],
        cut=[item.key for i, item in enumerate(items) if i not in taken],
        used=used,
    )
