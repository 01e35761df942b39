"""Structured output: a Pydantic schema in, a validated instance out, or ``LLMOutputError``.

The schema goes to the model as its JSON-schema constrained output (Ollama's ``format``, an
OpenAI-compatible server's ``response_format``) and, as Ollama recommends, as text in the system
prompt: its shape in a few lines (``schema_shape``), not the whole schema (``llm.schema_prompt``). The
answer is read leniently: a ``<think>`` block, code fences, prose around the object and raw control
characters (newlines, tabs) inside its strings are tolerated. An answer that was cut (at the output
cap, or unterminated) keeps its complete items: ``json_salvage`` closes it at the last complete value that
makes it validate, and the result is marked ``truncated``. An answer that is not JSON or does not validate
is sent back to the model together with the error, at most ``llm.structured_retries`` times; a retry asks
for fewer and shorter items when the answer was cut, and runs at a slightly higher temperature
(``retries``), since a retry at temperature 0 repeats the same failure. After that ``LLMOutputError``
names the schema and the last error. Nothing is ever invented: only a validated object is returned, and a
salvaged one is made only of complete values the model wrote. The result and the error carry the prompt
and output tokens of all attempts.
"""

from __future__ import annotations

import json
import logging
import re
import threading
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, NamedTuple, Protocol, TypeVar

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel, ValidationError

from rabbithole.core.config import LLMSettings
from rabbithole.core.config.network import SchemaPrompt
from rabbithole.core.errors import ContextWindowExceededError, LLMError, LLMOutputError
from rabbithole.llm.context import message_text
from rabbithole.llm.json_salvage import ends_unterminated, salvage
from rabbithole.llm.messages import MessagesInput, as_messages
from rabbithole.llm.retries import (
    cut_at_cap,
    feedback_text,
    reply_tokens,
    retry_temperature,
    temperature_kwargs,
)
from rabbithole.llm.schema_shape import schema_shape

log = logging.getLogger(__name__)

T = TypeVar("T", bound=BaseModel)

#: How much of an invalid answer is echoed back to the model in a retry.
MAX_ECHO_CHARS = 2000
_THINK = re.compile(r"<think>.*?</think>", re.DOTALL)
_FENCE = re.compile(r"^```(?:json)?\s*(.*?)\s*```$", re.DOTALL)


@dataclass
class StructuredResult(Generic[T]):
    """A validated instance and how it was obtained."""

    value: T
    model: str
    attempts: int
    raw: str
    #: the value was salvaged from an answer that was cut: its complete items only
    truncated: bool = False
    #: list items the cut answer had begun that the salvaged value does not hold
    dropped_items: int = 0
    #: tokens of all attempts together (as the replies report them; 0 where they do not)
    prompt_tokens: int = 0
    output_tokens: int = 0
    #: attempts whose stream failed and that were asked again whole: requests beyond ``attempts``
    failed_streams: int = 0


def extract_json(text: str) -> Any:
    """Parse a model's JSON answer: tolerates a <think> block, code fences, surrounding prose and raw control
    characters inside strings."""
    text = _THINK.sub("", text).strip()
    fenced = _FENCE.match(text)
    if fenced:
        text = fenced.group(1)
    try:
        return json.loads(text, strict=False)
    except json.JSONDecodeError:
        start = text.find("{")
        end = text.rfind("}")
        if 0 <= start < end:
            try:
                return json.loads(text[start : end + 1], strict=False)
            except json.JSONDecodeError:
                pass
        raise


def describe_error(exc: Exception) -> str:
    """A short, model-readable description of a parse or validation error."""
    if isinstance(exc, json.JSONDecodeError):
        what = exc.msg.removesuffix(
            " at"
        )  # "Unterminated string starting at", "Invalid control character at"
        return f"the answer is not valid JSON ({what} at line {exc.lineno}, column {exc.colno})"
    if isinstance(exc, ValidationError):
        parts = []
        for err in exc.errors()[:6]:
            where = ".".join(str(p) for p in err["loc"]) or "(root)"
            parts.append(f"{where}: {err['msg']}")
        more = f" (+{exc.error_count() - 6} more)" if exc.error_count() > 6 else ""
        return "the JSON does not match the schema: " + "; ".join(parts) + more
    return f"{type(exc).__name__}: {exc}"


_SCHEMAS: weakref.WeakKeyDictionary[type[BaseModel], dict[str, Any]] = weakref.WeakKeyDictionary()
_SCHEMAS_LOCK = threading.Lock()


