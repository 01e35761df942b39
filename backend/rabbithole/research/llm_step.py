"""One structured LLM call of a graph node: the answer, or ``None`` with a warning when the model's output
stays invalid after the retries, and the number of requests it took (for ``llm_calls``).

``LLMUnavailableError`` (Ollama down, too slow) and a prompt that does not fit are not caught: the run stops
in its error state and resumes from its last checkpoint. What a node does with ``None`` is its own
documented deterministic default (or, where nothing can replace the output, a ``RunFailedError``).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Generic, TypeVar

from pydantic import BaseModel

from rabbithole.core.errors import LLMOutputError
from rabbithole.llm.structured import agenerate_structured, generate_structured

if TYPE_CHECKING:
    from rabbithole.llm.factory import LLMClient, MessagesInput

log = logging.getLogger(__name__)

T = TypeVar("T", bound=BaseModel)


@dataclass(slots=True)
class StepResult(Generic[T]):
    value: T | None
    kind: str
    requests: int
    warnings: list[str] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        return {self.kind: self.requests}


def _failed(kind: str, exc: LLMOutputError, requests: int) -> StepResult[T]:
    log.warning("%s: %s", kind, exc)
    return StepResult(None, kind, requests, [f"{kind}: the model's output stayed invalid ({exc})"])


async def ask(llm: LLMClient, kind: str, schema: type[T], messages: MessagesInput) -> StepResult[T]:
    """Async structured call; see the module docstring."""
    try:
        result = await agenerate_structured(llm, schema, messages)
    except LLMOutputError as exc:
        return _failed(kind, exc, 1 + llm.settings.structured_retries)
    return StepResult(result.value, kind, result.attempts)


def ask_sync(llm: LLMClient, kind: str, schema: type[T], messages: MessagesInput) -> StepResult[T]:
    """The same from a worker thread (the reference gate runs inside expansion)."""
    try:
        result = generate_structured(llm, schema, messages)
    except LLMOutputError as exc:
        return _failed(kind, exc, 1 + llm.settings.structured_retries)
    return StepResult(result.value, kind, result.attempts)


def merge_counts(left: dict[str, int] | None, right: dict[str, int] | None) -> dict[str, int]:
    """Reducer of ``llm_calls``: counts by kind, added up."""
    out = dict(left or {})
    for kind, n in (right or {}).items():
        out[kind] = out.get(kind, 0) + n
    return out
