"""A graph node's structured call (``research.llm_step``) against the fake Ollama: the value, the requests,
the tokens they used (also when the output stays invalid) and the warning for an answer cut at the cap."""

from __future__ import annotations

import asyncio

from pydantic import BaseModel, Field

from rabbithole.devtools.fake_ollama import FakeOllama, RecordedRequest
from rabbithole.devtools.fake_ollama.generation import split_pieces
from rabbithole.llm import LLMClient
from rabbithole.research.llm_step import StepResult, ask, ask_sync, merge_counts


class Facts(BaseModel):
    facts: list[str] = Field(min_length=1)


MANY = {"facts": [f"Fakt {i}: die Frist beträgt {i} Wochen." for i in range(1, 10)]}


def _used(requests: list[RecordedRequest]) -> tuple[int, int]:
    prompt = sum(min(r.prompt_tokens, r.num_ctx or 4096) for r in requests)
    return prompt, sum(len(split_pieces(r.response_text or "")) for r in requests)


def test_a_step_counts_its_requests_and_tokens(fake_ollama: FakeOllama, llm_client: LLMClient) -> None:
    fake_ollama.fault("malformed", times=1)
    step = asyncio.run(ask(llm_client, "extract", Facts, "Welche Fristen gelten?"))
    requests = fake_ollama.model_requests()
    assert step.value is not None and step.requests == 2 and not step.truncated and step.warnings == []
    prompt, output = _used(requests)
    assert (step.prompt_tokens, step.output_tokens) == (prompt, output) and prompt > 0 and output > 0
    assert step.counts() == {"extract": 2}
    assert step.usage() == {"extract.prompt": prompt, "extract.output": output}


def test_a_failed_step_still_counts_what_its_attempts_used(
    fake_ollama: FakeOllama, llm_client: LLMClient
) -> None:
    fake_ollama.fault("invalid", times=None)
    step: StepResult[Facts] = ask_sync(llm_client, "plan", Facts, "Welche Fristen gelten?")
    requests = fake_ollama.model_requests()
    assert step.value is None and step.requests == len(requests) == 3
    assert "plan: the model's output stayed invalid" in step.warnings[0]
    prompt, output = _used(requests)
    assert step.usage() == {"plan.prompt": prompt, "plan.output": output} and prompt > 0


def test_a_cut_answer_is_used_with_a_warning(fake_ollama: FakeOllama) -> None:
    client = LLMClient(fake_ollama.settings(max_output_tokens=24))
    fake_ollama.script(MANY, schema=Facts)
    step = asyncio.run(ask(client, "summary", Facts, "Welche Fristen gelten?"))
    assert step.value is not None and step.truncated and step.requests == 1
    assert step.value.facts == MANY["facts"][: len(step.value.facts)]
    cut = "summary: the answer was cut at the output limit; kept the complete items"
    assert step.warnings == [f"{cut} (1 incomplete item(s) dropped)"]
    sync = ask_sync(client, "summary", Facts, "Welche Fristen gelten?")
    assert sync.value == step.value and sync.truncated
    assert merge_counts(step.usage(), sync.usage()) == {
        "summary.prompt": step.prompt_tokens + sync.prompt_tokens,
        "summary.output": step.output_tokens + sync.output_tokens,
    }
