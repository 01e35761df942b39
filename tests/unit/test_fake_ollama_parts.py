"""Fake Ollama building blocks: embeddings, faults, scripts, prompt reading."""

from __future__ import annotations

import math

import pytest

from rabbithole.devtools.fake_ollama import FakeState, Fault, RecordedRequest, Script, embed_text
from rabbithole.devtools.fake_ollama.embeddings import cosine
from rabbithole.devtools.fake_ollama.text import detect_language, find_ids


def test_embeddings_are_deterministic_unit_vectors() -> None:
    a = embed_text("Die Strafe für Diebstahl beträgt fünf Jahre.")
    assert a == embed_text("Die Strafe für Diebstahl beträgt fünf Jahre.")
    assert len(a) == 384
    assert math.isclose(math.sqrt(sum(x * x for x in a)), 1.0, rel_tol=1e-9)
    assert len(embed_text("x", dim=64)) == 64
    assert math.isclose(sum(v * v for v in embed_text("")), 1.0)


def test_similar_texts_are_closer() -> None:
    query = embed_text("Strafe für Diebstahl")
    near = embed_text("Die Strafe für einen Diebstahl ist Freiheitsstrafe.")
    inflected = embed_text("Diebstahls Strafen")
    far = embed_text("The weather in Lisbon is sunny and warm today.")
    assert cosine(query, near) > cosine(query, far) + 0.2
    assert cosine(query, inflected) > cosine(query, far)


def test_fault_times_and_seeded_probability() -> None:
    once = Fault("error", times=2)
    assert [once.draw() for _ in range(4)] == [True, True, False, False]
    draws = [Fault("drop", times=None, probability=0.5, seed=7) for _ in range(2)]
    sequences = [[f.draw() for _ in range(40)] for f in draws]
    assert sequences[0] == sequences[1]  # same seed, same sequence
    assert 5 < sum(sequences[0]) < 35
    with pytest.raises(ValueError):
        Fault("explode")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        Fault.from_dict({"kind": "error", "bogus": 1})


def test_faults_match_path_and_model() -> None:
    state = FakeState()
    state.add_fault(Fault("error", path="/api/embed"))
    state.add_fault(Fault("latency", delay_ms=5, model="qwen3:4b", times=None))
    assert state.draw_faults("/api/chat", "qwen3:8b").kinds == []
    assert state.draw_faults("/api/chat", "qwen3:4b").latency_s == pytest.approx(0.005)
    assert state.draw_faults("/api/embed", "bge-m3").error is not None
    assert state.draw_faults("/api/tags", None).kinds == []  # not a model endpoint


def test_scripts_match_latest_first_and_count_times() -> None:
    state = FakeState()
    request = RecordedRequest(
        "POST",
        "/api/chat",
        {
            "model": "qwen3:8b",
            "format": {"title": "Plan"},
            "messages": [{"role": "user", "content": "plan a trip"}],
        },
        "qwen3:8b",
    )
    state.add_script(Script({"a": 1}, schema="Plan"))
    state.add_script(Script("second", prompt_contains="trip", times=1))
    state.add_script(Script("never", schema="Other"))
    first = state.take_script(request)
    assert first is not None and first.render(request) == "second"
    again = state.take_script(request)
    assert again is not None and again.render(request) == '{"a": 1}'
    state.reset()
    assert state.take_script(request) is None


def test_models_are_normalized() -> None:
    state = FakeState(models=["llama3", "qwen3:8b"])
    assert state.has_model("llama3:latest") and state.has_model("llama3")
    assert not state.has_model("qwen3")  # means qwen3:latest
    state.set_models(["x"])
    assert state.model_list() == ["x:latest"]
    state.reset()
    assert state.has_model("qwen3:8b")


def test_language_and_ids() -> None:
    assert detect_language("Was gilt für die Kündigung des Mietvertrags?") == "de"
    assert detect_language("What applies to the termination of the lease?") == "en"
    text = '<passage id="doc-1#p3">x</passage> see [S2] and [4]; source_id: abc.pdf'
    assert find_ids(text) == ["doc-1#p3", "S2", "4", "abc.pdf"]
