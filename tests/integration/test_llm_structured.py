"""Structured output through the real ChatOllama client against the fake Ollama server."""

from __future__ import annotations

import asyncio
import itertools
import json
from typing import Literal

import pytest
from langchain_core.messages import HumanMessage, SystemMessage
from pydantic import BaseModel, Field

from rabbithole.core.errors import LLMOutputError
from rabbithole.devtools.fake_ollama import FakeOllama, RecordedRequest
from rabbithole.devtools.fake_ollama.generation import split_pieces
from rabbithole.llm import LLMClient, context_block
from rabbithole.llm.structured import extract_json


class Evidence(BaseModel):
    quote: str
    source_id: str


class Finding(BaseModel):
    title: str
    language: Literal["de", "en"]
    answer: str
    evidence: list[Evidence] = Field(min_length=1, max_length=2)
    confidence: float = Field(ge=0, le=1)


PASSAGES = [
    "Ein Mietvertrag kann von beiden Parteien mit einer Frist von drei Monaten gekündigt werden.",
    "Die Kündigung des Mietvertrags bedarf der schriftlichen Form.",
]
MESSAGES = [
    SystemMessage("Du beantwortest Fragen nur aus dem Kontext."),
    HumanMessage(context_block(PASSAGES, ids=["S1", "S2"]) + "\n\nFrage: Welche Form braucht die Kündigung?"),
]


def test_round_trip_gives_a_valid_grounded_instance(fake_ollama: FakeOllama, llm_client: LLMClient) -> None:
    result = llm_client.structured_result(Finding, MESSAGES)
    finding = result.value
    assert isinstance(finding, Finding)
    assert result.attempts == 1 and result.model == "qwen3:8b"
    assert finding.language == "de"
    assert finding.evidence[0].quote == "Die Kündigung des Mietvertrags bedarf der schriftlichen Form."
    assert finding.evidence[0].source_id == "S2"
    request = fake_ollama.model_requests()[-1]
    assert request.format == Finding.model_json_schema()  # the JSON schema went as `format`
    assert request.options["num_ctx"] == llm_client.settings.num_ctx
    assert request.options["num_predict"] == llm_client.settings.max_output_tokens
    assert request.options["temperature"] == llm_client.settings.temperature
    system = request.messages[0]["content"]
    assert system.startswith("Du beantwortest")  # the schema's shape in the prompt, not the whole schema
    assert '"evidence": [{"quote": string, "source_id": string}] (1-2 items)' in system
    assert "Finding" not in system and '"type": "object"' not in system  # no class name, no schema text


def test_the_full_schema_in_the_prompt_when_configured(fake_ollama: FakeOllama) -> None:
    client = LLMClient(fake_ollama.settings(schema_prompt="full"))
    assert isinstance(client.structured_result(Finding, MESSAGES).value, Finding)
    request = fake_ollama.model_requests()[-1]
    assert request.format == Finding.model_json_schema()
    assert json.dumps(Finding.model_json_schema(), ensure_ascii=False) in request.messages[0]["content"]


def test_same_prompt_same_instance(llm_client: LLMClient) -> None:
    assert llm_client.structured(Finding, MESSAGES) == llm_client.structured(Finding, MESSAGES)


def test_async_variant(llm_client: LLMClient) -> None:
    async def both() -> tuple[Finding, Finding]:
        return await asyncio.gather(
            llm_client.astructured(Finding, MESSAGES), llm_client.astructured(Finding, MESSAGES)
        )

    first, second = asyncio.run(both())
    assert first == second == llm_client.structured(Finding, MESSAGES)


