"""LLMClient against the fake Ollama server over HTTP, with the real ChatOllama/ChatOpenAI clients."""

from __future__ import annotations

import asyncio

import pytest
from langchain_core.messages import HumanMessage, SystemMessage
from pydantic import BaseModel

from rabbithole.core.config import LLMSettings
from rabbithole.core.errors import ContextWindowExceededError, LLMError, LLMUnavailableError
from rabbithole.devtools.fake_ollama import FakeOllama
from rabbithole.llm import LLMClient, context_block

QUESTION = [
    SystemMessage("Answer from the context only."),
    HumanMessage(
        context_block(
            ["The treaty was signed in Paris in 1951.", "It entered into force in 1952 after ratification."],
            ids=["S1", "S2"],
        )
        + "\nQuestion: When did the treaty enter into force?"
    ),
]
LONG_PASSAGE = "The committee discussed the budget, the schedule and the staffing plan in great detail. " * 12


class Plan(BaseModel):
    title: str
    queries: list[str]


def test_invoke_answers_from_the_context_and_sends_the_options(
    fake_ollama: FakeOllama, llm_client: LLMClient
) -> None:
    reply = llm_client.invoke(QUESTION)
    assert "It entered into force in 1952 after ratification. [S2]" in str(reply.content)
    assert reply.response_metadata["rabbithole_model"] == "qwen3:8b"
    request = fake_ollama.model_requests()[-1]
    assert request.options == {"num_ctx": 8192, "num_predict": 2048, "temperature": 0.0}
    assert request.body["stream"] is True  # ChatOllama streams, also for invoke
    assert not request.truncated


def test_streaming_yields_the_same_text_in_pieces(llm_client: LLMClient) -> None:
    pieces = list(llm_client.stream(QUESTION))
    assert len(pieces) > 5
    assert "".join(pieces) == llm_client.invoke(QUESTION).content

    async def collect() -> list[str]:
        return [piece async for piece in llm_client.astream(QUESTION)]

    assert asyncio.run(collect()) == pieces
    assert asyncio.run(llm_client.ainvoke(QUESTION)).content == "".join(pieces)


def test_fallback_model_is_used_when_the_primary_is_missing(fake_ollama: FakeOllama) -> None:
    client = LLMClient(fake_ollama.settings(model="qwen3:32b", fallback_model="qwen3:4b"))
    reply = client.invoke("Question: what is a treaty?")
    assert reply.response_metadata["rabbithole_model"] == "qwen3:4b"
    assert [(r.model, r.status) for r in fake_ollama.model_requests()] == [
        ("qwen3:32b", 404),
        ("qwen3:4b", 200),
    ]
    assert client.structured(Plan, "Question: what is a treaty?").queries
    assert "".join(client.stream("Question: what is a treaty?"))
    assert [r.model for r in fake_ollama.model_requests()][2:] == [
        "qwen3:4b",
        "qwen3:4b",
    ]  # primary skipped now


def test_unavailable_when_neither_model_exists(fake_ollama: FakeOllama) -> None:
    client = LLMClient(fake_ollama.settings(model="qwen3:32b", fallback_model="llama9"))
    with pytest.raises(LLMUnavailableError) as caught:
        client.invoke("hello")
    message = str(caught.value)
    assert "neither model 'qwen3:32b' nor fallback 'llama9'" in message
    assert "`ollama pull qwen3:32b`" in message and fake_ollama.url in message
    with pytest.raises(LLMUnavailableError):
        list(client.stream("hello"))


def test_unavailable_when_the_server_is_down(dead_llm_url: str) -> None:
    client = LLMClient(LLMSettings(base_url=dead_llm_url, fallback_model="qwen3:4b", request_timeout_s=5))
    for call in (
        lambda: client.invoke("hi"),
        lambda: list(client.stream("hi")),
        lambda: client.structured(Plan, "hi"),
    ):
        with pytest.raises(LLMUnavailableError) as caught:
            call()
        assert f"cannot reach Ollama at {dead_llm_url}" in str(caught.value)
        assert "ollama serve" in str(caught.value)
    status = client.probe(timeout_s=1)
    assert not status.reachable and not status.usable


