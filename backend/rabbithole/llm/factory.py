"""Chat models from settings, and ``LLMClient``: the one object services use to talk to the LLM.

``LLMClient`` builds its LangChain chat models lazily (nothing heavy at import or construction),
keeps prompts inside the context window (``ContextWindow``), falls back from the primary to the
fallback model when the primary is unreachable or missing, and turns every client failure into a
domain error (``LLMUnavailableError`` / ``LLMError`` / ``ContextWindowExceededError``).
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
import weakref
from collections.abc import AsyncIterator, Callable, Iterator
from typing import TYPE_CHECKING, Any, TypeVar

import httpx
from langchain_core.messages import AIMessage, BaseMessage, BaseMessageChunk
from pydantic import BaseModel

from rabbithole.core.config import LLMSettings
from rabbithole.core.errors import LLMError
from rabbithole.llm.context import ContextWindow, FitResult
from rabbithole.llm.failures import FailureKind, classify, domain_error, unavailable_error
from rabbithole.llm.health import LLMStatus, probe
from rabbithole.llm.messages import MessagesInput, as_messages
from rabbithole.llm.structured import (
    StructuredResult,
    agenerate_structured,
    generate_structured,
    json_schema_of,
)
from rabbithole.llm.tokens import TokenCounter

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

log = logging.getLogger(__name__)

T = TypeVar("T", bound=BaseModel)
__all__ = ["LLMClient", "MessagesInput", "as_messages", "build_chat_model"]
#: How long a model that answered "not found" is skipped before it is tried again.
MISSING_MODEL_TTL_S = 60.0


def _timeout(settings: LLMSettings) -> httpx.Timeout:
    return httpx.Timeout(settings.request_timeout_s, connect=min(10.0, settings.request_timeout_s))


def build_chat_model(
    settings: LLMSettings, model: str | None = None, *, reasoning: bool | None = None
) -> BaseChatModel:
    """A LangChain chat model for ``model`` (default: ``settings.model``) as configured.

    Ollama: ``ChatOllama`` with num_ctx, num_predict (= max_output_tokens), temperature and the
    request timeout. OpenAI-compatible (vLLM, llama.cpp server, LM Studio): ``ChatOpenAI`` with
    base_url and api_key, no client-side retries.
    """
    name = model or settings.model
    if settings.provider == "ollama":
        from langchain_ollama import ChatOllama

        return ChatOllama(
            model=name,
            base_url=settings.resolved_base_url,
            num_ctx=settings.num_ctx,
            num_predict=settings.max_output_tokens,
            temperature=settings.temperature,
            reasoning=reasoning,
            client_kwargs={"timeout": _timeout(settings)},
        )
    from langchain_openai import ChatOpenAI
    from pydantic import SecretStr

    return ChatOpenAI(
        model=name,
        base_url=settings.resolved_base_url,
        api_key=SecretStr(settings.api_key),
        temperature=settings.temperature,
        max_completion_tokens=settings.max_output_tokens,
        # llama.cpp server and LM Studio read max_tokens; ChatOpenAI sends max_completion_tokens
        extra_body={"max_tokens": settings.max_output_tokens},
        timeout=_timeout(settings),
        max_retries=0,
    )


class LLMClient:
    """Talks to the configured LLM: plain, streamed and structured calls with fallback."""

    def __init__(
        self,
        settings: LLMSettings,
        *,
        token_counter: TokenCounter | None = None,
        reasoning: bool | None = None,
        chat_model_factory: Callable[[LLMSettings, str], BaseChatModel] | None = None,
    ) -> None:
        """``reasoning``: ChatOllama's thinking switch (None: the model's default).

        ``chat_model_factory``: builds a chat model per model name (default: ``build_chat_model``).
        """
        self.settings = settings
        self.base_url = settings.resolved_base_url
        self.counter = token_counter or TokenCounter()
        self.window = ContextWindow.from_settings(settings, self.counter)
        self._reasoning = reasoning
        self._factory = chat_model_factory
        self._models: dict[str, BaseChatModel] = {}
        self._async_models: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, BaseChatModel]] = (
            weakref.WeakKeyDictionary()
        )
        self._missing: dict[str, float] = {}
        #: the failure last warned about per model: a retry that fails alike is logged at debug level only,
        #: until the model answers again
        self._warned: dict[str, FailureKind] = {}
        self._lock = threading.Lock()

    # -- models ----------------------------------------------------------------------------

    @property
    def model_names(self) -> list[str]:
        """Primary model, then the fallback (if configured and different)."""
        names = [self.settings.model]
        fallback = self.settings.fallback_model
        if fallback and fallback != self.settings.model:
            names.append(fallback)
        return names

    def chat_model(self, model: str | None = None) -> BaseChatModel:
        """The LangChain chat model for ``model`` (default: the primary), built once.

        Escape hatch: calls made on it directly get no fallback, context check or error mapping.
        Its async client belongs to the event loop that first uses it; async calls of this
        client get a chat model per event loop (see ``_async_chat_model``).
        """
        name = model or self.settings.model
        with self._lock:
            built = self._models.get(name)
            if built is None:
                built = self._models[name] = self._build(name)
            return built

    def _build(self, name: str) -> BaseChatModel:
        if self._factory is not None:
            return self._factory(self.settings, name)
        return build_chat_model(self.settings, name, reasoning=self._reasoning)

    def _async_chat_model(self, name: str) -> BaseChatModel:
        """A chat model whose async HTTP client belongs to the running event loop."""
        loop = asyncio.get_running_loop()
        with self._lock:
            per_loop = self._async_models.get(loop)
            if per_loop is None:
                per_loop = self._async_models[loop] = {}
            built = per_loop.get(name)
            if built is None:
                built = per_loop[name] = self._build(name)
            return built

    def _candidates(self) -> list[str]:
        now = time.monotonic()
        names = self.model_names
        usable = [n for n in names if now - self._missing.get(n, -1e9) > MISSING_MODEL_TTL_S]
        return usable or names

    def _note_failure(self, model: str, kind: FailureKind) -> None:
        if kind == "missing":
            self._missing[model] = time.monotonic()
        nxt = [n for n in self.model_names if n != model]
        repeated = self._warned.get(model) == kind
        self._warned[model] = kind
        (log.debug if repeated else log.warning)(
            "model '%s' at %s: %s%s",
            model,
            self.base_url,
            "not found" if kind == "missing" else "unreachable",
            f"; trying fallback '{nxt[0]}'" if nxt and model == self.settings.model else "",
        )

    def _fail(
        self, exc: Exception, model: str, failures: list[tuple[str, FailureKind, BaseException]] | None
    ) -> None:
        """Record a failure that the fallback model may fix (``failures`` given), else raise.

        Raises the domain error for a known failure, and an unrecognised exception (a bug) as is.
        """
        kind = classify(exc)
        if failures is not None and (kind == "unreachable" or kind == "missing"):
            failures.append((model, kind, exc))
            self._note_failure(model, kind)
            return
        if kind is None:
            raise exc
        raise domain_error(
            kind,
            exc,
            provider=self.settings.provider,
            base_url=self.base_url,
            model=model,
            timeout_s=self.settings.request_timeout_s,
        ) from exc

    # -- context ---------------------------------------------------------------------------

    def fit(self, messages: MessagesInput, *, keep_last: int = 1) -> FitResult:
        """The messages trimmed to the context window (or ContextWindowExceededError)."""
        return self.window.fit(as_messages(messages), keep_last=keep_last)

    def _observe(self, fit: FitResult, message: BaseMessage) -> None:
        meta = message.response_metadata or {}
        usage = getattr(message, "usage_metadata", None) or {}
        prompt = meta.get("prompt_eval_count") or usage.get("input_tokens")
        answer = meta.get("eval_count") or usage.get("output_tokens")
        if isinstance(prompt, int):
            self.window.observe(fit.prompt_tokens, prompt, answer if isinstance(answer, int) else None)

    # -- calls -----------------------------------------------------------------------------

    def invoke(self, messages: MessagesInput, *, keep_last: int = 1, **kwargs: Any) -> AIMessage:
        """One chat completion (primary, else fallback model)."""
        fit = self.fit(messages, keep_last=keep_last)
        failures: list[tuple[str, FailureKind, BaseException]] = []
        for model in self._candidates():
            try:
                reply = self.chat_model(model).invoke(fit.messages, **kwargs)
            except Exception as exc:
                self._fail(exc, model, failures)
                continue
            return self._finish(fit, reply, model)
        raise unavailable_error(failures, provider=self.settings.provider, base_url=self.base_url)

    async def ainvoke(self, messages: MessagesInput, *, keep_last: int = 1, **kwargs: Any) -> AIMessage:
        """Async ``invoke``."""
        fit = self.fit(messages, keep_last=keep_last)
        failures: list[tuple[str, FailureKind, BaseException]] = []
        for model in self._candidates():
            try:
                reply = await self._async_chat_model(model).ainvoke(fit.messages, **kwargs)
            except Exception as exc:
                self._fail(exc, model, failures)
                continue
            return self._finish(fit, reply, model)
        raise unavailable_error(failures, provider=self.settings.provider, base_url=self.base_url)

    def _finish(self, fit: FitResult, reply: BaseMessage, model: str) -> AIMessage:
        self._warned.pop(model, None)
        if not isinstance(reply, AIMessage):  # pragma: no cover - chat models answer AIMessages
            reply = AIMessage(content=reply.content, response_metadata=reply.response_metadata)
        reply.response_metadata.setdefault("model_name", model)
        reply.response_metadata["rabbithole_model"] = model
        reply.response_metadata["rabbithole_prompt_tokens"] = fit.prompt_tokens
        reply.response_metadata["rabbithole_trimmed"] = fit.trimmed
        self._observe(fit, reply)
        return reply

    def stream(self, messages: MessagesInput, *, keep_last: int = 1, **kwargs: Any) -> Iterator[str]:
        """The answer's text as it is generated. Falls back only before the first chunk."""
        fit = self.fit(messages, keep_last=keep_last)
        failures: list[tuple[str, FailureKind, BaseException]] = []
        for model in self._candidates():
            chunks = iter(self.chat_model(model).stream(fit.messages, **kwargs))
            try:
                first = next(chunks, None)
            except Exception as exc:
                self._fail(exc, model, failures)
                continue
            last: BaseMessageChunk | None = first
            if first is not None and first.text:
                yield first.text
            try:
                for chunk in chunks:
                    last = chunk
                    if chunk.text:
                        yield chunk.text
            except Exception as exc:
                self._fail(exc, model, None)
            if last is not None:
                self._observe(fit, last)
            return
        raise unavailable_error(failures, provider=self.settings.provider, base_url=self.base_url)

    async def _achunks(
        self, messages: MessagesInput, keep_last: int, kwargs: dict[str, Any]
    ) -> AsyncIterator[tuple[str, FitResult, BaseMessageChunk]]:
        """(model, fit, chunk) as the answer is generated. Falls back only before the first chunk; a
        failure after it is raised as its domain error."""
        fit = self.fit(messages, keep_last=keep_last)
        failures: list[tuple[str, FailureKind, BaseException]] = []
        for model in self._candidates():
            chunks = self._async_chat_model(model).astream(fit.messages, **kwargs).__aiter__()
            try:
                first: BaseMessageChunk | None = await chunks.__anext__()
            except StopAsyncIteration:
                first = None
            except Exception as exc:
                self._fail(exc, model, failures)
                continue
            if first is None:
                return
            yield model, fit, first
            try:
                async for chunk in chunks:
                    yield model, fit, chunk
            except Exception as exc:
                self._fail(exc, model, None)
            return
        raise unavailable_error(failures, provider=self.settings.provider, base_url=self.base_url)

    async def astream(
        self, messages: MessagesInput, *, keep_last: int = 1, **kwargs: Any
    ) -> AsyncIterator[str]:
        """Async ``stream``."""
        last: tuple[FitResult, BaseMessageChunk] | None = None
        async for _model, fit, chunk in self._achunks(messages, keep_last, kwargs):
            last = (fit, chunk)
            if chunk.text:
                yield chunk.text
        if last is not None:
            self._observe(*last)

    async def astream_reply(
        self,
        messages: MessagesInput,
        on_text: Callable[[str], None],
        *,
        keep_last: int = 1,
        **kwargs: Any,
    ) -> AIMessage:
        """The whole reply, as ``ainvoke`` returns it, with ``on_text`` called with the answer's text so far
        as it is generated. A failure after the first chunk raises its domain error (``LLMError``)."""
        whole: BaseMessageChunk | None = None
        answered: tuple[str, FitResult] | None = None
        async for model, fit, chunk in self._achunks(messages, keep_last, kwargs):
            whole = chunk if whole is None else whole + chunk
            answered = (model, fit)
            if chunk.text:
                on_text(whole.text)
        if whole is None or answered is None:
            raise LLMError(f"the model's answer stream from {self.base_url} ended before its first chunk")
        reply = AIMessage(
            content=whole.content,
            response_metadata=dict(whole.response_metadata),
            usage_metadata=getattr(whole, "usage_metadata", None),
        )
        return self._finish(answered[1], reply, answered[0])

    # -- structured output -----------------------------------------------------------------

    def structured(self, schema: type[T], messages: MessagesInput, *, retries: int | None = None) -> T:
        """A validated ``schema`` instance (see ``rabbithole.llm.structured``)."""
        return generate_structured(self, schema, messages, retries=retries).value

    async def astructured(self, schema: type[T], messages: MessagesInput, *, retries: int | None = None) -> T:
        """Async ``structured``."""
        return (await agenerate_structured(self, schema, messages, retries=retries)).value

    def structured_result(
        self, schema: type[T], messages: MessagesInput, *, retries: int | None = None
    ) -> StructuredResult[T]:
        """Like ``structured``, with the attempts and the model that answered."""
        return generate_structured(self, schema, messages, retries=retries)

    def format_kwargs(self, schema: type[BaseModel]) -> dict[str, Any]:
        """Call kwargs that ask the provider for JSON-schema constrained output."""
        json_schema = json_schema_of(schema)
        if self.settings.provider == "ollama":
            return {"format": json_schema}
        return {
            "response_format": {
                "type": "json_schema",
                "json_schema": {"name": schema.__name__, "schema": json_schema, "strict": False},
            }
        }

    # -- health ----------------------------------------------------------------------------

    def probe(self, timeout_s: float = 5.0) -> LLMStatus:
        """Which models the server offers (Ollama: GET /api/tags; OpenAI: GET /models)."""
        return probe(self.settings, self.base_url, timeout_s)
