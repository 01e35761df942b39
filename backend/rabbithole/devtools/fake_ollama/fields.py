"""What the fake reads from a JSON schema's field names, and schema references resolved: shared by the
schema instance generator and the weak model's transformations of its answers."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

QUOTE_HINTS = (
    "quote",
    "evidence",
    "excerpt",
    "snippet",
    "verbatim",
    "passage",
    "citation_text",
    "span",
    "zitat",
)
_QUERY = ("query", "queries", "search", "keyword", "term")
_QUESTION = ("question", "frage")
_TITLE = ("title", "heading", "headline", "name", "topic", "label", "subject")
_ANSWER = ("answer", "response", "reply", "antwort")
_SUMMARY = ("summary", "description", "content", "text", "claim", "statement", "finding", "conclusion")
_REASON = ("reason", "rationale", "explanation", "justification", "analysis", "thought", "comment", "note")
LANGUAGE_HINTS = ("language", "lang", "locale", "sprache")


def matches_any(name: str, hints: Sequence[str]) -> bool:
    return any(h in name for h in hints)


FieldKind = Literal[
    "id", "quote", "language", "source", "question", "query", "answer", "reason", "summary", "title", "other"
]
_SOURCE = ("source", "sources", "citation", "citations", "reference", "references")


_KINDS: tuple[tuple[FieldKind, tuple[str, ...]], ...] = (
    ("question", _QUESTION),
    ("query", _QUERY),
    ("answer", _ANSWER),
    ("reason", _REASON),
    ("summary", _SUMMARY),
    ("title", _TITLE),
)


def field_kind(name: str, parent: str = "", has_ids: bool = False) -> FieldKind:
    """What a string field holds, by its name (else its parent's: the items of a list): the first rule that
    matches wins, in the order of this function. ``has_ids``: the prompt names ids (then a ``source``
    field holds one)."""
    for candidate in (name.lower(), parent.lower()):
        if not candidate:
            continue
        if candidate in ("id", "ids", "ref") or candidate.endswith(("_id", "_ids", "_ref", "sourceid")):
            return "id"
        if matches_any(candidate, QUOTE_HINTS):
            return "quote"
        if matches_any(candidate, LANGUAGE_HINTS):
            return "language"
        if has_ids and candidate in _SOURCE:
            return "source"
        for kind, hints in _KINDS:
            if matches_any(candidate, hints):
                return kind
    return "other"


def resolve(root: Mapping[str, Any], schema: Mapping[str, Any]) -> Mapping[str, Any]:
    """``schema`` with its ``$ref`` (into ``root``) followed and its ``allOf`` merged."""
    seen = 0
    while "$ref" in schema and seen < 32:
        target = lookup(root, str(schema["$ref"]))
        siblings = {k: v for k, v in schema.items() if k != "$ref"}
        schema = {**target, **siblings}
        seen += 1
    if "allOf" in schema:
        merged: dict[str, Any] = {k: v for k, v in schema.items() if k != "allOf"}
        for part in schema["allOf"]:
            part = resolve(root, part) if isinstance(part, Mapping) else {}
            for key, value in part.items():
                if key == "properties":
                    merged["properties"] = {**merged.get("properties", {}), **value}
                elif key == "required":
                    merged["required"] = sorted({*merged.get("required", []), *value})
                else:
                    merged.setdefault(key, value)
        schema = merged
    return schema


def lookup(root: Mapping[str, Any], ref: str) -> Mapping[str, Any]:
    """The schema a local ``$ref`` (``#/$defs/X``) points at in ``root`` ({} when it points nowhere)."""
    if not ref.startswith("#"):
        return {}
    node: Any = root
    for part in ref.lstrip("#").split("/"):
        if not part:
            continue
        part = part.replace("~1", "/").replace("~0", "~")
        node = node.get(part, {}) if isinstance(node, Mapping) else {}
    return node if isinstance(node, Mapping) else {}
