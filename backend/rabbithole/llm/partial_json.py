"""The beginning of a JSON answer read as far as it goes, for showing an answer while the model writes it.

``parse_partial`` never raises: it reads the text from its first ``{`` or ``[`` and returns what the
prefix holds, with what is still open marked: an unterminated string is an ``OpenStr``, an unclosed object
an ``OpenDict``, an unclosed array an ``OpenList`` (plain ``str``/``dict``/``list`` subclasses). A key
without its value yet, a number or literal cut at the end, and a half-written escape are left out. What
follows a syntax error is left out too. The result only ever holds what the model wrote; whether it is
valid is for the structured call (``llm.structured``) to decide once the answer is complete.
"""

from __future__ import annotations

import json
import re
from typing import Any


class OpenStr(str):
    """A string whose closing quote has not come yet."""

    __slots__ = ()


class OpenDict(dict[str, Any]):
    """An object whose closing brace has not come yet."""


class OpenList(list[Any]):
    """An array whose closing bracket has not come yet."""


def _is_open(value: Any) -> bool:
    """The value broke off: nothing after it was read."""
    return isinstance(value, OpenStr | OpenDict | OpenList)


class _Incomplete(Exception):
    """The text ends (or breaks off) inside a value that cannot be shown in part."""


_WHITESPACE = " \t\r\n"
_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?")
_LITERALS = {"true": True, "false": False, "null": None}
_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


class _Reader:
    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def skip(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos] in _WHITESPACE:
            self.pos += 1

    def at_end(self) -> bool:
        self.skip()
        return self.pos >= len(self.text)

    def value(self) -> Any:
        self.skip()
        if self.pos >= len(self.text):
            raise _Incomplete
        c = self.text[self.pos]
        if c == "{":
            return self.object()
        if c == "[":
            return self.array()
        if c == '"':
            return self.string()
        return self.scalar()

    def string(self) -> str:
        self.pos += 1  # the opening quote
        out: list[str] = []
        text = self.text
        while self.pos < len(text):
            c = text[self.pos]
            if c == '"':
                self.pos += 1
                return "".join(out)
            if c == "\\":
                escape = text[self.pos + 1 : self.pos + 2]
                if escape == "u":
                    digits = text[self.pos + 2 : self.pos + 6]
                    if len(digits) < 4:
                        break  # cut inside the escape
                    try:
                        out.append(chr(int(digits, 16)))
                    except ValueError as exc:
                        raise _Incomplete from exc
                    self.pos += 6
                    continue
                if not escape:
                    break
                if escape not in _ESCAPES:
                    raise _Incomplete
                out.append(_ESCAPES[escape])
                self.pos += 2
                continue
            out.append(c)  # raw control characters are tolerated, as extract_json does
            self.pos += 1
        self.pos = len(text)
        return OpenStr("".join(out))

    def scalar(self) -> Any:
        rest = self.text[self.pos :]
        for word, value in _LITERALS.items():
            if rest.startswith(word):
                self.pos += len(word)
                return value
        match = _NUMBER.match(rest)
        if match is None or match.end() == len(rest):  # not a value, or a number that may go on
            raise _Incomplete
        self.pos += match.end()
        return json.loads(match.group())

    def object(self) -> dict[str, Any]:
        self.pos += 1
        out = OpenDict()
        while True:
            if self.at_end():
                return out
            c = self.text[self.pos]
            if c == "}":
                self.pos += 1
                return dict(out)
            if c == ",":
                self.pos += 1
                continue
            if c != '"':
                raise _Incomplete
            key = self.string()
            if isinstance(key, OpenStr) or self.at_end():
                return out
            if self.text[self.pos] != ":":
                raise _Incomplete
            self.pos += 1
            try:
                out[key] = self.value()
            except _Incomplete:
                return out
            if _is_open(out[key]):
                return out

    def array(self) -> list[Any]:
        self.pos += 1
        out = OpenList()
        while True:
            if self.at_end():
                return out
            c = self.text[self.pos]
            if c == "]":
                self.pos += 1
                return list(out)
            if c == ",":
                self.pos += 1
                continue
            try:
                out.append(self.value())
            except _Incomplete:
                return out
            if _is_open(out[-1]):
                return out


def parse_partial(text: str) -> Any:
    """What the beginning of a JSON answer holds (see the module docstring); None before its first ``{``
    or ``[``."""
    starts = [i for i in (text.find("{"), text.find("[")) if i >= 0]
    if not starts:
        return None
    reader = _Reader(text)
    reader.pos = min(starts)
    try:
        return reader.value()
    except _Incomplete:
        return None
