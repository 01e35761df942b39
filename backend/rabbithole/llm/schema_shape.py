"""The shape of a JSON schema in a few lines, for the prompt: what the model must write, not how the
schema is spelled.

Structured output sends the schema twice: as the provider's format constraint (Ollama's ``format``, which
the server enforces while decoding) and as text in the system prompt. The full schema text (titles,
``$defs`` and ``$ref``, every value of a per-call enum) costs hundreds of prompt tokens per call and carries
the class name a weak model writes back as a heading. ``schema_shape`` renders the same object as one
line of its shape (keys, types, counts, bounds, optional keys) and one line of the fields' descriptions:

    {"findings": [{"fact": string, "sentences": [integer] (1-8 items), "answers": boolean}] (at most 12)}
    fact: The finding in one sentence, in your own words. sentences: Numbers of the sentences that state it.

Enums of up to ``MAX_ENUM_SHOWN`` values are listed; longer ones (ids or numbers shown in the prompt) are
left to the format constraint and the prompt's own wording.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

__all__ = ["MAX_ENUM_SHOWN", "schema_shape"]

#: Enums with more values than this are shown as their type only.
MAX_ENUM_SHOWN = 8
#: Nesting rendered at most (a recursive schema ends in its type name).
MAX_DEPTH = 6

_SCALARS = {
    "string": "string",
    "integer": "integer",
    "number": "number",
    "boolean": "boolean",
    "null": "null",
}


def schema_shape(schema: Mapping[str, Any]) -> str:
    """The shape line of ``schema`` (a JSON schema object), then its fields' descriptions (if any)."""
    shape = _Shape(schema)
    line = shape.render(schema, 0)
    if not shape.notes:
        return line
    return f"{line}\n{' '.join(shape.notes)}"


class _Shape:
    def __init__(self, root: Mapping[str, Any]) -> None:
        self.root = root
        self.notes: list[str] = []
        self._noted: set[tuple[str, str]] = set()

    def resolve(self, node: Mapping[str, Any]) -> Mapping[str, Any]:
        ref = node.get("$ref")
        if not isinstance(ref, str) or not ref.startswith("#/"):
            return node
        target: Any = self.root
        for part in ref[2:].split("/"):
            target = target.get(part, {}) if isinstance(target, Mapping) else {}
        merged = {**target, **{k: v for k, v in node.items() if k != "$ref"}}
        return merged

    def render(self, node: Any, depth: int) -> str:
        if not isinstance(node, Mapping):
            return "any"
        node = self.resolve(node)
        if "const" in node:
            return json.dumps(node["const"], ensure_ascii=False)
        enum = node.get("enum")
        if isinstance(enum, list) and enum:
            if len(enum) <= MAX_ENUM_SHOWN:
                return " | ".join(json.dumps(v, ensure_ascii=False) for v in enum)
            return _type_of(node, enum)
        for key in ("anyOf", "oneOf"):
            options = node.get(key)
            if isinstance(options, list) and options:
                shown = [o for o in options if not (isinstance(o, Mapping) and o.get("type") == "null")]
                rendered = [self.render(o, depth) for o in shown or options]
                return " | ".join(dict.fromkeys(rendered))
        if "allOf" in node and isinstance(node["allOf"], list) and len(node["allOf"]) == 1:
            return self.render(node["allOf"][0], depth)
        kind = node.get("type")
        if isinstance(kind, list):
            kinds = [k for k in kind if k != "null"] or kind
            kind = kinds[0] if kinds else None
        if kind == "object" or "properties" in node:
            return self._object(node, depth)
        if kind == "array" or "items" in node:
            return self._array(node, depth)
        base = str(kind) if kind in _SCALARS else "any"
        bounds = _bounds(node)
        return f"{base} ({bounds})" if bounds else base

    def _object(self, node: Mapping[str, Any], depth: int) -> str:
        if depth >= MAX_DEPTH:
            return "object"
        props = node.get("properties")
        if not isinstance(props, Mapping) or not props:
            extra = node.get("additionalProperties")
            value = self.render(extra, depth + 1) if isinstance(extra, Mapping) else "any"
            return f"{{string: {value}}}"
        required = set(node.get("required") or ())
        parts = []
        for name, sub in props.items():
            self._note(name, sub)
            value = self.render(sub, depth + 1)
            if name not in required:
                value = f"{value} (optional)" if not value.endswith(")") else f"{value[:-1]}, optional)"
            parts.append(f"{json.dumps(name, ensure_ascii=False)}: {value}")
        return "{" + ", ".join(parts) + "}"

    def _array(self, node: Mapping[str, Any], depth: int) -> str:
        items = node.get("items")
        inner = self.render(items, depth + 1) if isinstance(items, Mapping) else "any"
        count = _count(node.get("minItems"), node.get("maxItems"))
        return f"[{inner}] ({count})" if count else f"[{inner}]"

    def _note(self, name: str, node: Any) -> None:
        """The field's own description (a referenced model's docstring describes a class: left out)."""
        description = node.get("description") if isinstance(node, Mapping) else None
        if not isinstance(description, str) or not description.strip():
            return
        text = " ".join(description.split())
        if (name, text) in self._noted:
            return
        self._noted.add((name, text))
        self.notes.append(f"{name}: {text}" if text.endswith((".", "?", "!")) else f"{name}: {text}.")


def _type_of(node: Mapping[str, Any], enum: list[Any]) -> str:
    kind = node.get("type")
    if isinstance(kind, str) and kind in _SCALARS:
        return kind
    if all(isinstance(v, bool) for v in enum):
        return "boolean"
    if all(isinstance(v, int) and not isinstance(v, bool) for v in enum):
        return "integer"
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in enum):
        return "number"
    return "string"


def _count(low: Any, high: Any) -> str:
    low = low if isinstance(low, int) and low > 0 else None
    high = high if isinstance(high, int) else None
    if low is not None and high is not None:
        return f"{low} item" if low == high == 1 else f"{low}-{high} items"
    if high is not None:
        return f"at most {high}"
    if low is not None:
        return f"at least {low}"
    return ""


def _bounds(node: Mapping[str, Any]) -> str:
    parts = []
    for key, word in (("minimum", "at least"), ("exclusiveMinimum", "above")):
        value = node.get(key)
        if (
            isinstance(value, (int, float))
            and not isinstance(value, bool)
            and not (key == "minimum" and value == 0 and "maximum" not in node)
        ):
            parts.append(f"{word} {value}")
    for key, word in (("maximum", "at most"), ("exclusiveMaximum", "below")):
        value = node.get(key)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            parts.append(f"{word} {value}")
    if len(parts) == 2 and parts[0].startswith("at least") and parts[1].startswith("at most"):
        return f"{parts[0].removeprefix('at least ')}-{parts[1].removeprefix('at most ')}"
    max_length = node.get("maxLength")
    if isinstance(max_length, int):
        parts.append(f"at most {max_length} characters")
    return ", ".join(parts)
