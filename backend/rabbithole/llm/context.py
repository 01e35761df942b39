"""Keep every prompt inside the model's context window (``llm.num_ctx``), explicitly.

Ollama silently drops the start of a prompt that does not fit ``num_ctx``. Before anything is sent,
``ContextWindow.fit`` estimates the prompt's tokens (``TokenCounter.estimate_llm_tokens``) plus the
answer's reserve (``llm.max_output_tokens``) and, when that exceeds ``num_ctx``:

* ``on_overflow="refuse"``: raises ``ContextWindowExceededError``;
* ``on_overflow="trim"``: trims, in this order, logging what it dropped:
  1. passages of designated context blocks (built with :func:`context_block`), lowest-ranked
     (last) first, keeping one passage per block;
  2. the oldest non-system messages, never the last ``keep_last`` messages;
  3. the text of the remaining passages, cut at a sentence or word boundary;
  and raises ``ContextWindowExceededError`` when even that is not enough.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from html import escape
from typing import Literal

from langchain_core.messages import BaseMessage, SystemMessage

from rabbithole.core.config import LLMSettings
from rabbithole.core.errors import ContextWindowExceededError
from rabbithole.llm.tokens import TokenCounter

log = logging.getLogger(__name__)

CONTEXT_OPEN = "<context>"
CONTEXT_CLOSE = "</context>"
_BLOCK = re.compile(r"<context>\n?(.*?)\n?</context>", re.DOTALL)
_PASSAGE = re.compile(r"<passage(?: [^>\n]*)?>.*?</passage>\n?", re.DOTALL)
#: Tokens a chat template adds around each message (role markers, separators): generous.
MESSAGE_OVERHEAD = 8
#: Tokens of the template's assistant prefix that opens the answer.
REPLY_PRIMER = 8


def context_block(passages: Sequence[str], ids: Sequence[str] | None = None) -> str:
    """Wrap ranked passages (most relevant first) so that trimming can drop the last ones.

    ``<context>`` holds one ``<passage id="...">`` per passage; the text is kept verbatim.
    """
    if ids is not None and len(ids) != len(passages):
        raise ValueError("context_block: ids and passages differ in length")
    parts = []
    for i, passage in enumerate(passages):
        attr = f' id="{escape(ids[i], quote=True)}"' if ids is not None else ""
        parts.append(f"<passage{attr}>\n{passage.strip()}\n</passage>\n")
    return f"{CONTEXT_OPEN}\n{''.join(parts)}{CONTEXT_CLOSE}"


def message_text(message: BaseMessage) -> str:
    """The text of a message (text parts of multi-part content)."""
    content = message.content
    if isinstance(content, str):
        return content
    texts = []
    for part in content:
        if isinstance(part, str):
            texts.append(part)
        elif isinstance(part, dict) and isinstance(part.get("text"), str):
            texts.append(part["text"])
    return "\n".join(texts)


@dataclass
class FitResult:
    """A prompt that fits, and what was done to make it fit."""

    messages: list[BaseMessage]
    prompt_tokens: int
    budget: int
    dropped_passages: int = 0
    dropped_messages: int = 0
    shortened_passages: int = 0
    notes: list[str] = field(default_factory=list)

    @property
    def trimmed(self) -> bool:
        return bool(self.dropped_passages or self.dropped_messages or self.shortened_passages)


@dataclass
class _Passage:
    message: int
    block: int
    start: int  # offset of the passage in the message text
    end: int
    tokens: int


class ContextWindow:
    """Token budget of one model call: ``num_ctx - max_output_tokens``."""

    def __init__(
        self,
        counter: TokenCounter,
        *,
        num_ctx: int,
        max_output_tokens: int,
        on_overflow: Literal["trim", "refuse"] = "trim",
    ) -> None:
        if max_output_tokens >= num_ctx:
            raise ValueError(f"max_output_tokens ({max_output_tokens}) must be below num_ctx ({num_ctx})")
        self.counter = counter
        self.num_ctx = num_ctx
        self.max_output_tokens = max_output_tokens
        self.on_overflow = on_overflow

    @classmethod
    def from_settings(cls, settings: LLMSettings, counter: TokenCounter) -> ContextWindow:
        return cls(
            counter,
            num_ctx=settings.num_ctx,
            max_output_tokens=min(settings.max_output_tokens, settings.num_ctx // 2),
            on_overflow=settings.on_overflow,
        )

    @property
    def budget(self) -> int:
        """Tokens the prompt may use."""
        return self.num_ctx - self.max_output_tokens

    def count_text(self, text: str) -> int:
        return self.counter.estimate_llm_tokens(text)

    def count_messages(self, messages: Sequence[BaseMessage]) -> int:
        """Estimated prompt tokens of ``messages`` as the chat model will see them."""
        return REPLY_PRIMER + sum(MESSAGE_OVERHEAD + self.count_text(message_text(m)) for m in messages)

    def fit(self, messages: Sequence[BaseMessage], *, keep_last: int = 1, extra_tokens: int = 0) -> FitResult:
        """Messages that fit the window (trimmed per ``on_overflow``), or ContextWindowExceededError.

        ``extra_tokens``: prompt tokens not in the messages (e.g. tool definitions).
        """
        msgs = list(messages)
        budget = self.budget - extra_tokens
        tokens = self.count_messages(msgs)
        result = FitResult(msgs, tokens, budget)
        if tokens <= budget:
            return result
        if self.on_overflow == "refuse":
            raise ContextWindowExceededError(self._overflow_message(tokens, budget, "refused"))
        self._drop_passages(result)
        if result.prompt_tokens > budget:
            self._drop_messages(result, keep_last)
        if result.prompt_tokens > budget:
            self._shorten_passages(result)
        if result.prompt_tokens > budget:
            raise ContextWindowExceededError(
                self._overflow_message(result.prompt_tokens, budget, "even after trimming")
            )
        log.warning(
            "prompt of ~%d tokens did not fit num_ctx=%d (reserving %d for the answer): %s; now ~%d",
            tokens,
            self.num_ctx,
            self.max_output_tokens,
            "; ".join(result.notes),
            result.prompt_tokens,
        )
        return result

    def observe(self, estimated_prompt: int, prompt_eval_count: int | None, eval_count: int | None) -> None:
        """Check a response's token counts (Ollama reports them) against the estimate."""
        if not prompt_eval_count:
            return
        self.counter.observe(estimated_prompt, prompt_eval_count)
        if prompt_eval_count + (eval_count or 0) >= self.num_ctx:
            log.warning(
                "the model used %d prompt + %d answer tokens of num_ctx=%d: the prompt or answer may "
                "have been cut; raise llm.num_ctx or send less context",
                prompt_eval_count,
                eval_count or 0,
                self.num_ctx,
            )

    # -- trimming steps --------------------------------------------------------------------

    def _overflow_message(self, tokens: int, budget: int, how: str) -> str:
        return (
            f"prompt needs ~{tokens} tokens but only {budget} fit ({how}): num_ctx={self.num_ctx} "
            f"minus {self.max_output_tokens} reserved for the answer. Ask with less context, or raise "
            f"llm.num_ctx (RABBITHOLE_LLM__NUM_CTX) if the model supports it."
        )

    def _passages(self, msgs: Sequence[BaseMessage]) -> list[_Passage]:
        found: list[_Passage] = []
        block_no = 0
        for index, message in enumerate(msgs):
            if not isinstance(message.content, str):
                continue
            for block in _BLOCK.finditer(message.content):
                for passage in _PASSAGE.finditer(message.content, block.start(1), block.end(1)):
                    tokens = self.count_text(passage.group(0))
                    found.append(_Passage(index, block_no, passage.start(), passage.end(), tokens))
                block_no += 1
        return found

    def _drop_passages(self, result: FitResult) -> None:
        passages = self._passages(result.messages)
        left_per_block: dict[int, int] = {}
        for p in passages:
            left_per_block[p.block] = left_per_block.get(p.block, 0) + 1
        drop: list[_Passage] = []
        estimate = result.prompt_tokens
        for p in reversed(passages):  # lowest-ranked first, last block first
            if estimate <= result.budget:
                break
            if left_per_block[p.block] <= 1:
                continue
            left_per_block[p.block] -= 1
            drop.append(p)
            estimate -= p.tokens
        if not drop:
            return
        result.messages = _cut(result.messages, [(p.message, p.start, p.end) for p in drop])
        result.dropped_passages += len(drop)
        result.prompt_tokens = self.count_messages(result.messages)
        result.notes.append(f"dropped {len(drop)} of {len(passages)} context passages")

    def _drop_messages(self, result: FitResult, keep_last: int) -> None:
        msgs = result.messages
        protected = set(range(max(0, len(msgs) - keep_last), len(msgs)))
        droppable = [i for i, m in enumerate(msgs) if i not in protected and not isinstance(m, SystemMessage)]
        dropped: set[int] = set()
        estimate = result.prompt_tokens
        for i in droppable:  # oldest first
            if estimate <= result.budget:
                break
            dropped.add(i)
            estimate -= MESSAGE_OVERHEAD + self.count_text(message_text(msgs[i]))
        if not dropped:
            return
        result.messages = [m for i, m in enumerate(msgs) if i not in dropped]
        result.dropped_messages += len(dropped)
        result.prompt_tokens = self.count_messages(result.messages)
        result.notes.append(f"dropped the {len(dropped)} oldest non-system messages")

    def _shorten_passages(self, result: FitResult) -> None:
        for p in reversed(self._passages(result.messages)):
            excess = result.prompt_tokens - result.budget
            if excess <= 0:
                return
            message = result.messages[p.message]
            assert isinstance(message.content, str)
            text = message.content[p.start : p.end]
            open_end = text.index(">") + 1
            body_end = text.rindex("</passage>")
            body = text[open_end:body_end]
            keep_tokens = max(0, self.count_text(body) - excess - MESSAGE_OVERHEAD)
            short = self._truncate(body, keep_tokens)
            if short == body:
                continue
            new_text = text[:open_end] + short + text[body_end:]
            content = message.content[: p.start] + new_text + message.content[p.end :]
            result.messages = list(result.messages)
            result.messages[p.message] = message.model_copy(update={"content": content})
            result.shortened_passages += 1
            result.prompt_tokens = self.count_messages(result.messages)
            result.notes.append("shortened a context passage")

    def _truncate(self, text: str, max_tokens: int) -> str:
        """The longest prefix of ``text`` (cut at a sentence, else a word) within ``max_tokens``."""
        if max_tokens <= 0:
            return "\n[…]\n"
        lo, hi = 0, len(text)
        while lo < hi:  # longest character prefix that fits
            mid = (lo + hi + 1) // 2
            if self.count_text(text[:mid]) <= max_tokens:
                lo = mid
            else:
                hi = mid - 1
        prefix = text[:lo]
        cut = max(prefix.rfind(". "), prefix.rfind(".\n"))
        if cut > len(prefix) // 2:
            prefix = prefix[: cut + 1]
        elif " " in prefix:
            prefix = prefix[: prefix.rfind(" ")]
        return prefix + " […]\n"


def _cut(msgs: list[BaseMessage], spans: list[tuple[int, int, int]]) -> list[BaseMessage]:
    """Remove character spans (message index, start, end) from message contents."""
    out = list(msgs)
    by_message: dict[int, list[tuple[int, int]]] = {}
    for index, start, end in spans:
        by_message.setdefault(index, []).append((start, end))
    for index, cuts in by_message.items():
        content = out[index].content
        assert isinstance(content, str)
        for start, end in sorted(cuts, reverse=True):
            content = content[:start] + content[end:]
        out[index] = out[index].model_copy(update={"content": content})
    return out
