"""A valid, meaningful, deterministic instance of a JSON schema, derived from a prompt.

Supports what Pydantic and hand-written schemas use: ``type`` (also lists), ``properties``,
``required``, ``additionalProperties``, ``items``/``prefixItems``, ``minItems``/``maxItems``,
``uniqueItems``, ``enum``/``const``, ``$ref``/``$defs``/``definitions``, ``allOf``/``anyOf``/``oneOf``
(optional fields), ``minimum``/``maximum`` (also exclusive) and ``multipleOf``,
``minLength``/``maxLength``, ``pattern`` and common ``format``s.

Strings follow the field's name: quote-like fields (quote, evidence, excerpt, snippet, ...) get a
sentence copied verbatim from the prompt's context; query/question/title/summary/answer/reason
fields get text built from the prompt's salient words and best sentences; language fields get the
prompt's language; id-like fields get identifiers that occur in the prompt.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from typing import Any

from rabbithole.devtools.fake_ollama.fields import (
    LANGUAGE_HINTS,
    QUOTE_HINTS,
    field_kind,
    matches_any,
    resolve,
)
from rabbithole.devtools.fake_ollama.string_values import fit_length, formatted, sample_regex, search
from rabbithole.devtools.fake_ollama.text import (
    PromptContext,
    answer_text,
    phrase,
    query_text,
    question_text,
    reason_text,
    stable_hash,
    summary_text,
    title_case,
)

#: Below this nesting depth only what the schema requires is generated (recursive schemas end).
MINIMAL_DEPTH = 6
#: Hard stop for schemas that require infinite nesting.
MAX_DEPTH = 40
DEFAULT_ITEMS = 2

_NEGATIVE = (
    "more",
    "missing",
    "insufficient",
    "continue",
    "need",
    "error",
    "fail",
    "contradict",
    "unsupported",
    "irrelevant",
    "hallucinat",
    "refus",
    "unanswerable",
    "truncat",
)
_UNIT = ("confidence", "score", "relevance", "probability", "similarity", "weight", "certainty")
_LANG_VALUES = {
    "de": ("de", "ger", "german", "deutsch", "de-de", "de_de"),
    "en": ("en", "eng", "english", "englisch", "en-us", "en-gb", "en_us"),
}


class SchemaInstanceGenerator:
    """Walks one schema; the same schema and prompt always give the same instance."""

    def __init__(
        self,
        root: Mapping[str, Any],
        ctx: PromptContext,
        seed: int | None = None,
        items: int = DEFAULT_ITEMS,
    ) -> None:
        self.root = root
        self.ctx = ctx
        self.seed = ctx.seed if seed is None else seed
        self.items = items
        self._quote_cursor = 0
        self._source: str | None = None

    def generate(self) -> Any:
        return self._value(self.root, (), 0)

    # -- schema plumbing -------------------------------------------------------------------

    def _rng(self, path: tuple[str | int, ...], salt: str = "") -> random.Random:
        return random.Random(stable_hash(self.seed, salt, *path))

    def _resolve(self, schema: Mapping[str, Any]) -> Mapping[str, Any]:
        return resolve(self.root, schema)

    @staticmethod
    def _name(path: tuple[str | int, ...]) -> tuple[str, str]:
        """(field name, parent field name) of a path, ignoring array indices."""
        names = [p.lower() for p in path if isinstance(p, str)]
        return (names[-1] if names else "", names[-2] if len(names) > 1 else "")

    @staticmethod
    def _index(path: tuple[str | int, ...]) -> int:
        ints = [p for p in path if isinstance(p, int)]
        return ints[-1] if ints else 0

    # -- values ----------------------------------------------------------------------------

    def _value(self, schema: Any, path: tuple[str | int, ...], depth: int) -> Any:
        if schema is True or schema is None:
            return self._string({}, path)
        if schema is False or not isinstance(schema, Mapping):
            return None
        schema = self._resolve(schema)
        if "const" in schema:
            return schema["const"]
        if schema.get("enum"):
            return self._enum(list(schema["enum"]), path)
        for key in ("anyOf", "oneOf"):
            if key in schema:
                return self._choice(schema, key, path, depth)
        kind = self._type(schema)
        if kind == "null":
            return None
        if depth > MAX_DEPTH:
            return self._shallow(kind, schema)
        if kind == "object":
            return self._object(schema, path, depth)
        if kind == "array":
            return self._array(schema, path, depth)
        if kind == "integer":
            return self._number(schema, path, integer=True)
        if kind == "number":
            return self._number(schema, path, integer=False)
        if kind == "boolean":
            return self._boolean(path)
        return self._string(schema, path)

    def _type(self, schema: Mapping[str, Any]) -> str:
        kind = schema.get("type")
        if isinstance(kind, list):
            non_null = [k for k in kind if k != "null"]
            return str(non_null[0]) if non_null else "null"
        if isinstance(kind, str):
            return kind
        if "properties" in schema or "additionalProperties" in schema or "required" in schema:
            return "object"
        if "items" in schema or "prefixItems" in schema:
            return "array"
        if any(k in schema for k in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")):
            return "number"
        return "string"

    def _shallow(self, kind: str, schema: Mapping[str, Any]) -> Any:
        """Smallest valid value when the schema recurses too deep."""
        if kind == "array":
            return []
        if kind == "object":
            return {}
        if kind in ("integer", "number"):
            return self._number(schema, ("deep",), integer=kind == "integer")
        if kind == "boolean":
            return False
        return "x" * int(schema.get("minLength", 1))

    def _choice(self, schema: Mapping[str, Any], key: str, path: tuple[str | int, ...], depth: int) -> Any:
        options = [self._resolve(o) if isinstance(o, Mapping) else o for o in schema[key]]
        non_null = [o for o in options if not (isinstance(o, Mapping) and o.get("type") == "null")]
        has_null = len(non_null) < len(options)
        if not non_null or (has_null and depth >= MINIMAL_DEPTH):
            return None
        chosen = dict(non_null[0]) if isinstance(non_null[0], Mapping) else non_null[0]
        if isinstance(chosen, dict):  # keywords next to anyOf (e.g. a description) still apply
            for k, v in schema.items():
                if k not in (key, "default") and k not in chosen:
                    chosen[k] = v
        return self._value(chosen, path, depth + 1)

    def _enum(self, values: list[Any], path: tuple[str | int, ...]) -> Any:
        name, _ = self._name(path)
        if matches_any(name, LANGUAGE_HINTS):
            wanted = _LANG_VALUES[self.ctx.language]
            for value in values:
                if isinstance(value, str) and value.lower() in wanted:
                    return value
        question = self.ctx.question.lower()
        mentioned = [v for v in values if isinstance(v, str) and len(v) > 2 and v.lower() in question]
        if len(mentioned) == 1:
            return mentioned[0]
        return values[self._rng(path, "enum").randrange(len(values))]

    def _object(self, schema: Mapping[str, Any], path: tuple[str | int, ...], depth: int) -> dict[str, Any]:
        props: Mapping[str, Any] = schema.get("properties", {}) or {}
        required = [r for r in schema.get("required", []) if isinstance(r, str)]
        optional = [p for p in props if p not in required] if depth < MINIMAL_DEPTH else []
        names = required + optional
        limit = schema.get("maxProperties")
        if isinstance(limit, int):
            names = names[: max(limit, len(required))]
        out: dict[str, Any] = {}
        # an object quoting a sentence cites the source that sentence came from
        outer_source = self._source
        if any(matches_any(n.lower(), QUOTE_HINTS) for n in names) and self.ctx.sentences:
            upcoming = self.ctx.sentences[self._quote_cursor % len(self.ctx.sentences)]
            self._source = upcoming.source_id
        for name in names:
            out[name] = self._value(props.get(name, True), (*path, name), depth + 1)
        self._source = outer_source
        extra = schema.get("additionalProperties")
        wanted = int(schema.get("minProperties", 0))
        if isinstance(extra, Mapping) and (not props or len(out) < wanted):
            count = max(wanted - len(out), 0 if props else min(2, limit if isinstance(limit, int) else 2))
            keys = [k for k in self.ctx.keywords if k not in out] or [f"key{i}" for i in range(count)]
            for i in range(count):
                key = keys[i % len(keys)] if i < len(keys) else f"{keys[0]}_{i}"
                out[key] = self._value(extra, (*path, key), depth + 1)
        return out

    def _array(self, schema: Mapping[str, Any], path: tuple[str | int, ...], depth: int) -> list[Any]:
        prefix = schema.get("prefixItems") or []
        items = schema.get("items", True)
        lo = int(schema.get("minItems", 0))
        hi = schema.get("maxItems")
        count = lo if depth >= MINIMAL_DEPTH else max(lo, self.items, len(prefix))
        if isinstance(hi, int):
            count = min(count, hi)
        if items is False:
            count = min(count, len(prefix))
        out: list[Any] = []
        attempts = 0
        while len(out) < count and attempts < count * 4 + 4:
            i = len(out)
            sub = prefix[i] if i < len(prefix) else items
            value = self._value(sub, (*path, attempts), depth + 1)
            attempts += 1
            if schema.get("uniqueItems") and value in out:
                continue
            out.append(value)
        return out

    def _boolean(self, path: tuple[str | int, ...]) -> bool:
        name, parent = self._name(path)
        return not matches_any(name or parent, _NEGATIVE)

    def _number(
        self, schema: Mapping[str, Any], path: tuple[str | int, ...], *, integer: bool
    ) -> int | float:
        lo = schema.get("minimum")
        hi = schema.get("maximum")
        xlo = schema.get("exclusiveMinimum")
        xhi = schema.get("exclusiveMaximum")
        if xlo is True:  # draft 4
            xlo, lo = lo, None
        if xhi is True:
            xhi, hi = hi, None
        step = 1.0 if integer else 0.01
        low = max(
            [float(v) for v in (lo,) if isinstance(v, int | float) and not isinstance(v, bool)]
            + [float(v) + step for v in (xlo,) if isinstance(v, int | float) and not isinstance(v, bool)],
            default=-math.inf,
        )
        high = min(
            [float(v) for v in (hi,) if isinstance(v, int | float) and not isinstance(v, bool)]
            + [float(v) - step for v in (xhi,) if isinstance(v, int | float) and not isinstance(v, bool)],
            default=math.inf,
        )
        if integer:
            low = math.ceil(low) if math.isfinite(low) else low
            high = math.floor(high) if math.isfinite(high) else high
        name, _ = self._name(path)
        index = self._index(path)
        if matches_any(name, _UNIT) and not integer:
            target = 0.8
        elif "year" in name:
            target = 2024.0
        elif "page" in name or "rank" in name or "index" in name or "position" in name:
            target = 1.0 + index
        else:
            target = float(self._rng(path, "num").randint(1, 5))
        value = min(max(target, low), high)
        if not math.isfinite(value):
            value = 0.0
        multiple = schema.get("multipleOf")
        if isinstance(multiple, int | float) and multiple > 0:
            candidate = math.ceil(value / multiple) * multiple
            value = candidate if candidate <= high else math.floor(value / multiple) * multiple
        if integer:
            return int(value)
        return round(value, 6)

    # -- strings ---------------------------------------------------------------------------

    def _string(self, schema: Mapping[str, Any], path: tuple[str | int, ...]) -> str:
        name, parent = self._name(path)
        index = self._index(path)
        fmt = schema.get("format")
        text = formatted(str(fmt), self._rng(path, "fmt"), self.ctx) if fmt else None
        if text is None:
            text = self._by_name(name, parent, index)
        pattern = schema.get("pattern")
        if isinstance(pattern, str) and not search(pattern, text):
            text = sample_regex(pattern, self._rng(path, "re")) or text
        return fit_length(text, schema, self.ctx)

    def _by_name(self, name: str, parent: str, index: int) -> str:
        ctx = self.ctx
        kind = field_kind(name, parent, bool(ctx.ids))
        if kind in ("id", "source"):
            return self._ident(index)
        if kind == "quote":
            return self._quote()
        if kind == "language":
            return ctx.language
        if kind == "question":
            return question_text(ctx, index)
        if kind == "query":
            return query_text(ctx, index)
        if kind == "answer":
            return answer_text(ctx)
        if kind == "reason":
            return reason_text(ctx, index)
        if kind == "summary":
            return summary_text(ctx, index)
        if kind == "title":
            return title_case(phrase(ctx, 4, index))
        return phrase(ctx, 2, index)

    def _quote(self) -> str:
        sentences = self.ctx.sentences
        self._quote_cursor += 1
        if sentences:
            return sentences[(self._quote_cursor - 1) % len(sentences)].text
        words = self.ctx.question.split()
        return " ".join(words[:12]) if words else "…"

    def _ident(self, index: int) -> str:
        if self._source is not None:
            return self._source
        if self.ctx.ids:
            return self.ctx.ids[index % len(self.ctx.ids)]
        return "-".join(k.lower() for k in self.ctx.keywords[:2]) or f"id-{index + 1}"


def generate_instance(
    schema: Mapping[str, Any], ctx: PromptContext, seed: int | None = None, items: int = DEFAULT_ITEMS
) -> Any:
    """A valid instance of ``schema`` built from the prompt in ``ctx`` (deterministic); arrays get ``items``
    items where the schema allows (the normal answer: 2)."""
    return SchemaInstanceGenerator(schema, ctx, seed, items).generate()
