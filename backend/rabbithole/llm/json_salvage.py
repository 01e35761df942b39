"""Salvage of a structured answer that was cut: the complete items of a JSON prefix, validated.

A small local model cuts its answer at the output cap (Ollama's ``done_reason: "length"``): the text is the
start of a JSON object, unterminated. ``scan_prefix`` reads such a text once and notes every point where a
value has just been completed inside a container (a closed string, a number or literal followed by its
delimiter, a closed object or list) together with what closes the containers open there. ``salvage`` tries
these points from the last one backwards (at most ``MAX_TRIES``): the prefix up to the point, closed, is
parsed and validated against the schema; the first that validates is the answer. The incomplete trailing
element (an unfinished string, an object missing required fields, a half list item) is thus dropped, and a
value is only ever made of complete values the model wrote: no half string, no number cut short. A schema's
``min_length`` may make every point fail: then there is no salvage.

Pure functions, no I/O.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from pydantic import BaseModel, ValidationError

T = TypeVar("T", bound=BaseModel)

#: How many cut points, from the last one backwards, are tried against the schema.
MAX_TRIES = 64

_THINK = re.compile(r"<think>.*?</think>", re.DOTALL)
_WHITESPACE = " \t\r\n"
#: Characters of a JSON number or literal (true, false, null).
_SCALAR_CHARS = frozenset("0123456789+-.eEtruefalsn")
_SCALAR_START = frozenset("-0123456789tfn")
#: What a step of the scan answers for a syntax error (None: the text ended inside a value).
_SYNTAX_ERROR = -1


@dataclass(frozen=True, slots=True)
class CutPoint:
    """A point of the text right after a complete value inside a container."""

    end: int
    #: what closes the containers open at ``end`` (innermost first)
    closers: str
    #: ids of the lists open at ``end`` (their items begun later are dropped by a cut here)
    open_lists: frozenset[int]


@dataclass(slots=True)
class JsonPrefix:
    """What ``scan_prefix`` found in a text that starts with a JSON object."""

    text: str
    start: int
    cut_points: list[CutPoint] = field(default_factory=list)
    #: (position, list id) of every list item begun
    item_starts: list[tuple[int, int]] = field(default_factory=list)
    #: the object was closed (the text holds a whole JSON value; nothing was cut)
    complete: bool = False
    #: the text ended inside the object, without a syntax error before: an answer that was cut
    unterminated: bool = False


@dataclass(frozen=True, slots=True)
class Salvage(Generic[T]):
    """A validated value made of the complete items of a cut answer."""

    value: T
    #: list items begun in the answer that the value does not hold (counted in the lists it keeps)
    dropped_items: int
    #: characters of the answer's JSON that the value rests on
    kept_chars: int


@dataclass(slots=True)
class _Frame:
    kind: str  # "{" or "["
    ident: int
    expect: str  # "key_or_end", "key", "colon", "value", "value_or_end", "comma_or_end"


def answer_body(text: str) -> tuple[str, int] | None:
    """The text without closed ``<think>`` blocks, and where its JSON object starts; None when there is none
    (or the text ends inside a ``<think>`` block: the cut came while the model was thinking)."""
    body = _THINK.sub("", text)
    if "<think>" in body:
        return None
    start = body.find("{")
    return (body, start) if start >= 0 else None


class _Scanner:
    """One pass over a JSON prefix (lenient about raw control characters inside strings)."""

    def __init__(self, text: str, start: int) -> None:
        self.text = text
        self.out = JsonPrefix(text, start)
        self.stack: list[_Frame] = []
        self.next_id = 0

    def run(self) -> JsonPrefix:
        text, i, n = self.text, self.out.start, len(self.text)
        while i < n:
            c = text[i]
            if c in _WHITESPACE:
                i += 1
                continue
            top = self.stack[-1] if self.stack else None
            expect = top.expect if top is not None else "value"
            if expect in ("value", "value_or_end") and (c in '{["' or c in _SCALAR_START):
                step = self._value(i)
            elif c == '"' and expect in ("key", "key_or_end"):
                step = self._string(i, key=True)
            elif c == ":" and expect == "colon" and top is not None:
                top.expect = "value"
                step = i + 1
            elif c == "," and expect == "comma_or_end" and top is not None:
                top.expect = "key" if top.kind == "{" else "value"
                step = i + 1
            elif c in "}]" and top is not None and self._may_close(top, c):
                self.stack.pop()
                step = self._completed(i + 1)
            else:
                return self.out  # a syntax error: no more cut points, and not a cut answer
            if step == _SYNTAX_ERROR:
                return self.out
            if step is None:
                self.out.unterminated = not self.out.complete
                return self.out
            i = step
            if self.out.complete:
                return self.out
        self.out.unterminated = bool(self.stack)
        return self.out

    @staticmethod
    def _may_close(top: _Frame, c: str) -> bool:
        if top.kind == "{":
            return c == "}" and top.expect in ("key_or_end", "comma_or_end")
        return c == "]" and top.expect in ("value_or_end", "comma_or_end")

    def _value(self, i: int) -> int | None:
        """A value starting at ``i``: where the scan goes on, or None at the end of the text."""
        top = self.stack[-1] if self.stack else None
        if top is not None and top.kind == "[":
            self.out.item_starts.append((i, top.ident))
        c = self.text[i]
        if c in "{[":
            self.stack.append(_Frame(c, self.next_id, "key_or_end" if c == "{" else "value_or_end"))
            self.next_id += 1
            return i + 1
        if c == '"':
            return self._string(i, key=False)
        return self._scalar(i)

    def _string(self, i: int, *, key: bool) -> int | None:
        text, j, n = self.text, i + 1, len(self.text)
        while j < n:
            c = text[j]
            if c == "\\":
                j += 2
                continue
            if c == '"':
                if key:
                    self.stack[-1].expect = "colon"
                    return j + 1
                return self._completed(j + 1)
            j += 1
        return None

    def _scalar(self, i: int) -> int | None:
        text, j, n = self.text, i, len(self.text)
        while j < n and text[j] in _SCALAR_CHARS:
            j += 1
        if j == n:
            return None  # a number or literal may go on: not complete
        try:
            json.loads(text[i:j])
        except json.JSONDecodeError:
            return _SYNTAX_ERROR
        return self._completed(j)

    def _completed(self, end: int) -> int:
        """A value ended at ``end``: a cut point inside its container, or the whole object."""
        if not self.stack:
            self.out.complete = True
            return end
        top = self.stack[-1]
        top.expect = "comma_or_end"
        closers = "".join("}" if f.kind == "{" else "]" for f in reversed(self.stack))
        lists = frozenset(f.ident for f in self.stack if f.kind == "[")
        self.out.cut_points.append(CutPoint(end, closers, lists))
        return end


def scan_prefix(text: str, start: int = 0) -> JsonPrefix:
    """Scan the JSON value starting at ``text[start]`` (an object) for cut points."""
    return _Scanner(text, start).run()


def salvage(
    text: str, schema: type[T], *, cut: bool = False, max_tries: int = MAX_TRIES
) -> Salvage[T] | None:
    """The largest validating value made of the complete items of a cut answer, or None.

    The answer counts as cut when its JSON object ends unterminated (the text ran out inside it) or when
    ``cut`` says so (the reply's done_reason was "length"); a whole JSON object is never salvaged.
    """
    found = answer_body(text)
    if found is None:
        return None
    body, start = found
    prefix = scan_prefix(body, start)
    if prefix.complete or not (prefix.unterminated or cut):
        return None
    for point in reversed(prefix.cut_points[-max_tries:]):
        try:
            data = json.loads(body[start : point.end] + point.closers, strict=False)
            value = schema.model_validate(data)
        except (json.JSONDecodeError, ValidationError):
            continue
        dropped = sum(
            1 for pos, ident in prefix.item_starts if pos >= point.end and ident in point.open_lists
        )
        return Salvage(value, dropped, point.end - start)
    return None


def ends_unterminated(text: str) -> bool:
    """Whether the text's JSON object runs to the end of the text without being closed (a cut answer)."""
    found = answer_body(text)
    return found is not None and scan_prefix(*found).unterminated