def test_ollama_host_is_honoured(fake_ollama: FakeOllama, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OLLAMA_HOST", f"{fake_ollama.host}:{fake_ollama.port}")
    settings = LLMSettings()
    assert settings.base_url is None
    client = LLMClient(settings)
    assert client.base_url == fake_ollama.url
    client.invoke("Question: hello?")
    assert len(fake_ollama.model_requests()) == 1


def test_probe_lists_models(fake_ollama: FakeOllama) -> None:
    status = LLMClient(fake_ollama.settings(model="qwen3", fallback_model="qwen3:4b")).probe()
    assert status.reachable and "qwen3:8b" in status.models
    assert status.primary_available is False and status.fallback_available is True and status.usable
    fake_ollama.set_models(["qwen3"])
    assert LLMClient(fake_ollama.settings(model="qwen3")).probe().primary_available


def test_a_prompt_that_does_not_fit_is_trimmed(fake_ollama: FakeOllama) -> None:
    client = LLMClient(fake_ollama.settings(num_ctx=1024, max_output_tokens=256))
    passages = [f"Passage {i}. {LONG_PASSAGE}" for i in range(12)]
    messages = [SystemMessage("Be brief."), HumanMessage(context_block(passages) + "\nQuestion: budget?")]
    reply = client.invoke(messages)
    assert reply.response_metadata["rabbithole_trimmed"] is True
    request = fake_ollama.model_requests()[-1]
    sent = request.messages[1]["content"]
    assert "Passage 0." in sent and "Passage 11." not in sent and sent.endswith("Question: budget?")
    assert request.prompt_tokens + 256 <= 1024  # the server's own count: nothing silently cut
    assert not request.truncated


def test_a_prompt_that_does_not_fit_is_refused(fake_ollama: FakeOllama) -> None:
    client = LLMClient(fake_ollama.settings(num_ctx=1024, max_output_tokens=256, on_overflow="refuse"))
    with pytest.raises(ContextWindowExceededError, match="num_ctx=1024"):
        client.invoke([HumanMessage(LONG_PASSAGE * 4)])
    with pytest.raises(ContextWindowExceededError):
        client.structured(Plan, [HumanMessage(LONG_PASSAGE * 4)])
    assert fake_ollama.model_requests() == []  # refused before sending


def test_http_500_is_a_domain_error(fake_ollama: FakeOllama, llm_client: LLMClient) -> None:
    fake_ollama.fault("error", message="CUDA out of memory", times=2)
    with pytest.raises(LLMError) as caught:
        llm_client.invoke("hi")
    assert not isinstance(caught.value, LLMUnavailableError)
    assert "CUDA out of memory (HTTP 500)" in str(caught.value)
    with pytest.raises(LLMError, match="CUDA out of memory"):
        llm_client.structured(Plan, "hi")  # a server failure is not retried as bad output
    assert llm_client.invoke("hi").content  # and the next call works


@pytest.mark.parametrize("after_chunks", [0, 3])
def test_dropped_connection_is_a_domain_error(
    fake_ollama: FakeOllama, llm_client: LLMClient, after_chunks: int
) -> None:
    fake_ollama.fault("drop", after_chunks=after_chunks, times=3)
    with pytest.raises(LLMError, match="broke off mid-response"):
        llm_client.invoke(QUESTION)
    with pytest.raises(LLMError, match="broke off mid-response"):
        list(llm_client.stream(QUESTION))

    async def consume() -> None:
        async for _ in llm_client.astream(QUESTION):
            pass

    with pytest.raises(LLMError, match="broke off mid-response"):
        asyncio.run(consume())


def test_error_in_the_middle_of_a_stream(fake_ollama: FakeOllama, llm_client: LLMClient) -> None:
    fake_ollama.fault("stream_error", after_chunks=2, message="runner crashed")
    received: list[str] = []
    with pytest.raises(LLMError, match="runner crashed"):
        for piece in llm_client.stream(QUESTION):
            received.append(piece)
    assert len(received) == 2


def test_slow_chunks_hit_the_timeout_instead_of_hanging(fake_ollama: FakeOllama) -> None:
    client = LLMClient(fake_ollama.settings(request_timeout_s=0.3))
    fake_ollama.fault("slow", delay_ms=1500)
    with pytest.raises(LLMUnavailableError, match=r"did not answer within 0\.3s"):
        client.invoke(QUESTION)  # how soon it gives up is timed in `make bench` (bench_components)
    fake_ollama.fault("slow", delay_ms=20)
    assert client.invoke(QUESTION).content  # slow but within the timeout per chunk


def test_global_latency(fake_ollama: FakeOllama) -> None:
    fake_ollama.set_latency(600)  # longer than the client waits: the latency is applied to every answer
    with pytest.raises(LLMUnavailableError, match=r"did not answer within 0\.3s"):
        LLMClient(fake_ollama.settings(request_timeout_s=0.3)).invoke("hi")
    fake_ollama.set_latency(0)
    assert LLMClient(fake_ollama.settings(request_timeout_s=0.3)).invoke("hi").content


def test_probabilistic_faults_are_reproducible(fake_ollama: FakeOllama, llm_client: LLMClient) -> None:
    def outcomes() -> list[bool]:
        fake_ollama.reset()
        fake_ollama.fault("error", times=None, probability=0.5, seed=3)
        results = []
        for _ in range(12):
            try:
                llm_client.invoke("hi")
                results.append(True)
            except LLMError:
                results.append(False)
        return results

    first = outcomes()
    assert first == outcomes()
    assert 0 < sum(first) < 12


def test_openai_compatible_provider(fake_ollama: FakeOllama) -> None:
    client = LLMClient(fake_ollama.openai_settings())
    plan = client.structured(Plan, QUESTION)
    assert plan.queries
    request = fake_ollama.model_requests("/v1/chat/completions")[-1]
    assert request.schema_name == "Plan"
    assert request.body["max_tokens"] == request.body["max_completion_tokens"] == 2048
    assert "".join(client.stream(QUESTION)) == client.invoke(QUESTION).content
    assert client.probe().primary_available


def test_openai_compatible_fallback_and_errors(fake_ollama: FakeOllama, dead_llm_url: str) -> None:
    client = LLMClient(fake_ollama.openai_settings(model="gpt-9", fallback_model="qwen3:4b"))
    assert client.invoke("hi").response_metadata["rabbithole_model"] == "qwen3:4b"
    fake_ollama.fault("error", message="overloaded")
    with pytest.raises(LLMError, match="overloaded"):
        client.invoke("hi")
    fake_ollama.fault("drop", after_chunks=2)
    with pytest.raises(LLMError, match="broke off"):
        list(client.stream("hi"))
    down = LLMClient(LLMSettings(provider="openai", base_url=dead_llm_url + "/v1"))
    with pytest.raises(LLMUnavailableError, match="cannot reach the OpenAI-compatible server"):
        down.invoke("hi")
    missing = LLMClient(fake_ollama.openai_settings(model="gpt-9"))
    with pytest.raises(LLMUnavailableError, match="model 'gpt-9' is not served"):
        missing.invoke("hi")
