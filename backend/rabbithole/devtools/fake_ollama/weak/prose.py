"""The weak behaviours on a plain-text answer (no schema): a long answer, a sentence repeated, a figure
changed, the other language."""

from __future__ import annotations

import re

from rabbithole.devtools.fake_ollama.text import PromptContext, answer_text
from rabbithole.devtools.fake_ollama.weak import language
from rabbithole.devtools.fake_ollama.weak.numbers import change_number

#: How often a looping answer repeats its sentence (the 0.5B model's report: 14 times).
REPEATS = 14
#: How many context sentences a long-winded answer strings together.
LONG_SENTENCES = 12
# after a sentence's end or its citation ("... Kalenderjahr. [S1] Die ..."), before a capital
_SPLIT = re.compile(r"(?<=[.!?:\]])\s+(?=[A-ZÄÖÜ„\"(])")


def long_answer(ctx: PromptContext) -> str:
    """The normal answer, but with up to ``LONG_SENTENCES`` context sentences instead of three."""
    if len(ctx.sentences) <= 3:
        return answer_text(ctx)
    lead = answer_text(ctx).split(ctx.sentences[0].text, 1)[0].rstrip()
    parts = [lead]
    for sentence in ctx.sentences[:LONG_SENTENCES]:
        ref = f" [{sentence.source_id}]" if sentence.source_id else ""
        parts.append(sentence.text + ref)
    return " ".join(parts)


def repeat(text: str) -> str | None:
    """The lead-in and then the first sentence ``REPEATS`` times (None: a single sentence)."""
    parts = _SPLIT.split(text)
    if len(parts) < 2:
        return None
    lead, first = (parts[0], parts[1]) if parts[0].endswith(":") else ("", parts[0])
    return " ".join(([lead] if lead else []) + [first] * REPEATS)


def junk(text: str) -> str | None:
    return change_number(text)


def wrong_language(ctx: PromptContext) -> str:
    return language.prose(ctx, [s.source_id for s in ctx.sentences[:3] if s.source_id])
