"""Walking a JSON answer next to its schema: string leaves, what each holds, the schema at a path."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from rabbithole.devtools.fake_ollama.fields import FieldKind, field_kind, resolve

Path = tuple[str | int, ...]
#: Kinds of strings a weak model writes as prose (not ids, quotes, queries or languages).
PROSE_KINDS: frozenset[FieldKind] = frozenset({"summary", "reason", "answer", "question"})
#: Constraints under which a string is not free text (changing it would break the schema).
_FIXED = ("enum", "const", "pattern", "format")


@dataclass(frozen=True)
class Leaf:
    """A string in an answer: where it is, what it holds, and whether it may be rewritten freely."""

    path: Path
    text: str
    kind: FieldKind
    schema: Mapping[str, Any]

    @property
    def free(self) -> bool:
        return not any(k in self.schema for k in _FIXED)

    @property
    def name(self) -> str:
        names = [p for p in self.path if isinstance(p, str)]
        return names[-1] if names else ""


class Tree:
    """A parsed answer (dicts, lists, scalars) and the JSON schema it was generated for ({}: any)."""

    def __init__(self, value: Any, schema: Mapping[str, Any], has_ids: bool = False) -> None:
        self.value = value
        self.root = schema
        self.has_ids = has_ids

    def schema_at(self, path: Path) -> Mapping[str, Any]:
        """The (resolved) schema of the value at ``path``: properties by name, items by index, the first
        non-null choice of an ``anyOf``/``oneOf`` (the one the fake generates)."""
        node = self._resolved(self.root)
        for step in path:
            if isinstance(step, str):
                props = node.get("properties") or {}
                extra = node.get("additionalProperties")
                sub = props.get(step, extra if isinstance(extra, Mapping) else {})
            else:
                prefix = node.get("prefixItems") or []
                sub = prefix[step] if step < len(prefix) else node.get("items", {})
            node = self._resolved(sub if isinstance(sub, Mapping) else {})
        return node

    def _resolved(self, schema: Mapping[str, Any]) -> Mapping[str, Any]:
        schema = resolve(self.root, schema)
        for key in ("anyOf", "oneOf"):
            options = [o for o in schema.get(key, []) if isinstance(o, Mapping) and o.get("type") != "null"]
            if options:
                rest = {k: v for k, v in schema.items() if k != key}
                return {**rest, **resolve(self.root, options[0])}
        return schema

    def leaves(self) -> Iterator[Leaf]:
        """Every string in the answer, in document order."""
        yield from self._leaves(self.value, ())

    def _leaves(self, value: Any, path: Path) -> Iterator[Leaf]:
        if isinstance(value, str):
            names = [p.lower() for p in path if isinstance(p, str)]
            name, parent = (names[-1] if names else ""), (names[-2] if len(names) > 1 else "")
            kind = field_kind(name, parent, self.has_ids)
            yield Leaf(path, value, kind, self.schema_at(path))
        elif isinstance(value, dict):
            for key, item in value.items():
                yield from self._leaves(item, (*path, key))
        elif isinstance(value, list):
            for i, item in enumerate(value):
                yield from self._leaves(item, (*path, i))

    def get(self, path: Path) -> Any:
        node = self.value
        for step in path:
            node = node[step]
        return node

    def set(self, path: Path, new: Any) -> None:
        if not path:
            self.value = new
            return
        self.get(path[:-1])[path[-1]] = new

    def arrays(self) -> Iterator[tuple[Path, list[Any]]]:
        """Every list in the answer (outer before inner)."""
        stack: list[tuple[Path, Any]] = [((), self.value)]
        while stack:
            path, value = stack.pop(0)
            if isinstance(value, list):
                yield path, value
                stack += [((*path, i), item) for i, item in enumerate(value)]
            elif isinstance(value, dict):
                stack += [((*path, k), item) for k, item in value.items()]


def pattern(path: Path) -> tuple[str, ...]:
    """A path with its list indices as ``*``: the places of the same field in every item."""
    return tuple("*" if isinstance(p, int) else p for p in path)


def fits(text: str, schema: Mapping[str, Any]) -> bool:
    """Whether ``text`` keeps the schema's length bounds (a weak model's text still obeys constrained
    decoding)."""
    hi = schema.get("maxLength")
    return len(text) >= int(schema.get("minLength", 0)) and not (isinstance(hi, int) and len(text) > hi)
