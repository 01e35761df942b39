"""The fake server speaks Ollama's HTTP API as the `ollama` client and raw HTTP expect it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import httpx
import ollama
import pytest
from pydantic import BaseModel

from rabbithole.devtools.fake_ollama import FakeOllama, FakeOllamaClient
from rabbithole.devtools.fake_ollama.embeddings import cosine


class Plan(BaseModel):
    title: str
    queries: list[str]


def test_root_version_tags_show(fake_ollama: FakeOllama) -> None:
    root = httpx.get(fake_ollama.url + "/")
    assert root.status_code == 200 and root.text == "Ollama is running"
    assert httpx.get(fake_ollama.url + "/api/version").json()["version"]
    client = ollama.Client(host=fake_ollama.url)
    names = [m.model for m in client.list().models]
    assert "qwen3:8b" in names
    shown = client.show("qwen3:8b")
    assert shown.details is not None and shown.details.family == "qwen"
    assert shown.capabilities is not None and "completion" in shown.capabilities
    with pytest.raises(ollama.ResponseError) as missing:
        client.show("nope:1b")
    assert missing.value.status_code == 404 and missing.value.error == "model 'nope:1b' not found"


def test_chat_streams_ndjson_like_ollama(fake_ollama: FakeOllama) -> None:
    body = {"model": "qwen3:8b", "messages": [{"role": "user", "content": "Explain the treaty of Paris."}]}
    with httpx.stream("POST", fake_ollama.url + "/api/chat", json=body) as response:
        assert response.headers["content-type"] == "application/x-ndjson"
        lines = [json.loads(line) for line in response.iter_lines()]
    assert len(lines) > 3
    assert all(line["done"] is False for line in lines[:-1])
    assert all(line["message"]["role"] == "assistant" for line in lines)
    final = lines[-1]
    assert final["done"] is True and final["done_reason"] == "stop" and final["message"]["content"] == ""
    for key in ("total_duration", "load_duration", "prompt_eval_count", "eval_count", "eval_duration"):
        assert isinstance(final[key], int)
    text = "".join(line["message"]["content"] for line in lines)
    whole = httpx.post(fake_ollama.url + "/api/chat", json={**body, "stream": False}).json()
    assert whole["message"]["content"] == text and whole["done"] is True


def test_ollama_client_chat_generate_and_thinking(fake_ollama: FakeOllama) -> None:
    client = ollama.Client(host=fake_ollama.url)
    messages = [{"role": "user", "content": "Question: what is a contract?"}]
    streamed = list(client.chat("qwen3:8b", messages, stream=True, think=True))
    assert streamed[0].message.thinking
    assert streamed[-1].done
    plan = client.chat("qwen3:8b", messages, format=Plan.model_json_schema())
    assert Plan.model_validate_json(plan.message.content or "").queries
    as_json = client.chat("qwen3:8b", messages, format="json")
    assert isinstance(json.loads(as_json.message.content or ""), dict)
    generated = client.generate("qwen3:8b", "Question: what is a contract?", system="Be brief.")
    assert generated.response and generated.done and generated.context
    chunks = list(client.generate("qwen3:8b", "Tell me about contracts", stream=True))
    assert (
        "".join(c.response or "" for c in chunks)
        == client.generate("qwen3:8b", "Tell me about contracts").response
    )
    loaded = client.generate("qwen3:8b", "")
    assert loaded.done_reason == "load"


def test_num_predict_cuts_the_answer(fake_ollama: FakeOllama) -> None:
    client = ollama.Client(host=fake_ollama.url)
    messages = [
        {
            "role": "user",
            "content": "<context>One two three four five six seven eight.</context> Question: count",
        }
    ]
    reply = client.chat("qwen3:8b", messages, options={"num_predict": 3})
    assert reply.done_reason == "length" and reply.eval_count == 3
    assert len((reply.message.content or "").split()) == 3


def test_embed_endpoint(fake_ollama: FakeOllama) -> None:
    client = ollama.Client(host=fake_ollama.url)
    result = client.embed(
        "nomic-embed-text", ["Strafe für Diebstahl", "Diebstahl wird bestraft", "sunny weather"]
    )
    a, b, c = (list(v) for v in result.embeddings)
    assert cosine(a, b) > cosine(a, c)
    assert client.embed("nomic-embed-text", "Strafe für Diebstahl").embeddings[0] == result.embeddings[0]
    assert len(client.embed("nomic-embed-text", "x", dimensions=32).embeddings[0]) == 32
    legacy = httpx.post(fake_ollama.url + "/api/embeddings", json={"model": "bge-m3", "prompt": "x"}).json()
    assert len(legacy["embedding"]) == 384
    with pytest.raises(ollama.ResponseError):
        client.embed("missing-embedder", "x")


def test_unknown_model_is_404_like_ollama(fake_ollama: FakeOllama) -> None:
    response = httpx.post(fake_ollama.url + "/api/chat", json={"model": "nope", "messages": []})
    assert response.status_code == 404
    assert response.json() == {"error": "model 'nope' not found"}
    fake_ollama.set_models(["nope"])
    ok = httpx.post(fake_ollama.url + "/api/chat", json={"model": "nope", "messages": [], "stream": False})
    assert ok.status_code == 200


def test_requests_are_recorded(fake_ollama: FakeOllama) -> None:
    client = ollama.Client(host=fake_ollama.url)
    client.chat(
        "qwen3:8b",
        [{"role": "user", "content": "hi there"}],
        options={"num_ctx": 2048},
        format=Plan.model_json_schema(),
    )
    recorded = fake_ollama.model_requests()[-1]
    assert recorded.num_ctx == 2048
    assert recorded.schema_name == "Plan"
    assert recorded.prompt == "hi there"
    assert recorded.prompt_tokens > 0 and not recorded.truncated
    assert json.loads(recorded.response_text or "")["queries"]


def test_latency_and_http_control(fake_ollama: FakeOllama) -> None:
    control = FakeOllamaClient(fake_ollama.url)
    control.script({"title": "Scripted", "queries": ["q"]}, schema=Plan)
    control.fault("latency", delay_ms=150)
    control.set_latency(50)
    client = ollama.Client(host=fake_ollama.url)
    reply = client.chat("qwen3:8b", [{"role": "user", "content": "x"}], format=Plan.model_json_schema())
    # the delay itself is timed in `make bench` (bench_components); here: the fault was applied
    assert Plan.model_validate_json(reply.message.content or "").title == "Scripted"
    recorded = control.requests
    assert recorded[-1]["schema_name"] == "Plan" and recorded[-1]["faults"] == ["latency"]
    with pytest.raises(TypeError):
        control.script(lambda r: "x")
    bad = httpx.post(fake_ollama.url + "/_fake/faults", json={"kind": "nonsense"})
    assert bad.status_code == 400
    control.reset()
    assert control.requests == [] and fake_ollama.state.latency_ms == 0
    control.close()


def test_openai_compatible_endpoints(fake_ollama: FakeOllama) -> None:
    models = httpx.get(fake_ollama.url + "/v1/models").json()
    assert {"id": "qwen3:8b", "object": "model", "created": 1735689600, "owned_by": "library"} in models[
        "data"
    ]
    body = {
        "model": "qwen3:8b",
        "messages": [{"role": "user", "content": [{"type": "text", "text": "Question: what is a treaty?"}]}],
        "response_format": {
            "type": "json_schema",
            "json_schema": {"name": "Plan", "schema": Plan.model_json_schema()},
        },
    }
    reply = httpx.post(fake_ollama.url + "/v1/chat/completions", json=body).json()
    assert Plan.model_validate_json(reply["choices"][0]["message"]["content"]).queries
    assert reply["usage"]["prompt_tokens"] > 0
    missing = httpx.post(fake_ollama.url + "/v1/chat/completions", json={**body, "model": "gpt-9"})
    assert missing.status_code == 404 and "not found" in missing.json()["error"]["message"]


def test_command_line_server() -> None:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    cmd = [
        sys.executable,
        "-m",
        "rabbithole.devtools.fake_ollama",
        "--port",
        "0",  # a free port, bound by the server and named on its first line
        "--latency-ms",
        "1",
        "--models",
        "tiny:1b",
    ]
    process = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stderr is not None
        first = process.stderr.readline()
        assert first.startswith("fake ollama listening on http://127.0.0.1:"), first
        url = first.split()[-1]
        deadline = time.monotonic() + 20
        while True:
            try:
                if httpx.get(url + "/", timeout=0.5).text == "Ollama is running":
                    break
            except httpx.TransportError:
                pass
            assert process.poll() is None, process.stderr.read()
            assert time.monotonic() < deadline, "the fake server did not start"
            time.sleep(0.05)
        control = FakeOllamaClient(url)
        control.script("scripted answer", prompt_contains="hello")
        reply = ollama.Client(host=url).chat("tiny:1b", [{"role": "user", "content": "hello"}])
        assert reply.message.content == "scripted answer"
        assert control.requests[-1]["model"] == "tiny:1b"
        control.close()
    finally:
        process.terminate()
        process.wait(timeout=10)
