"""The weak behaviours on a structured (JSON) answer: each takes the parsed answer and changes it in place,
keeping it valid against its schema (enums, ``maxItems``, ``uniqueItems``, lengths), and says whether it
changed anything."""

from __future__ import annotations

import copy
import random
import re
from collections.abc import Mapping
from typing import Any

from rabbithole.devtools.fake_ollama.text import PromptContext
from rabbithole.devtools.fake_ollama.weak import language
from rabbithole.devtools.fake_ollama.weak.numbers import change_number
from rabbithole.devtools.fake_ollama.weak.tree import PROSE_KINDS, Leaf, Path, Tree, fits, pattern

#: How many items a repeating list gets (where the schema allows): 2 sections x 7 = the same claim 14 times.
REPEAT_ITEMS = 7
_NUMBERED_LINE = re.compile(r"^\[(\d+)\] (.+)$", re.MULTILINE)


def _prose(leaf: Leaf) -> bool:
    return leaf.free and leaf.kind in PROSE_KINDS


def _set(tree: Tree, leaf: Leaf, text: str) -> bool:
    """Rewrite one string when the new text fits its schema and differs."""
    if text == leaf.text or not fits(text, leaf.schema):
        return False
    tree.set(leaf.path, text)
    return True


# -- repetition -------------------------------------------------------------------------------------


def repeat(tree: Tree) -> bool:
    """The first item of the lists that hold most prose (claims, findings) copied into every item of
    every list at that place, each filled to ``REPEAT_ITEMS`` items where the schema allows."""
    groups: dict[tuple[str, ...], list[Path]] = {}
    for leaf in tree.leaves():
        if not _prose(leaf):
            continue
        if isinstance(leaf.path[-1], int):
            array = leaf.path[:-1]
        elif len(leaf.path) > 1 and isinstance(leaf.path[-2], int):
            array = leaf.path[:-2]
        else:
            continue
        paths = groups.setdefault(pattern(array), [])
        if array not in paths:
            paths.append(array)
    best: list[Path] = []
    for paths in groups.values():
        if sum(len(tree.get(p)) for p in paths) > sum(len(tree.get(p)) for p in best):
            best = paths
    if not best or tree.schema_at(best[0]).get("uniqueItems"):
        return False
    schema = tree.schema_at(best[0])
    limit = schema.get("maxItems")
    wanted = min(REPEAT_ITEMS, limit) if isinstance(limit, int) else REPEAT_ITEMS
    first = copy.deepcopy(tree.get(best[0])[0])
    changed = False
    for path in best:
        items = tree.get(path)
        new = [copy.deepcopy(first) for _ in range(max(len(items), wanted))]
        changed = changed or new != items
        items[:] = new
    return changed


# -- placeholders -----------------------------------------------------------------------------------


def _singular(name: str) -> str:
    word = name.replace("_", " ").strip()
    word = word[:1].upper() + word[1:]
    return word[:-1] if word.endswith("s") and not word.endswith("ss") else word


def _description(schema: Mapping[str, Any]) -> str | None:
    text = schema.get("description")
    return str(text).strip().rstrip(".") or None if isinstance(text, str) else None


