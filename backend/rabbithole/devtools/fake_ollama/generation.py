"""What the fake model "says": scripted, schema-derived, JSON or plain text, the weak model's version of it
(``weak/``), and the faults on it."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rabbithole.devtools.fake_ollama.faults import AppliedFaults
from rabbithole.devtools.fake_ollama.schema_instance import generate_instance
from rabbithole.devtools.fake_ollama.state import FakeState, RecordedRequest
from rabbithole.devtools.fake_ollama.text import PromptContext, answer_text, phrase
from rabbithole.devtools.fake_ollama.weak.answer import weak_answer

#: Ollama's context window when a request sets no num_ctx.
DEFAULT_NUM_CTX = 4096
#: Template tokens per message (role markers).
TEMPLATE_TOKENS_PER_MESSAGE = 4
_PIECE = re.compile(r"\S+\s*|\s+")


@dataclass
class Output:
    """One model answer, before it is streamed or sent whole."""

    content: str
    thinking: str | None
    prompt_eval_count: int
    eval_count: int
    done_reason: str


class TokenCounting:
    """Counts prompt tokens with the project's tokenizer, loaded once (lazily) per server."""

    def __init__(self) -> None:
        from rabbithole.llm.tokens import TokenCounter

        self.counter = TokenCounter()

    def count(self, text: str) -> int:
        return self.counter.count(text)


def prompt_context(body: Mapping[str, Any]) -> PromptContext:
    messages = body.get("messages")
    if isinstance(messages, list):
        return PromptContext.from_messages([m for m in messages if isinstance(m, Mapping)])
    system = body.get("system")
    return PromptContext.from_prompt(str(body.get("prompt", "")), str(system) if system else None)


def model_text(body: Mapping[str, Any], ctx: PromptContext, fmt: Any) -> str:
    """The unscripted answer: a schema instance, a JSON object, or grounded plain text."""
    if isinstance(fmt, Mapping) and fmt:
        return json.dumps(generate_instance(fmt, ctx), ensure_ascii=False)
    if fmt == "json":
        return json.dumps({"answer": answer_text(ctx), "language": ctx.language}, ensure_ascii=False)
    return answer_text(ctx)


def malformed(content: str) -> str:
    """Text that is certainly not JSON (an unterminated object without braces inside)."""
    stripped = content.replace("{", "").replace("}", "").replace("[", "").replace("]", "")
    return '{"' + stripped[: max(8, len(stripped) // 2)]


def produce(
    state: FakeState, record: RecordedRequest, faults: AppliedFaults, counting: TokenCounting
) -> Output:
    """Decide the answer to a chat/generate request and fill in the record's token accounting."""
    body = record.body
    ctx = prompt_context(body)
    script = state.take_script(record)
    knobs = state.knobs
    capped = False
    if script is not None:  # scripts win over the weak model
        content = script.render(record)
        record.scripted = True
    elif knobs.active:
        weak = weak_answer(record, ctx, knobs)
        content, capped = weak.content, weak.cut
        record.weak = list(weak.behaviours)
    else:
        content = model_text(body, ctx, record.format)
    if faults.invalid:
        content = json.dumps(["not", "the", "requested", "object"])
    if faults.malformed:
        content = malformed(content)
    options = record.options
    num_ctx = record.num_ctx or DEFAULT_NUM_CTX
    messages = record.messages
    prompt_tokens = counting.count(record.prompt) + TEMPLATE_TOKENS_PER_MESSAGE * max(1, len(messages))
    record.prompt_tokens = prompt_tokens
    record.truncated = prompt_tokens > num_ctx
    pieces = split_pieces(content)
    num_predict = options.get("num_predict")
    done_reason = "length" if capped else "stop"
    if isinstance(num_predict, int) and 0 < num_predict < len(pieces):
        pieces = pieces[:num_predict]
        content = "".join(pieces)
        done_reason = "length"
    think = body.get("think")
    thinking = f"Thinking about {phrase(ctx, 3)}." if think not in (None, False) else None
    record.response_text = content
    return Output(content, thinking, min(prompt_tokens, num_ctx), len(pieces), done_reason)


def split_pieces(content: str) -> list[str]:
    """The "tokens" an answer is streamed in: words with their trailing whitespace."""
    return _PIECE.findall(content) or [""]