@pytest.mark.parametrize("kind", ["malformed", "invalid"])
def test_retries_recover_and_feed_the_error_back(
    fake_ollama: FakeOllama, llm_client: LLMClient, kind: str
) -> None:
    fake_ollama.fault(kind, times=2)  # type: ignore[arg-type]
    result = llm_client.structured_result(Finding, MESSAGES)
    assert result.attempts == 3
    requests = fake_ollama.model_requests()
    assert [r.faults for r in requests] == [[kind], [kind], []]
    retry = requests[1].messages
    assert retry[-2]["role"] == "assistant" and retry[-2]["content"] == requests[0].response_text
    assert retry[-1]["role"] == "user" and "not a valid Finding" in retry[-1]["content"]
    expected = "not valid JSON" if kind == "malformed" else "does not match the schema"
    assert expected in retry[-1]["content"]
    assert "length limit" not in retry[-1]["content"]  # not cut: no request for a shorter answer
    # a retry at the same temperature repeats a small model's failure: each retry raises it
    assert [r.options["temperature"] for r in requests] == [0.0, 0.3, 0.6]
    assert all(r.options["num_ctx"] == requests[0].options["num_ctx"] for r in requests)
    assert all(r.options["num_predict"] == requests[0].options["num_predict"] for r in requests)


def test_gives_up_after_the_bound(fake_ollama: FakeOllama, llm_client: LLMClient) -> None:
    fake_ollama.fault("invalid", times=None)
    with pytest.raises(LLMOutputError) as caught:
        llm_client.structured(Finding, MESSAGES)
    assert "Finding" in str(caught.value) and "3 attempt" in str(caught.value)
    assert "does not match the schema" in str(caught.value)
    assert len(fake_ollama.model_requests()) == 1 + llm_client.settings.structured_retries


def test_retry_bound_is_configurable(fake_ollama: FakeOllama) -> None:
    fake_ollama.fault("malformed", times=None)
    client = LLMClient(fake_ollama.settings(structured_retries=0))
    with pytest.raises(LLMOutputError, match="1 attempt"):
        client.structured(Finding, MESSAGES)
    with pytest.raises(LLMOutputError):
        asyncio.run(client.astructured(Finding, MESSAGES, retries=1))
    assert len(fake_ollama.model_requests()) == 3


def test_scripted_answers_by_schema_prompt_and_callable(
    fake_ollama: FakeOllama, llm_client: LLMClient
) -> None:
    scripted = Finding(
        title="T", language="en", answer="A", evidence=[Evidence(quote="q", source_id="S1")], confidence=1
    )
    fake_ollama.script(scripted, schema=Finding)
    assert llm_client.structured(Finding, MESSAGES) == scripted

    def by_request(request: RecordedRequest) -> dict[str, object]:
        return {**scripted.model_dump(), "title": f"{len(request.messages)} messages"}

    fake_ollama.script(by_request, prompt_contains="schriftlichen Form", times=1)
    assert llm_client.structured(Finding, MESSAGES).title == "2 messages"
    assert llm_client.structured(Finding, MESSAGES) == scripted  # `times` used up


def test_a_scripted_wrong_answer_is_never_accepted(fake_ollama: FakeOllama, llm_client: LLMClient) -> None:
    fake_ollama.script({"title": "only a title"}, schema="Finding")
    with pytest.raises(LLMOutputError, match="evidence"):
        llm_client.structured(Finding, MESSAGES)


def test_extract_json_tolerates_think_blocks_fences_and_prose() -> None:
    assert extract_json('<think>hmm {"no": 1}</think>\n{"a": 1}') == {"a": 1}
    assert extract_json('```json\n{"a": [1, 2]}\n```') == {"a": [1, 2]}
    assert extract_json('Here you go: {"a": {"b": 2}} Hope it helps.') == {"a": {"b": 2}}
    with pytest.raises(ValueError):
        extract_json("no json here")


class Summary(BaseModel):
    findings: list[str] = Field(min_length=1)
    gaps: list[str] = Field(default_factory=list)


#: A long answer: 8 findings of 7 words each (the fake cuts its answers at num_predict words).
LONG = {"findings": [f"Befund {i}: der Grenzwert beträgt {i} Millisievert." for i in range(1, 9)], "gaps": []}
SHORT = {"findings": ["Der Grenzwert beträgt 1 Millisievert."]}


