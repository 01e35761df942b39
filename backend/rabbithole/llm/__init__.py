"""The LLM layer: chat models from settings, structured output, token counting, context window.

Services receive an ``LLMClient`` (built once from ``Settings.llm``) and call ``invoke``/``ainvoke``,
``stream``/``astream`` or ``structured``/``astructured`` on it.

Names are imported lazily, so ``import rabbithole.llm.tokens`` stays light (no LangChain).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rabbithole.llm.context import ContextWindow, FitResult, context_block
    from rabbithole.llm.factory import LLMClient, build_chat_model
    from rabbithole.llm.health import LLMStatus
    from rabbithole.llm.messages import MessagesInput
    from rabbithole.llm.structured import StructuredResult, agenerate_structured, generate_structured
    from rabbithole.llm.tokens import TokenCounter

_EXPORTS = {
    "ContextWindow": "rabbithole.llm.context",
    "FitResult": "rabbithole.llm.context",
    "context_block": "rabbithole.llm.context",
    "LLMClient": "rabbithole.llm.factory",
    "LLMStatus": "rabbithole.llm.health",
    "MessagesInput": "rabbithole.llm.messages",
    "build_chat_model": "rabbithole.llm.factory",
    "StructuredResult": "rabbithole.llm.structured",
    "agenerate_structured": "rabbithole.llm.structured",
    "generate_structured": "rabbithole.llm.structured",
    "TokenCounter": "rabbithole.llm.tokens",
}

__all__ = [
    "ContextWindow",
    "FitResult",
    "LLMClient",
    "LLMStatus",
    "MessagesInput",
    "StructuredResult",
    "TokenCounter",
    "agenerate_structured",
    "build_chat_model",
    "context_block",
    "generate_structured",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'rabbithole.llm' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