def placeholders(tree: Tree, rng: random.Random) -> bool:
    """Title-like fields (title, heading, name, ...) filled with what the schema says about them: the class
    name ("ReportDraft") or the field's description ("Title of the report") at the top; in list items one
    style per answer: the description ("Section heading", the last item named after a list beside it:
    "Claims"), numbers ("Section 1".."Section 8") or the list's name ("Sections")."""
    style = rng.choice(("description", "numbered", "plural"))
    changed = False
    for leaf in tree.leaves():
        if leaf.kind != "title" or not leaf.free:
            continue
        ints = [i for i, p in enumerate(leaf.path) if isinstance(p, int)]
        if not ints:
            class_name = str(tree.root.get("title") or leaf.name.title())
            text = _description(leaf.schema) if rng.random() < 0.5 else None
            changed |= _set(tree, leaf, text or class_name)
            continue
        at = ints[-1]
        array_name = next((str(p) for p in reversed(leaf.path[:at]) if isinstance(p, str)), "item")
        index = leaf.path[at]
        assert isinstance(index, int)
        if style == "numbered":
            text = f"{_singular(array_name)} {index + 1}"
        elif style == "plural":
            text = _singular(array_name) + "s"
        else:
            text = _description(leaf.schema) or f"{_singular(array_name)} {leaf.name}"
            owner = tree.get(leaf.path[:-1])
            siblings = [k for k, v in owner.items() if isinstance(v, list)] if isinstance(owner, dict) else []
            if siblings and index == len(tree.get(leaf.path[:at])) - 1 and index > 0:
                text = _singular(siblings[0]) + "s"
        changed |= _set(tree, leaf, text)
    return changed


# -- junk -------------------------------------------------------------------------------------------


def junk(tree: Tree, ctx: PromptContext, rng: random.Random) -> bool:
    """A fact written from another sentence than the numbered ones it names (extraction), and a number
    changed in the first prose that has one."""
    swapped = _swap_fact(tree, ctx, rng)
    for leaf in tree.leaves():
        if _prose(leaf):
            changed = change_number(leaf.text)
            if changed is not None and _set(tree, leaf, changed):
                return True
    return swapped


def _swap_fact(tree: Tree, ctx: PromptContext, rng: random.Random) -> bool:
    numbered = {int(n): text.strip() for n, text in _NUMBERED_LINE.findall(ctx.prompt)}
    if len(numbered) < 2:
        return False
    for leaf in tree.leaves():
        if not _prose(leaf) or len(leaf.path) < 2:
            continue
        owner = tree.get(leaf.path[:-1])
        if not isinstance(owner, dict):
            continue
        chosen = next(
            (
                set(v)
                for v in owner.values()
                if isinstance(v, list) and v and all(type(n) is int and n in numbered for n in v)
            ),
            None,
        )
        if chosen is None:
            continue
        others = [n for n in numbered if n not in chosen]
        with_figures = [n for n in others if any(c.isdigit() for c in numbered[n])]
        pool = with_figures or others
        if pool and _set(tree, leaf, numbered[rng.choice(pool)]):
            return True
    return False


# -- the wrong language -----------------------------------------------------------------------------


def wrong_language(tree: Tree, ctx: PromptContext) -> bool:
    """Every prose and title field written in the other language (quotes, ids, queries stay)."""
    changed = False
    citations = [s.source_id for s in ctx.sentences[:3] if s.source_id]
    for i, leaf in enumerate(tree.leaves()):
        if leaf.free and leaf.kind == "answer":
            changed |= _set(tree, leaf, language.prose(ctx, citations))
        elif _prose(leaf):
            changed |= _set(tree, leaf, language.sentence(ctx, i))
        elif leaf.free and leaf.kind == "title":
            changed |= _set(tree, leaf, language.title(ctx, i))
    return changed


# -- control characters -----------------------------------------------------------------------------

#: Stands for the raw newline until the answer is serialised (json.dumps would escape a real one).
SENTINEL = "\u2063"


def mark_control_char(tree: Tree, rng: random.Random) -> bool:
    """Put ``SENTINEL`` at a space in the middle of one prose or title string (``serialise`` turns it into a
    raw newline inside the JSON string, as the 0.5B model wrote them)."""
    candidates = [
        leaf
        for leaf in tree.leaves()
        if leaf.free and leaf.kind in (*PROSE_KINDS, "title") and " " in leaf.text.strip()
    ]
    if not candidates:
        return False
    leaf = rng.choice(candidates)
    text = leaf.text
    middle = len(text) // 2
    spaces = [i for i, c in enumerate(text) if c == " " and 0 < i < len(text) - 1]
    at = min(spaces, key=lambda i: abs(i - middle))
    tree.set(leaf.path, text[:at] + SENTINEL + text[at + 1 :])
    return True