def json_schema_of(schema: type[BaseModel]) -> dict[str, Any]:
    """``schema.model_json_schema()``, computed once per schema class (a call asks for it twice: for the
    instruction and for the provider's format). Research steps build a class per call (enums of the ids
    shown), so the cache holds classes weakly. The caller must not mutate the result."""
    with _SCHEMAS_LOCK:
        cached = _SCHEMAS.get(schema)
    if cached is None:
        cached = schema.model_json_schema()
        with _SCHEMAS_LOCK:
            _SCHEMAS[schema] = cached
    return cached


def schema_instruction(schema: type[BaseModel], style: SchemaPrompt = "shape") -> str:
    """The schema as text for the system prompt: its shape in a few lines (``schema_shape``; the provider's
    format constraint enforces the rest), or with ``style="full"`` the whole JSON schema (the
    instruction before issue 24, several times longer)."""
    if style == "full":
        return (
            f"Answer with exactly one JSON object (a {schema.__name__}) that matches this JSON schema, "
            f"with no other text:\n{json.dumps(json_schema_of(schema), ensure_ascii=False)}"
        )
    shape = schema_shape(json_schema_of(schema))
    return f"Answer with exactly one JSON object of this shape, with no other text:\n{shape}"


def with_schema_instruction(
    messages: list[BaseMessage], schema: type[BaseModel], style: SchemaPrompt = "shape"
) -> list[BaseMessage]:
    """Add the schema to the (first) system message, or add a system message."""
    instruction = schema_instruction(schema, style)
    for i, message in enumerate(messages):
        if isinstance(message, SystemMessage):
            merged = f"{message_text(message)}\n\n{instruction}"
            return [*messages[:i], SystemMessage(merged), *messages[i + 1 :]]
    return [SystemMessage(instruction), *messages]


class StructuredClient(Protocol):
    """What structured generation needs of a client (``LLMClient`` is one): dependencies point from the
    client to this module, never back."""

    @property
    def settings(self) -> LLMSettings: ...

    def format_kwargs(self, schema: type[BaseModel]) -> dict[str, Any]: ...

    def invoke(self, messages: MessagesInput, *, keep_last: int = 1, **kwargs: Any) -> AIMessage: ...

    async def ainvoke(self, messages: MessagesInput, *, keep_last: int = 1, **kwargs: Any) -> AIMessage: ...

    async def astream_reply(
        self, messages: MessagesInput, on_text: Callable[[str], None], *, keep_last: int = 1, **kwargs: Any
    ) -> AIMessage: ...


class _Call(NamedTuple):
    """One attempt's request: the messages, how many trailing ones trimming must keep, the call kwargs."""

    messages: list[BaseMessage]
    keep_last: int
    kwargs: dict[str, Any]


