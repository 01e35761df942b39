"""Structured output: a Pydantic schema in, a validated instance out, or ``LLMOutputError``.

The schema goes to the model as its JSON-schema constrained output (Ollama's ``format``, an
OpenAI-compatible server's ``response_format``) and, as Ollama recommends, as text in the system
prompt. An answer that is not JSON or does not validate is sent back to the model together with the
error, at most ``llm.structured_retries`` times; after that ``LLMOutputError`` names the schema and
the last error. Nothing is ever invented: only a validated object is returned.
"""

from __future__ import annotations

import json
import logging
import re
import threading
import weakref
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel, ValidationError

from rabbithole.core.config import LLMSettings
from rabbithole.core.errors import LLMOutputError
from rabbithole.llm.context import message_text
from rabbithole.llm.messages import MessagesInput, as_messages

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


def extract_json(text: str) -> Any:
    """Parse a model's JSON answer: tolerates a <think> block, code fences and surrounding prose."""
    text = _THINK.sub("", text).strip()
    fenced = _FENCE.match(text)
    if fenced:
        text = fenced.group(1)
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        start = text.find("{")
        end = text.rfind("}")
        if 0 <= start < end:
            try:
                return json.loads(text[start : end + 1])
            except json.JSONDecodeError:
                pass
        raise


def describe_error(exc: Exception) -> str:
    """A short, model-readable description of a parse or validation error."""
    if isinstance(exc, json.JSONDecodeError):
        return f"the answer is not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})"
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


def schema_instruction(schema: type[BaseModel]) -> str:
    return (
        f"Answer with exactly one JSON object (a {schema.__name__}) that matches this JSON schema, "
        f"with no other text:\n{json.dumps(json_schema_of(schema), ensure_ascii=False)}"
    )


def with_schema_instruction(messages: list[BaseMessage], schema: type[BaseModel]) -> list[BaseMessage]:
    """Add the schema to the (first) system message, or add a system message."""
    instruction = schema_instruction(schema)
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


class _Attempts(Generic[T]):
    """The retry loop shared by the sync and async helpers."""

    def __init__(
        self, client: StructuredClient, schema: type[T], messages: MessagesInput, retries: int | None
    ) -> None:
        self.schema = schema
        self.base = with_schema_instruction(as_messages(messages), schema)
        self.max_attempts = 1 + (client.settings.structured_retries if retries is None else retries)
        self.kwargs = client.format_kwargs(schema)
        self.attempt = 0
        self.last_error = ""
        self.last_raw = ""

    def next_messages(self) -> tuple[list[BaseMessage], int] | None:
        """Messages of the next attempt and how many trailing ones trimming must keep."""
        if self.attempt >= self.max_attempts:
            return None
        self.attempt += 1
        if self.attempt == 1:
            return self.base, 1
        echo = self.last_raw if len(self.last_raw) <= MAX_ECHO_CHARS else self.last_raw[:MAX_ECHO_CHARS] + "…"
        feedback = HumanMessage(
            f"Your previous answer was not a valid {self.schema.__name__}: {self.last_error}. "
            f"Answer again with only a JSON object that matches the schema."
        )
        return [*self.base, AIMessage(echo), feedback], 3

    def consume(self, reply: AIMessage) -> StructuredResult[T] | None:
        raw = message_text(reply)
        model = str(reply.response_metadata.get("rabbithole_model", ""))
        try:
            value = self.schema.model_validate(extract_json(raw))
        except (json.JSONDecodeError, ValidationError) as exc:
            self.last_raw = raw
            self.last_error = describe_error(exc)
            log.info(
                "structured output %s, attempt %d/%d from '%s': %s",
                self.schema.__name__,
                self.attempt,
                self.max_attempts,
                model,
                self.last_error,
            )
            return None
        return StructuredResult(value, model, self.attempt, raw)

    def failure(self) -> LLMOutputError:
        return LLMOutputError(
            f"the model gave no valid {self.schema.__name__} in {self.max_attempts} attempt(s); "
            f"last error: {self.last_error}"
        )


def generate_structured(
    client: StructuredClient, schema: type[T], messages: MessagesInput, *, retries: int | None = None
) -> StructuredResult[T]:
    """Ask ``client`` for a ``schema`` instance; retry with the error; LLMOutputError at the end."""
    attempts = _Attempts(client, schema, messages, retries)
    while (step := attempts.next_messages()) is not None:
        prompt, keep_last = step
        reply = client.invoke(prompt, keep_last=keep_last, **attempts.kwargs)
        if (result := attempts.consume(reply)) is not None:
            return result
    raise attempts.failure()


async def agenerate_structured(
    client: StructuredClient, schema: type[T], messages: MessagesInput, *, retries: int | None = None
) -> StructuredResult[T]:
    """Async ``generate_structured``."""
    attempts = _Attempts(client, schema, messages, retries)
    while (step := attempts.next_messages()) is not None:
        prompt, keep_last = step
        reply = await client.ainvoke(prompt, keep_last=keep_last, **attempts.kwargs)
        if (result := attempts.consume(reply)) is not None:
            return result
    raise attempts.failure()
