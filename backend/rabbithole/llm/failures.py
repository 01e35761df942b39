"""Turn what the Ollama / OpenAI clients raise into Rabbithole's domain errors."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Literal

import httpx
import pydantic

from rabbithole.core.errors import LLMError, LLMUnavailableError

FailureKind = Literal["unreachable", "missing", "timeout", "dropped", "server", "malformed"]


def _chain(exc: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen and len(seen) < 8:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def _is_missing_model(text: str) -> bool:
    text = text.lower()
    return "not found" in text and "model" in text


def classify(exc: BaseException) -> FailureKind | None:
    """What went wrong with a model call, or None when it is not a transport/server failure."""
    import ollama
    import openai

    for err in _chain(exc):
        if isinstance(err, ollama.ResponseError):
            if err.status_code == 404 or _is_missing_model(str(err.error)):
                return "missing"
            return "server"
        if isinstance(err, openai.NotFoundError):
            return "missing"
        if isinstance(err, openai.APIStatusError):
            return "missing" if _is_missing_model(err.message) else "server"
        # httpx and httpx2 (the openai client's fork) share exception names
        names = {cls.__name__ for cls in type(err).__mro__}
        if names & {"ConnectTimeout", "ConnectError"}:
            return "unreachable"
        if "TimeoutException" in names or isinstance(err, openai.APITimeoutError):
            return "timeout"
        if names & {"RemoteProtocolError", "ReadError", "WriteError"}:
            return "dropped"
        if isinstance(err, httpx.HTTPStatusError):
            return "missing" if err.response.status_code == 404 else "server"
        if isinstance(err, ConnectionRefusedError):
            return "unreachable"
        if isinstance(err, ConnectionError) and "Failed to connect to Ollama" in str(err):
            return "unreachable"
        if isinstance(err, ConnectionError):
            return "dropped"
        if isinstance(err, json.JSONDecodeError | pydantic.ValidationError):
            return "malformed"
        if isinstance(err, ValueError) and "No data received" in str(err):
            return "dropped"
    for err in _chain(exc):  # a connection error whose cause was not kept
        if isinstance(err, openai.APIConnectionError):
            return "unreachable"
    return None


def server_message(exc: BaseException) -> str:
    """The server's own words, as short as possible."""
    import ollama
    import openai

    for err in _chain(exc):
        if isinstance(err, ollama.ResponseError):
            return f"{err.error} (HTTP {err.status_code})" if err.status_code > 0 else str(err.error)
        if isinstance(err, openai.APIStatusError):
            return f"{err.message} (HTTP {err.status_code})"
    return f"{type(exc).__name__}: {exc}"


def domain_error(
    kind: FailureKind, exc: BaseException, *, provider: str, base_url: str, model: str, timeout_s: float
) -> LLMError:
    """The domain error for one failed call that is not a reason to try the fallback model."""
    server = "Ollama" if provider == "ollama" else "the OpenAI-compatible server"
    if kind == "timeout":
        return LLMUnavailableError(
            f"{server} at {base_url} did not answer within {timeout_s:g}s (model '{model}'); it may be "
            f"busy or loading the model: try again, or raise llm.request_timeout_s"
        )
    if kind == "dropped":
        return LLMError(
            f"the connection to {server} at {base_url} broke off mid-response (model '{model}'): "
            f"{server_message(exc)}"
        )
    if kind == "malformed":
        return LLMError(f"{server} at {base_url} sent a response that is not valid JSON (model '{model}')")
    if kind == "server":
        return LLMError(f"{server} at {base_url} failed on model '{model}': {server_message(exc)}")
    return LLMUnavailableError(f"{server} at {base_url} is unavailable: {server_message(exc)}")


def unavailable_error(
    failures: list[tuple[str, FailureKind, BaseException]], *, provider: str, base_url: str
) -> LLMUnavailableError:
    """Neither model could be used: say where we looked, for what, and how to fix it."""
    models = [name for name, _, _ in failures]
    if len(models) > 1:
        named = f"neither model '{models[0]}' nor fallback " + " nor ".join(f"'{m}'" for m in models[1:])
        is_ = "is"
    else:
        named, is_ = f"model '{models[0]}'", "is not"
    if any(kind == "unreachable" for _, kind, _ in failures):
        if provider == "ollama":
            hint = (
                f"cannot reach Ollama at {base_url}: is Ollama running (`ollama serve`)? Set OLLAMA_HOST "
                f"or RABBITHOLE_LLM__BASE_URL if it listens elsewhere, then `ollama pull {models[0]}`"
            )
        else:
            hint = (
                f"cannot reach the OpenAI-compatible server at {base_url}: is it running? "
                f"Check RABBITHOLE_LLM__BASE_URL"
            )
        return LLMUnavailableError(f"{hint} ({', '.join(models)})")
    if provider == "ollama":
        pulls = " or ".join(f"`ollama pull {m}`" for m in models)
        return LLMUnavailableError(
            f"{named} {is_} available at Ollama {base_url}: {pulls}, or configure another "
            f"model (RABBITHOLE_LLM__MODEL / RABBITHOLE_LLM__FALLBACK_MODEL)"
        )
    return LLMUnavailableError(
        f"{named} {is_} served by the OpenAI-compatible server at {base_url}: load it there, or "
        f"configure another model (RABBITHOLE_LLM__MODEL)"
    )