def _used(requests: list[RecordedRequest]) -> tuple[int, int]:
    """Prompt and output tokens the fake reported for these requests."""
    prompt = sum(min(r.prompt_tokens, r.num_ctx or 4096) for r in requests)
    return prompt, sum(len(split_pieces(r.response_text or "")) for r in requests)


def test_raw_control_characters_inside_strings_are_read(
    fake_ollama: FakeOllama, llm_client: LLMClient
) -> None:
    fake_ollama.script('{"findings": ["Zeile 1\nZeile 2\tmit Tab"]}', schema=Summary)
    result = llm_client.structured_result(Summary, "Fasse zusammen.")
    assert result.value.findings == ["Zeile 1\nZeile 2\tmit Tab"]
    assert result.attempts == 1 and not result.truncated


def test_an_answer_cut_at_the_output_cap_keeps_its_complete_items(fake_ollama: FakeOllama) -> None:
    client = LLMClient(fake_ollama.settings(max_output_tokens=30))
    fake_ollama.script(LONG, schema=Summary)
    result = client.structured_result(Summary, "Fasse zusammen.")
    [request] = fake_ollama.model_requests()
    assert request.response_text is not None and len(split_pieces(request.response_text)) == 30
    assert result.attempts == 1 and result.truncated
    kept = result.value.findings
    assert 1 <= len(kept) < len(LONG["findings"]) and kept == LONG["findings"][: len(kept)]
    assert result.dropped_items == 1  # the finding the cut went through
    assert (result.prompt_tokens, result.output_tokens) == _used([request])


def test_a_retry_of_a_cut_answer_asks_for_less_at_a_higher_temperature(fake_ollama: FakeOllama) -> None:
    client = LLMClient(fake_ollama.settings(max_output_tokens=16))
    fake_ollama.script(SHORT, schema=Summary)
    fake_ollama.script({"findings": [" ".join(["Strahlenschutz"] * 40)]}, schema=Summary, times=2)
    result = client.structured_result(Summary, "Fasse zusammen.")
    requests = fake_ollama.model_requests()
    assert result.attempts == 3 and not result.truncated and result.value == Summary.model_validate(SHORT)
    assert [r.options["temperature"] for r in requests] == [0.0, 0.3, 0.6]
    assert [r.options["num_predict"] for r in requests] == [16, 16, 16]
    for previous, retry in itertools.pairwise(requests):
        feedback = retry.messages[-1]["content"]
        assert previous.response_text is not None
        assert f"cut at the length limit after {len(previous.response_text)} characters" in feedback
        assert "fewer and shorter items" in feedback and "not a valid Summary" in feedback
    assert "length limit" not in requests[0].prompt
    assert (result.prompt_tokens, result.output_tokens) == _used(requests)


def test_a_failure_carries_its_attempts_and_tokens(fake_ollama: FakeOllama, llm_client: LLMClient) -> None:
    fake_ollama.fault("invalid", times=None)
    with pytest.raises(LLMOutputError) as caught:
        asyncio.run(llm_client.astructured(Summary, "Fasse zusammen."))
    requests = fake_ollama.model_requests()
    assert caught.value.attempts == len(requests) == 3
    assert (caught.value.prompt_tokens, caught.value.output_tokens) == _used(requests)
    assert caught.value.prompt_tokens > 0 and caught.value.output_tokens > 0


def test_an_openai_compatible_retry_sends_a_higher_temperature(fake_ollama: FakeOllama) -> None:
    client = LLMClient(fake_ollama.openai_settings())
    fake_ollama.fault("invalid", times=1)
    assert client.structured(Summary, "Fasse zusammen.").findings
    requests = fake_ollama.model_requests()
    assert [r.path for r in requests] == ["/v1/chat/completions"] * 2
    assert [r.body.get("temperature") for r in requests] == [0.0, 0.3]
