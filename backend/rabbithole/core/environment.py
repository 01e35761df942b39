"""Settings values from environment variables and a ``.env`` file, for a pydantic model of settings groups.

``RABBITHOLE_LLM__MODEL=qwen3:8b`` sets ``llm.model``: the prefix, then field names joined with ``__``, in
any letter case. A list, set, tuple, dict or settings group given as one variable is JSON
(``RABBITHOLE_SERVER__CORS_ORIGINS='["http://localhost:5173"]'``, ``RABBITHOLE_LLM='{"model": "x"}'``);
everything else is the variable's text, which the model validates and converts. A variable that names no
field is left out here (``config.unknown_variables`` warns about it). Values that are not JSON where JSON
is needed raise :class:`~rabbithole.core.errors.ConfigurationError` naming the variable.

This replaces pydantic-settings, whose import (asyncio, its cloud sources) took 0.12 s of every CLI
start-up; the precedence is the same: defaults < ``.env`` < environment < explicit values."""

from __future__ import annotations

import json
import types
import typing
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Union

from pydantic import BaseModel
from pydantic.fields import FieldInfo

from rabbithole.core.errors import ConfigurationError

NESTED_DELIMITER = "__"
_JSON_ORIGINS = (list, set, frozenset, tuple, dict)


def dotenv_variables(env_file: Path) -> dict[str, str]:
    """The variables a ``.env`` file sets (none when there is no such file); a name without a value is
    left out."""
    if not env_file.is_file():
        return {}
    from dotenv import dotenv_values

    return {name: value for name, value in dotenv_values(env_file).items() if value is not None}


def variable_fields(model: type[BaseModel], prefix: str) -> dict[str, tuple[tuple[str, ...], FieldInfo]]:
    """Every variable that sets something in ``model`` (a group as a whole, and each field), upper-case,
    with the field's path and its ``FieldInfo``."""
    fields: dict[str, tuple[tuple[str, ...], FieldInfo]] = {}
    for name, info in model.model_fields.items():
        variable = f"{prefix.upper()}{name.upper()}"
        fields[variable] = ((name,), info)
        group = _model_of(info.annotation)
        if group is not None:
            for inner, (path, inner_info) in variable_fields(group, variable + NESTED_DELIMITER).items():
                fields[inner] = ((name, *path), inner_info)
    return fields


def values_from_variables(
    model: type[BaseModel], variables: Mapping[str, str], prefix: str
) -> dict[str, Any]:
    """The nested values for ``model`` that ``variables`` set, ready for ``model.model_validate``."""
    fields = variable_fields(model, prefix)
    values: dict[str, Any] = {}
    # A group set as a whole (RABBITHOLE_LLM) comes first, so its fields set one by one win over it.
    for name in sorted(variables, key=lambda n: n.count(NESTED_DELIMITER)):
        target = fields.get(name.upper())
        if target is None:
            continue
        path, info = target
        value: Any = variables[name]
        if _needs_json(info.annotation):
            value = _decode_json(name, value)
        _set_path(values, list(path), value)
    return values


def deep_merge(base: dict[str, Any], update: Mapping[str, Any]) -> dict[str, Any]:
    """``base`` with ``update`` laid over it; nested dicts are merged, everything else replaced."""
    merged = dict(base)
    for key, value in update.items():
        if isinstance(value, Mapping) and isinstance(merged.get(key), dict):
            merged[key] = deep_merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def _model_of(annotation: Any) -> type[BaseModel] | None:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    return None


def _needs_json(annotation: Any) -> bool:
    """Whether a field takes JSON from a variable: a collection or a settings group, also when optional."""
    if _model_of(annotation) is not None:
        return True
    origin = typing.get_origin(annotation)
    if origin in (Union, types.UnionType):
        arguments = [a for a in typing.get_args(annotation) if a is not type(None)]
        return any(_needs_json(a) for a in arguments)
    return origin in _JSON_ORIGINS or annotation in _JSON_ORIGINS


def _decode_json(name: str, raw: str) -> Any:
    try:
        return json.loads(raw)
    except json.JSONDecodeError as exc:
        raise ConfigurationError(
            f'invalid configuration:\n  {name}: not valid JSON ({exc.msg}); a list is written ["a", "b"], '
            'a group {"field": "value"}'
        ) from None


def _set_path(values: dict[str, Any], path: list[str], value: Any) -> None:
    node = values
    for part in path[:-1]:
        child = node.get(part)
        if not isinstance(child, dict):
            child = {}
            node[part] = child
        node = child
    leaf = path[-1]
    if isinstance(value, dict) and isinstance(node.get(leaf), dict):
        node[leaf] = deep_merge(node[leaf], value)
    else:
        node[leaf] = value
