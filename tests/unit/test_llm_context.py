"""ContextWindow: prompts are checked against num_ctx and trimmed or refused, explicitly."""

from __future__ import annotations

import logging

import pytest
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage

from rabbithole.core.config import LLMSettings
from rabbithole.core.errors import ContextWindowExceededError
from rabbithole.llm.context import ContextWindow, context_block, message_text
from rabbithole.llm.tokens import TokenCounter

PASSAGE = (
    "Wer eine fremde bewegliche Sache einem anderen in der Absicht wegnimmt, die Sache sich oder "
    "einem Dritten rechtswidrig zuzueignen, wird mit Freiheitsstrafe bis zu fünf Jahren bestraft. "
)


@pytest.fixture(scope="module")
def counter() -> TokenCounter:
    return TokenCounter().load()


def window(counter: TokenCounter, num_ctx: int = 1024, out: int = 256, how: str = "trim") -> ContextWindow:
    return ContextWindow(counter, num_ctx=num_ctx, max_output_tokens=out, on_overflow=how)  # type: ignore[arg-type]


def passages(n: int) -> list[str]:
    return [f"Passage {i}: {PASSAGE * 3}" for i in range(n)]


def test_a_prompt_that_fits_is_left_alone(counter: TokenCounter) -> None:
    messages: list[BaseMessage] = [SystemMessage("Sei präzise."), HumanMessage("Was ist Diebstahl?")]
    fit = window(counter).fit(messages)
    assert fit.messages == messages
    assert not fit.trimmed
    assert 0 < fit.prompt_tokens <= fit.budget == 1024 - 256


def test_budget_reserves_the_answer(counter: TokenCounter) -> None:
    settings = LLMSettings(num_ctx=4096, max_output_tokens=1000)
    assert ContextWindow.from_settings(settings, counter).budget == 3096
    with pytest.raises(ValueError):
        ContextWindow(counter, num_ctx=1000, max_output_tokens=1000)


def test_refuse_raises_with_the_numbers(counter: TokenCounter) -> None:
    messages = [HumanMessage(context_block(passages(20)) + "\nFrage: Was gilt?")]
    with pytest.raises(ContextWindowExceededError) as caught:
        window(counter, how="refuse").fit(messages)
    assert "num_ctx=1024" in str(caught.value)
    assert "RABBITHOLE_LLM__NUM_CTX" in str(caught.value)


def test_trim_drops_the_lowest_ranked_passages_first(
    counter: TokenCounter, caplog: pytest.LogCaptureFixture
) -> None:
    texts = passages(20)
    messages: list[BaseMessage] = [
        SystemMessage("Antworte nur aus dem Kontext."),
        HumanMessage(context_block(texts, ids=[f"S{i}" for i in range(20)]) + "\nFrage: Was gilt?"),
    ]
    with caplog.at_level(logging.WARNING, logger="rabbithole.llm.context"):
        fit = window(counter).fit(messages)
    kept = message_text(fit.messages[1])
    assert fit.dropped_passages > 0
    assert fit.prompt_tokens <= fit.budget
    assert window(counter).count_messages(fit.messages) == fit.prompt_tokens
    assert 'id="S0"' in kept and "Passage 0:" in kept  # best passage kept
    assert 'id="S19"' not in kept  # worst passage dropped
    assert kept.endswith("Frage: Was gilt?")
    assert fit.messages[0] == messages[0]
    assert "dropped" in caplog.text and "context passages" in caplog.text


def test_trim_drops_the_oldest_history_but_keeps_system_and_last(counter: TokenCounter) -> None:
    history: list[BaseMessage] = []
    for i in range(12):
        history += [HumanMessage(f"Frage {i}: {PASSAGE}"), AIMessage(f"Antwort {i}: {PASSAGE}")]
    messages = [SystemMessage("System"), *history, HumanMessage("Letzte Frage?")]
    fit = window(counter, num_ctx=800, out=200).fit(messages)
    assert fit.dropped_messages > 0
    assert fit.prompt_tokens <= fit.budget
    assert fit.messages[0].content == "System"
    assert fit.messages[-1].content == "Letzte Frage?"
    kept = [message_text(m) for m in fit.messages]
    assert not any(k.startswith("Frage 0:") for k in kept)  # oldest went first
    assert any(k.startswith("Antwort 11:") for k in kept)  # newest history stayed


def test_keep_last_protects_trailing_messages(counter: TokenCounter) -> None:
    big = PASSAGE * 6
    messages: list[BaseMessage] = [HumanMessage(big), AIMessage(big), HumanMessage("korrigiere")]
    fit = window(counter, num_ctx=700, out=100).fit(messages, keep_last=2)
    assert [m.content for m in fit.messages] == [big, "korrigiere"]


def test_a_single_huge_passage_is_shortened_verbatim(counter: TokenCounter) -> None:
    text = PASSAGE * 40
    messages = [HumanMessage(context_block([text]) + "\nFrage: Was gilt?")]
    fit = window(counter).fit(messages)
    kept = message_text(fit.messages[0])
    assert fit.shortened_passages == 1
    assert fit.prompt_tokens <= fit.budget
    body = kept.split("<passage>\n", 1)[1].split(" […]", 1)[0]
    assert text.startswith(body) and len(body) > 100
    assert kept.endswith("Frage: Was gilt?")


def test_trim_refuses_when_nothing_can_go(counter: TokenCounter) -> None:
    messages = [SystemMessage(PASSAGE * 40), HumanMessage("Frage?")]
    with pytest.raises(ContextWindowExceededError, match="even after trimming"):
        window(counter).fit(messages)


def test_context_block_format() -> None:
    block = context_block(["erste", "zweite"], ids=["S1", 'a"b'])
    assert block.startswith("<context>\n") and block.endswith("</context>")
    assert '<passage id="S1">\nerste\n</passage>' in block
    assert 'id="a&quot;b"' in block
    with pytest.raises(ValueError):
        context_block(["x"], ids=[])


def test_multipart_content_is_counted(counter: TokenCounter) -> None:
    parts = HumanMessage(content=[{"type": "text", "text": PASSAGE}, {"type": "image_url", "image_url": "x"}])
    assert message_text(parts) == PASSAGE
    assert window(counter).count_messages([parts]) > counter.count(PASSAGE)
