"""What the LLM layer accepts as a prompt: a string (one user message) or a sequence of LangChain messages."""

from __future__ import annotations

from collections.abc import Sequence

from langchain_core.messages import BaseMessage, HumanMessage

MessagesInput = str | Sequence[BaseMessage]


def as_messages(messages: MessagesInput) -> list[BaseMessage]:
    return [HumanMessage(messages)] if isinstance(messages, str) else list(messages)