class _Attempts(Generic[T]):
    """The retry loop shared by the sync and async helpers."""

    def __init__(
        self, client: StructuredClient, schema: type[T], messages: MessagesInput, retries: int | None
    ) -> None:
        self.schema = schema
        self.settings = client.settings
        self.base = with_schema_instruction(as_messages(messages), schema, client.settings.schema_prompt)
        self.max_attempts = 1 + (client.settings.structured_retries if retries is None else retries)
        self.kwargs = client.format_kwargs(schema)
        self.attempt = 0
        #: attempts whose stream failed and that were asked again whole (each one more request)
        self.failed_streams = 0
        self.last_error = ""
        self.last_raw = ""
        self.last_at_cap = False
        self.last_unterminated = False
        self.prompt_tokens = 0
        self.output_tokens = 0

    def next_call(self) -> _Call | None:
        """The next attempt's request, or None when the attempts are used up."""
        if self.attempt >= self.max_attempts:
            return None
        self.attempt += 1
        if self.attempt == 1:
            return _Call(self.base, 1, self.kwargs)
        echo = self.last_raw if len(self.last_raw) <= MAX_ECHO_CHARS else self.last_raw[:MAX_ECHO_CHARS] + "…"
        feedback = HumanMessage(
            feedback_text(
                self.schema.__name__,
                self.last_error,
                chars=len(self.last_raw),
                at_cap=self.last_at_cap,
                unterminated=self.last_unterminated,
            )
        )
        temperature = retry_temperature(self.settings.temperature, self.attempt - 1)
        kwargs = {**self.kwargs, **temperature_kwargs(self.settings, temperature)}
        return _Call([*self.base, AIMessage(echo), feedback], 3, kwargs)

    def consume(self, reply: AIMessage) -> StructuredResult[T] | None:
        raw = message_text(reply)
        model = str(reply.response_metadata.get("rabbithole_model", ""))
        prompt_tokens, output_tokens = reply_tokens(reply)
        self.prompt_tokens += prompt_tokens
        self.output_tokens += output_tokens
        at_cap = cut_at_cap(reply)
        try:
            value = self.schema.model_validate(extract_json(raw))
        except json.JSONDecodeError as exc:
            kept = salvage(raw, self.schema, cut=at_cap)
            if kept is not None:
                log.info(
                    "structured output %s, attempt %d/%d from '%s': the answer was cut after %d characters; "
                    "kept its complete items (%d dropped)",
                    self.schema.__name__,
                    self.attempt,
                    self.max_attempts,
                    model,
                    len(raw),
                    kept.dropped_items,
                )
                return self._result(kept.value, model, raw, truncated=True, dropped=kept.dropped_items)
            self._invalid(raw, exc, model, at_cap=at_cap, unterminated=ends_unterminated(raw))
            return None
        except ValidationError as exc:
            self._invalid(raw, exc, model, at_cap=at_cap, unterminated=False)
            return None
        return self._result(value, model, raw, truncated=False, dropped=0)

    def _result(
        self, value: T, model: str, raw: str, *, truncated: bool, dropped: int
    ) -> StructuredResult[T]:
        return StructuredResult(
            value,
            model,
            self.attempt,
            raw,
            truncated,
            dropped,
            self.prompt_tokens,
            self.output_tokens,
            self.failed_streams,
        )

    def _invalid(self, raw: str, exc: Exception, model: str, *, at_cap: bool, unterminated: bool) -> None:
        self.last_raw = raw
        self.last_error = describe_error(exc)
        self.last_at_cap = at_cap
        self.last_unterminated = unterminated
        log.info(
            "structured output %s, attempt %d/%d from '%s'%s: %s",
            self.schema.__name__,
            self.attempt,
            self.max_attempts,
            model,
            " (cut at the output cap)" if at_cap else "",
            self.last_error,
        )

    def failure(self) -> LLMOutputError:
        return LLMOutputError(
            f"the model gave no valid {self.schema.__name__} in {self.max_attempts} attempt(s); "
            f"last error: {self.last_error}",
            attempts=self.max_attempts + self.failed_streams,
            prompt_tokens=self.prompt_tokens,
            output_tokens=self.output_tokens,
        )


def generate_structured(
    client: StructuredClient, schema: type[T], messages: MessagesInput, *, retries: int | None = None
) -> StructuredResult[T]:
    """Ask ``client`` for a ``schema`` instance; salvage a cut answer; retry with the error; LLMOutputError at
    the end."""
    attempts = _Attempts(client, schema, messages, retries)
    while (call := attempts.next_call()) is not None:
        reply = client.invoke(call.messages, keep_last=call.keep_last, **call.kwargs)
        if (result := attempts.consume(reply)) is not None:
            return result
    raise attempts.failure()


async def agenerate_structured(
    client: StructuredClient,
    schema: type[T],
    messages: MessagesInput,
    *,
    retries: int | None = None,
    on_text: Callable[[str], None] | None = None,
) -> StructuredResult[T]:
    """Async ``generate_structured``. ``on_text``: called with each attempt's answer so far as the model
    writes it (Ollama only: an OpenAI-compatible server's stream reports no token counts); an attempt whose
    stream fails is asked again without streaming, so streaming never fails a call that the whole answer
    would not have failed."""
    attempts = _Attempts(client, schema, messages, retries)
    stream = on_text is not None and client.settings.provider == "ollama"
    while (call := attempts.next_call()) is not None:
        reply: AIMessage | None = None
        if stream and on_text is not None:
            reply = await _streamed(client, call, on_text)
            attempts.failed_streams += reply is None
        if reply is None:
            reply = await client.ainvoke(call.messages, keep_last=call.keep_last, **call.kwargs)
        if (result := attempts.consume(reply)) is not None:
            return result
    raise attempts.failure()


async def _streamed(
    client: StructuredClient, call: _Call, on_text: Callable[[str], None]
) -> AIMessage | None:
    """The attempt's reply streamed, or None when its stream failed (the caller asks again, whole)."""
    try:
        return await client.astream_reply(call.messages, on_text, keep_last=call.keep_last, **call.kwargs)
    except ContextWindowExceededError:
        raise
    except LLMError as exc:
        log.info("streamed structured call failed (%s); asking again without streaming", exc)
        return None
