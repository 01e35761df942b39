"""The weak model's answer to one request: the normal answer, transformed by the behaviours drawn for it,
serialised, and cut at the output cap."""

from __future__ import annotations

import json
import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rabbithole.devtools.fake_ollama.schema_instance import DEFAULT_ITEMS, generate_instance
from rabbithole.devtools.fake_ollama.text import PromptContext, answer_text, stable_hash
from rabbithole.devtools.fake_ollama.weak import prose, structured
from rabbithole.devtools.fake_ollama.weak.knobs import BEHAVIOURS, Behaviour, WeakKnobs
from rabbithole.devtools.fake_ollama.weak.tree import Tree

if TYPE_CHECKING:
    from rabbithole.devtools.fake_ollama.state import RecordedRequest

#: How many items each list of a long-winded structured answer gets (where the schema allows).
LONG_ITEMS = 8


@dataclass
class WeakAnswer:
    """The text a weak model sends, the behaviours that changed it (``truncation``: made long, or cut at the
    cap), and whether the cap cut it."""

    content: str
    behaviours: list[Behaviour] = field(default_factory=list)
    cut: bool = False


def request_seed(request: RecordedRequest) -> int:
    """The seed of a request: its text, schema, model and temperature (a retry with other messages or a
    higher temperature draws anew; the same request draws the same)."""
    options = request.options
    temperature = options.get("temperature", request.body.get("temperature"))
    schema = json.dumps(request.format, sort_keys=True, ensure_ascii=False, default=str)
    return stable_hash(request.prompt, schema, request.model, temperature)


def weak_answer(request: RecordedRequest, ctx: PromptContext, knobs: WeakKnobs) -> WeakAnswer:
    seed = request_seed(request)
    drawn = knobs.draw(seed)
    fmt = request.format
    if (isinstance(fmt, Mapping) and fmt) or fmt == "json":
        schema: Mapping[str, Any] = fmt if isinstance(fmt, Mapping) else {}
        content, hit = _structured(schema, ctx, drawn, seed)
    else:
        content, hit = _prose(ctx, drawn)
    answer = WeakAnswer(content, hit)
    if knobs.truncation > 0 and len(content) > knobs.char_cap:
        answer.content = content[: knobs.char_cap]
        answer.cut = True
        hit.append("truncation")  # also an answer that was long without being drawn long
    answer.behaviours = [b for b in BEHAVIOURS if b in hit]
    return answer


def _rng(seed: int, behaviour: Behaviour) -> random.Random:
    return random.Random(stable_hash("weak-rng", seed, behaviour))


def _structured(
    schema: Mapping[str, Any], ctx: PromptContext, drawn: frozenset[Behaviour], seed: int
) -> tuple[str, list[Behaviour]]:
    def answer(long: bool) -> Any:
        if schema:
            return generate_instance(schema, ctx, items=LONG_ITEMS if long else DEFAULT_ITEMS)
        # format "json": the normal answer's object
        return {"answer": prose.long_answer(ctx) if long else answer_text(ctx), "language": ctx.language}

    value = answer(long=False)
    hit: list[Behaviour] = []
    if "truncation" in drawn and (long := answer(long=True)) != value:
        value = long
        hit.append("truncation")
    tree = Tree(value, schema, bool(ctx.ids))
    steps: tuple[tuple[Behaviour, Any], ...] = (
        ("placeholders", lambda: structured.placeholders(tree, _rng(seed, "placeholders"))),
        ("junk", lambda: structured.junk(tree, ctx, _rng(seed, "junk"))),
        ("wrong_language", lambda: structured.wrong_language(tree, ctx)),
        ("repetition", lambda: structured.repeat(tree)),
        ("control_chars", lambda: structured.mark_control_char(tree, _rng(seed, "control_chars"))),
    )
    for behaviour, apply in steps:
        if behaviour in drawn and apply():
            hit.append(behaviour)
    text = json.dumps(tree.value, ensure_ascii=False)
    return text.replace(structured.SENTINEL, "\n"), hit


def _prose(ctx: PromptContext, drawn: frozenset[Behaviour]) -> tuple[str, list[Behaviour]]:
    text = answer_text(ctx)
    hit: list[Behaviour] = []
    if "truncation" in drawn and (long := prose.long_answer(ctx)) != text:
        text = long
        hit.append("truncation")
    if "wrong_language" in drawn:
        text = prose.wrong_language(ctx)
        hit.append("wrong_language")
    if "junk" in drawn and (changed := prose.junk(text)) is not None:
        text = changed
        hit.append("junk")
    if "repetition" in drawn and (repeated := prose.repeat(text)) is not None:
        text = repeated
        hit.append("repetition")
    return text, hit
