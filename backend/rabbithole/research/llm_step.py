"""One structured LLM call of a graph node: the answer, or ``None`` with a warning when the model's output
stays invalid after the retries, the number of requests it took (for ``llm_calls``) and the prompt and output
tokens they used (``usage()``, for ``llm_tokens``; failed steps included).

An answer cut at the output cap whose complete items validate is used (``truncated``), with a warning: the
value holds only what the model wrote completely (see ``rabbithole.llm.structured``).

A prompt that does not fit the context window is treated like invalid output (``None`` and a warning). A
transport failure (Ollama unreachable, a connection that broke off, a timeout) is retried twice after a
short pause; if it persists, the ``LLMError`` propagates and the run stops in its error state, resumable from
its last checkpoint. What a node does with ``None`` is its own documented deterministic default (or, where
nothing can replace the output, a ``RunFailedError``).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Generic, TypeVar

from pydantic import BaseModel

from rabbithole.core.errors import ContextWindowExceededError, LLMError, LLMOutputError
from rabbithole.llm.structured import StructuredResult, agenerate_structured, generate_structured

if TYPE_CHECKING:
    from rabbithole.core.config import LLMSettings
    from rabbithole.llm.factory import LLMClient, MessagesInput

log = logging.getLogger(__name__)

T = TypeVar("T", bound=BaseModel)


@dataclass(slots=True)
class StepResult(Generic[T]):
    value: T | None
    kind: str
    requests: int
    warnings: list[str] = field(default_factory=list)
    #: the value was salvaged from an answer cut at the output limit (its complete items only)
    truncated: bool = False
    #: tokens of all the step's attempts (as the replies report them)
    prompt_tokens: int = 0
    output_tokens: int = 0

    def counts(self) -> dict[str, int]:
        return {self.kind: self.requests}

    def usage(self) -> dict[str, int]:
        """Tokens by kind, flat, for ``merge_counts``: ``{"<kind>.prompt": p, "<kind>.output": o}``."""
        return {f"{self.kind}.prompt": self.prompt_tokens, f"{self.kind}.output": self.output_tokens}


#: Pauses before the retries of a transport failure (seconds).
TRANSIENT_PAUSES = (1.0, 3.0)


def _failed(kind: str, exc: LLMOutputError, failed: int, settings: LLMSettings) -> StepResult[T]:
    log.warning("%s: %s", kind, exc)
    warning = f"{kind}: the model's output stayed invalid ({exc})"
    requests = failed + (exc.attempts or 1 + settings.structured_retries)
    return StepResult(
        None, kind, requests, [warning], prompt_tokens=exc.prompt_tokens, output_tokens=exc.output_tokens
    )


def _answered(kind: str, result: StructuredResult[T], failed: int) -> StepResult[T]:
    warnings = []
    if result.truncated:
        dropped = f" ({result.dropped_items} incomplete item(s) dropped)" if result.dropped_items else ""
        warnings.append(f"{kind}: the answer was cut at the output limit; kept the complete items{dropped}")
    return StepResult(
        result.value,
        kind,
        failed + result.attempts + result.failed_streams,
        warnings,
        truncated=result.truncated,
        prompt_tokens=result.prompt_tokens,
        output_tokens=result.output_tokens,
    )


def _too_long(kind: str, exc: ContextWindowExceededError, requests: int) -> StepResult[T]:
    log.warning("%s: %s", kind, exc)
    return StepResult(None, kind, requests, [f"{kind}: the prompt did not fit the context window ({exc})"])


async def ask(
    llm: LLMClient,
    kind: str,
    schema: type[T],
    messages: MessagesInput,
    *,
    on_text: Callable[[str], None] | None = None,
) -> StepResult[T]:
    """Async structured call; see the module docstring. ``on_text``: the answer so far, as the model writes
    it (``agenerate_structured``)."""
    failed = 0
    while True:
        try:
            result = await agenerate_structured(llm, schema, messages, on_text=on_text)
        except LLMOutputError as exc:
            return _failed(kind, exc, failed, llm.settings)
        except ContextWindowExceededError as exc:
            return _too_long(kind, exc, failed)
        except LLMError:
            if failed >= len(TRANSIENT_PAUSES):
                raise
            await asyncio.sleep(TRANSIENT_PAUSES[failed])
            failed += 1
            continue
        return _answered(kind, result, failed)


def ask_sync(llm: LLMClient, kind: str, schema: type[T], messages: MessagesInput) -> StepResult[T]:
    """The same from a worker thread (the reference gate runs inside expansion)."""
    failed = 0
    while True:
        try:
            result = generate_structured(llm, schema, messages)
        except LLMOutputError as exc:
            return _failed(kind, exc, failed, llm.settings)
        except ContextWindowExceededError as exc:
            return _too_long(kind, exc, failed)
        except LLMError:
            if failed >= len(TRANSIENT_PAUSES):
                raise
            time.sleep(TRANSIENT_PAUSES[failed])
            failed += 1
            continue
        return _answered(kind, result, failed)


def merge_counts(left: dict[str, int] | None, right: dict[str, int] | None) -> dict[str, int]:
    """Reducer of ``llm_calls``: counts by kind, added up."""
    out = dict(left or {})
    for kind, n in (right or {}).items():
        out[kind] = out.get(kind, 0) + n
    return out
