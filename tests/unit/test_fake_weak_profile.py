"""The fake Ollama's "weak" profile: over a research run's requests it reaches every behaviour and leaves
enough well-formed answers; the same request gets the same answer, a retry may differ; streaming carries the
same text; scripts win; reset, the control endpoint and the command line switch it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections import Counter
from typing import Any

import httpx
import pytest

from fixtures.weak_model import ask, first_body, research_requests
from rabbithole.devtools.fake_ollama import FakeOllama, FakeOllamaClient
from rabbithole.devtools.fake_ollama.weak import BEHAVIOURS, PROFILES


def test_a_research_run_meets_every_behaviour_and_enough_well_formed_answers(
    weak_fake_ollama: FakeOllama,
) -> None:
    replies = [ask(weak_fake_ollama, body) for body in research_requests()]
    hits = Counter(b for reply in replies for b in reply.record.weak)
    assert set(hits) == set(BEHAVIOURS), hits
    strict = sum(_parses(reply.content) for reply in replies)
    lenient = sum(_parses(reply.content, strict=False) for reply in replies)
    assert len(replies) == 29 and 0.5 <= strict / len(replies) < 1.0 and lenient > strict
    cut = [r for r in replies if r.done_reason == "length"]
    assert cut and all(len(r.content) == 1500 and "truncation" in r.record.weak for r in cut)
    for reply in replies:  # a behaviour is recorded exactly when it changed the normal answer
        assert (reply.content == _normal(weak_fake_ollama, reply.record.body)) == (not reply.record.weak)


def _parses(text: str, strict: bool = True) -> bool:
    try:
        json.loads(text, strict=strict)
    except json.JSONDecodeError:
        return False
    return True


def _normal(fake: FakeOllama, body: dict[str, Any]) -> str:
    """The normal profile's answer to ``body`` (the weak knobs put back after)."""
    knobs = fake.state.knobs
    fake.set_profile("normal")
    try:
        return ask(fake, {k: v for k, v in body.items() if k != "stream"}).content
    finally:
        fake.state.set_knobs(knobs)


def test_the_same_request_gets_the_same_answer_and_a_retry_may_differ(weak_fake_ollama: FakeOllama) -> None:
    bodies = research_requests()
    first = [ask(weak_fake_ollama, body) for body in bodies]
    again = [ask(weak_fake_ollama, body) for body in bodies]
    assert [(r.content, r.record.weak) for r in first] == [(r.content, r.record.weak) for r in again]
    warmer = [ask(weak_fake_ollama, _with_temperature(body, 0.8)) for body in bodies]
    assert sum(w.record.weak != f.record.weak for w, f in zip(warmer, first, strict=True)) >= 5
    retried = [ask(weak_fake_ollama, _retry(body, r.content)) for body, r in zip(bodies, first, strict=True)]
    assert sum(r.record.weak != f.record.weak for r, f in zip(retried, first, strict=True)) >= 5


def _with_temperature(body: dict[str, Any], temperature: float) -> dict[str, Any]:
    return {**body, "options": {**body.get("options", {}), "temperature": temperature}}


def _retry(body: dict[str, Any], answer: str) -> dict[str, Any]:
    """The request again with the invalid answer and the error, as structured output retries."""
    feedback = {"role": "user", "content": "Your previous answer was not valid. Answer again."}
    return {**body, "messages": [*body["messages"], {"role": "assistant", "content": answer}, feedback]}


def test_streaming_carries_the_same_text(weak_fake_ollama: FakeOllama) -> None:
    for body in research_requests():
        whole = ask(weak_fake_ollama, body)
        streamed = ask(weak_fake_ollama, body, stream=True)
        assert (streamed.content, streamed.done_reason) == (whole.content, whole.done_reason)
        assert streamed.record.weak == whole.record.weak


def test_scripts_win_over_the_weak_profile(weak_fake_ollama: FakeOllama) -> None:
    draft = {"title": "Scripted", "sections": [{"heading": "Grenzwerte", "claims": []}]}
    weak_fake_ollama.script(draft, schema="ReportDraft")
    reply = ask(weak_fake_ollama, first_body("ReportDraft"))
    assert json.loads(reply.content) == draft and reply.record.weak == [] and reply.record.scripted


def test_reset_and_the_control_endpoint(fake_ollama: FakeOllama) -> None:
    body = first_body("ReportDraft")
    normal = ask(fake_ollama, body).content
    control = FakeOllamaClient(fake_ollama.url)
    try:
        state = control.set_profile("weak")
        assert state == {"profile": "weak", "knobs": PROFILES["weak"].to_dict()["knobs"]}
        weak = ask(fake_ollama, body)
        assert weak.content != normal and weak.record.weak
        assert control.set_profile(junk=1.0)["knobs"]["junk"] == 1.0
        assert ask(fake_ollama, body).record.weak == ["junk"]
        shown = httpx.get(fake_ollama.url + "/_fake/state").json()["weak"]
        assert shown["profile"] == "normal" and shown["knobs"]["junk"] == 1.0
        assert shown["knobs"]["truncation"] == 0.0
        for bad in ({"profile": "tiny"}, {"knobs": {"loops": 1}}, {"knobs": {"junk": 2}}, {"mode": "weak"}):
            response = httpx.post(fake_ollama.url + "/_fake/profile", json=bad)
            assert response.status_code == 400, bad
        control.reset()
        again = ask(fake_ollama, body)
        assert again.content == normal and again.record.weak == []
    finally:
        control.close()


def test_command_line_profile_and_knobs() -> None:
    cmd = [sys.executable, "-m", "rabbithole.devtools.fake_ollama", "--port", "0", "--profile", "weak"]
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    bad = subprocess.run([*cmd, "--knob", "loops=1"], env=env, capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "unknown knobs: loops" in bad.stderr
    capped = [*cmd, "--knob", "char_cap=800"]
    process = subprocess.Popen(capped, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stderr is not None
        url = process.stderr.readline().split()[-1]
        state = _wait_for_state(url, process)
        assert state["weak"]["profile"] == "weak" and state["weak"]["knobs"]["char_cap"] == 800
        httpx.post(url + "/_fake/reset", json={}).raise_for_status()  # back to the profile it started with
        assert httpx.get(url + "/_fake/state").json()["weak"] == state["weak"]
    finally:
        process.terminate()
        process.wait(timeout=10)


def _wait_for_state(url: str, process: subprocess.Popen[str]) -> dict[str, Any]:
    deadline = time.monotonic() + 30
    while True:
        try:
            data: dict[str, Any] = httpx.get(url + "/_fake/state", timeout=0.5).json()
            return data
        except httpx.TransportError:
            assert process.poll() is None and time.monotonic() < deadline, "the fake server did not start"
            time.sleep(0.05)


@pytest.mark.parametrize("knob", ["truncation", "char_cap"])
def test_knob_values_are_checked(fake_ollama: FakeOllama, knob: str) -> None:
    with pytest.raises(ValueError):
        fake_ollama.set_profile("weak", **{knob: -1})
