"""The Chroma vector store against a real embedded Chroma and a real `chroma run` server."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from fixtures.chroma_server import ChromaServer
from rabbithole.core.config import StorageSettings, VectorSettings
from rabbithole.core.errors import (
    CollectionNotFoundError,
    EmbeddingModelMismatchError,
    StoreError,
    VectorStoreUnavailableError,
)
from rabbithole.core.models import Chunk
from rabbithole.retrieval.filters import SearchFilters, section_key
from rabbithole.store.chroma_store import ChromaStore, chroma_collection_name, chunk_metadata


class FakeModel:
    def __init__(self, model_id: str = "test-model@1", dim: int = 8) -> None:
        self.model_id = model_id
        self.dim = dim


def make_chunks(document: str, n: int, collection: str = "c", section: str | None = "§ 1") -> list[Chunk]:
    return [
        Chunk(
            id=f"{collection}:{document}:{i}",
            collection=collection,
            document=document,
            ordinal=i,
            text=f"{document} chunk {i}",
            start=i * 100,
            end=i * 100 + 120,
            page=1 + i,
            page_end=2 + i,
            section=section if i % 2 == 0 else None,
            heading=f"Heading {i}",
        )
        for i in range(n)
    ]


def unit_vectors(n: int, dim: int = 8, seed: int = 0) -> np.ndarray:
    vectors = np.random.default_rng(seed).standard_normal((n, dim)).astype(np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


@pytest.fixture(autouse=True)
def no_default_embedding_function(monkeypatch: pytest.MonkeyPatch) -> None:
    """Chroma's default embedding function downloads a model: it must never be called."""
    from chromadb.api.types import DefaultEmbeddingFunction

    def refuse(self: object, input: object) -> None:
        raise AssertionError("Chroma's default embedding function was called")

    monkeypatch.setattr(DefaultEmbeddingFunction, "__call__", refuse)


@pytest.fixture(params=["embedded", "server"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[ChromaStore]:
    """The store both ways: embedded in tmp_path, and a database of its own on the session's Chroma
    server (tests/fixtures/chroma_server.py)."""
    vectors = request.getfixturevalue("chroma_vectors") if request.param == "server" else None
    store = ChromaStore.from_settings(StorageSettings(data_dir=tmp_path), vectors)
    yield store
    store.close()


def test_collection_names_are_valid_and_distinct() -> None:
    names = [
        "Gesetze",
        "A B",
        "A-B",
        "a b",
        "ü",
        "x" * 200,
        "..",
        "192.168.0.1",
        "Strahlenschutz/Verordnungen",
    ]
    chroma = [chroma_collection_name(n) for n in names]
    assert len(set(chroma)) == len(names)
    for name in chroma:
        assert 3 <= len(name) <= 63
        assert name[0].isalnum() and name[-1].isalnum()
        assert ".." not in name
        assert set(name) <= set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")
    assert chroma_collection_name("Gesetze") == chroma_collection_name("Gesetze")
    assert chroma_collection_name("Gesetze").startswith("rh_Gesetze_")


def test_create_upsert_count_query(store: ChromaStore) -> None:
    model = FakeModel()
    vectors = store.open("Gesetze & Verordnungen", model, create=True)
    chunks = make_chunks("AtG.pdf", 6)
    embeddings = unit_vectors(6)
    vectors.upsert(chunks, embeddings)
    assert vectors.count() == 6
    vectors.upsert(chunks[:2], embeddings[:2])  # upsert replaces, no duplicates
    assert vectors.count() == 6

    matches = vectors.query(embeddings[3], 3)
    assert matches[0].id == chunks[3].id
    assert matches[0].similarity == pytest.approx(1.0, abs=1e-4)
    assert [m.distance for m in matches] == sorted(m.distance for m in matches)
    assert len(vectors.query(embeddings[0], 100)) == 6  # n above the count is fine
    assert vectors.query(embeddings[0], 0) == []

    info = store.list_collections()
    assert [(i.name, i.model_id, i.dim, i.count) for i in info] == [
        ("Gesetze & Verordnungen", "test-model@1", 8, 6)
    ]
    assert store.collection_names() == ["Gesetze & Verordnungen"]


def test_metadata_stored_and_text_left_to_the_catalog(store: ChromaStore) -> None:
    vectors = store.open("c", FakeModel(), create=True)
    chunk = make_chunks("AtG.pdf", 2)[1]
    assert chunk.section is None
    vectors.upsert([chunk], unit_vectors(1))
    raw = store.client.get_collection(chroma_collection_name("c"), embedding_function=None).get(
        ids=[chunk.id], include=["metadatas", "documents"]
    )
    assert raw["documents"] == [None]  # the catalog holds the text: no second copy to index
    assert raw["metadatas"][0] == chunk_metadata(chunk)
    assert raw["metadatas"][0] == {"document": "AtG.pdf", "page": 2, "page_end": 3, "section_key": ""}
    assert chunk_metadata(make_chunks("x", 1)[0])["section_key"] == section_key("§ 1") == "§1"


def test_filters_translate_to_chroma_where(store: ChromaStore) -> None:
    vectors = store.open("c", FakeModel(), create=True)
    chunks = make_chunks("AtG.pdf", 6) + make_chunks("StrlSchG.pdf", 6, section="§ 80")
    embeddings = unit_vectors(12)
    vectors.upsert(chunks, embeddings)
    query = embeddings[0]

    def ids(filters: SearchFilters) -> set[str]:
        return {m.id for m in vectors.query(query, 50, filters.to_chroma_where())}

    assert SearchFilters().to_chroma_where() is None
    assert ids(SearchFilters.create(documents="AtG.pdf")) == {c.id for c in chunks[:6]}
    assert ids(SearchFilters.create(documents=["AtG.pdf", "StrlSchG.pdf"])) == {c.id for c in chunks}
    assert ids(SearchFilters.create(documents=["Nope.pdf"])) == set()
    assert ids(SearchFilters.create(sections="§80")) == {c.id for c in chunks[6:] if c.section == "§ 80"}
    assert ids(SearchFilters.create(sections=["§ 1", "§ 80"])) == {c.id for c in chunks if c.section}
    # pages [page, page_end] = [1+i, 2+i]; range 3..4 overlaps i = 1, 2, 3
    expected = {c.id for c in chunks if c.page <= 4 and c.page_end >= 3}
    assert ids(SearchFilters.create(page_from=3, page_to=4)) == expected
    assert {c.ordinal for c in chunks if c.id in expected} == {1, 2, 3}
    assert ids(SearchFilters.create(page_from=6)) == {c.id for c in chunks if c.page_end >= 6}
    combined = SearchFilters.create(documents="StrlSchG.pdf", sections="§ 80", page_to=3)
    assert ids(combined) == {c.id for c in chunks[6:] if c.section and c.page <= 3}


def test_delete_document_and_collection(store: ChromaStore) -> None:
    vectors = store.open("c", FakeModel(), create=True)
    vectors.upsert(make_chunks("a.pdf", 3) + make_chunks("b.pdf", 4), unit_vectors(7))
    assert vectors.documents() == {"a.pdf": 3, "b.pdf": 4}
    assert vectors.delete_document("a.pdf") == 3
    assert vectors.delete_document("a.pdf") == 0
    assert vectors.count() == 4
    assert set(vectors.ids()) == {c.id for c in make_chunks("b.pdf", 4)}
    assert store.delete_collection("c") is True
    assert store.delete_collection("c") is False
    assert not store.exists("c")
    with pytest.raises(CollectionNotFoundError):
        store.open("c")


def test_unknown_collection_lists_the_known_ones(store: ChromaStore) -> None:
    store.open("Gesetze", FakeModel(), create=True)
    with pytest.raises(CollectionNotFoundError, match="known: Gesetze"):
        store.open("Normen", FakeModel())
    with pytest.raises(ValueError):
        store.open("Normen", None, create=True)


def test_model_mismatch_is_refused(store: ChromaStore) -> None:
    store.open("c", FakeModel("use-multilingual-v3@x", 512), create=True)
    with pytest.raises(EmbeddingModelMismatchError, match=r"re-index|--reindex") as err:
        store.open("c", FakeModel("sentence-transformers:all-MiniLM-L6-v2", 384))
    assert err.value.indexed_with == "use-multilingual-v3@x"
    assert err.value.configured == "sentence-transformers:all-MiniLM-L6-v2"
    with pytest.raises(EmbeddingModelMismatchError, match="1024-d"):
        store.open("c", FakeModel("use-multilingual-v3@x", 1024))
    # create=True on an existing collection does not overwrite its identity either
    with pytest.raises(EmbeddingModelMismatchError):
        store.open("c", FakeModel("other", 512), create=True)
    # without an embedder there is no check (counting, deleting)
    assert store.open("c").model_id == "use-multilingual-v3@x"


def test_wrong_shapes_are_rejected(store: ChromaStore) -> None:
    vectors = store.open("c", FakeModel(dim=8), create=True)
    chunks = make_chunks("a.pdf", 2)
    with pytest.raises(ValueError, match="expected 2 embeddings"):
        vectors.upsert(chunks, unit_vectors(3))
    with pytest.raises(ValueError, match="8-d"):
        vectors.upsert(chunks, unit_vectors(2, dim=4))
    with pytest.raises(ValueError, match="8-d"):
        vectors.query(np.ones(4, dtype=np.float32), 3)
    vectors.upsert([], np.zeros((0, 8), dtype=np.float32))
    assert vectors.count() == 0
    assert vectors.query(np.ones(8, dtype=np.float32), 3) == []


def test_batches_above_the_chroma_limit(store: ChromaStore) -> None:
    store._max_batch = 7  # exercise the batching without writing thousands of vectors
    vectors = store.open("c", FakeModel(), create=True)
    chunks = make_chunks("a.pdf", 30)
    embeddings = unit_vectors(30)
    vectors.upsert(chunks, embeddings)
    assert vectors.count() == 30
    stored = vectors.get_embeddings([c.id for c in reversed(chunks)] + ["missing"])
    assert set(stored) == {c.id for c in chunks}
    for i, chunk in enumerate(chunks):
        np.testing.assert_allclose(stored[chunk.id], embeddings[i], atol=1e-6)
    vectors.delete_ids([c.id for c in chunks[:20]])
    assert vectors.count() == 10
    assert store.max_batch_size == 7


def test_vectors_are_normalized_on_write(store: ChromaStore) -> None:
    vectors = store.open("c", FakeModel(dim=2), create=True)
    chunk = make_chunks("a.pdf", 1)
    vectors.upsert(chunk, np.array([[3.0, 4.0]], dtype=np.float32))
    np.testing.assert_allclose(vectors.get_embeddings([chunk[0].id])[chunk[0].id], [0.6, 0.8], atol=1e-6)


def test_persistence_across_processes(tmp_path: Path) -> None:
    store = ChromaStore.from_settings(StorageSettings(data_dir=tmp_path))
    vectors = store.open("Gesetze", FakeModel(), create=True)
    embeddings = unit_vectors(5)
    vectors.upsert(make_chunks("AtG.pdf", 5), embeddings)
    np.save(tmp_path / "q.npy", embeddings[2])
    script = textwrap.dedent(
        f"""
        import numpy as np
        from pathlib import Path
        from rabbithole.core.config import StorageSettings
        from rabbithole.core.errors import EmbeddingModelMismatchError
        from rabbithole.store.chroma_store import ChromaStore

        class Model:
            model_id, dim = "test-model@1", 8

        class Other:
            model_id, dim = "other", 8

        store = ChromaStore.from_settings(StorageSettings(data_dir=Path({str(tmp_path)!r})))
        vectors = store.open("Gesetze", Model())
        query = np.load(Path({str(tmp_path)!r}) / "q.npy")
        try:
            store.open("Gesetze", Other())
            mismatch = "no"
        except EmbeddingModelMismatchError:
            mismatch = "yes"
        print(vectors.count(), vectors.query(query, 1)[0].id, store.collection_names(), mismatch)
        """
    )
    env = {**os.environ, "ANONYMIZED_TELEMETRY": "False"}
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "5 c:AtG.pdf:2 ['Gesetze'] yes"


def test_a_refresh_reads_another_process_and_moves_open_handles_to_the_new_client(tmp_path: Path) -> None:
    store = ChromaStore.from_settings(StorageSettings(data_dir=tmp_path))
    mine = store.open("c", FakeModel(), create=True)
    mine.upsert(make_chunks("a.pdf", 3), unit_vectors(3))
    script = textwrap.dedent(
        f"""
        from pathlib import Path
        import numpy as np
        from rabbithole.core.config import StorageSettings
        from rabbithole.core.models import Chunk
        from rabbithole.store.chroma_store import ChromaStore

        class Model:
            model_id, dim = "test-model@1", 8

        store = ChromaStore.from_settings(StorageSettings(data_dir=Path({str(tmp_path)!r})))
        chunk = Chunk(id="c:b.pdf:0", collection="c", document="b.pdf", ordinal=0, text="b", start=0,
                      end=1, page=1, page_end=1, section=None, heading="")
        store.open("c", Model()).upsert([chunk], np.ones((1, 8), dtype=np.float32))
        store.close()
        """
    )
    env = {**os.environ, "ANONYMIZED_TELEMETRY": "False"}
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr
    store.sync("c", "before")
    store.sync("c", "after")  # the catalog moved on: another process wrote, the store reads its files anew
    assert mine.count() == 4  # the handle opened before the refresh works on the new client
    assert mine.get_embeddings(["c:b.pdf:0"]).keys() == {"c:b.pdf:0"}
    store.note_written("c", "mine")
    store.sync("c", "mine")  # this process's own write: no refresh needed (nothing to assert but no error)
    assert store.open("c", FakeModel()).count() == 4
    store.close()


def test_store_errors_are_wrapped(tmp_path: Path) -> None:
    blocker = tmp_path / "data"
    blocker.write_text("a file where a folder should be")
    with pytest.raises(ValueError, match="is not a folder"):  # settings refuse it when they load
        StorageSettings(data_dir=blocker)
    # a data dir that turned into a file after the settings were loaded
    unusable = StorageSettings.model_construct(data_dir=blocker)
    with pytest.raises(StoreError, match="cannot open the vector store"):
        ChromaStore.from_settings(unusable)


def test_a_server_database_is_created_and_holds_its_own_collections(
    chroma_server: ChromaServer, tmp_path: Path
) -> None:
    one = ChromaStore.from_settings(StorageSettings(data_dir=tmp_path), chroma_server.vectors())
    two = ChromaStore.from_settings(StorageSettings(data_dir=tmp_path), chroma_server.vectors())
    assert one.location == f"server {chroma_server.url}"
    one.open("Gesetze", FakeModel(), create=True).upsert(make_chunks("AtG.pdf", 3), unit_vectors(3))
    two.open("Gesetze", FakeModel(), create=True).upsert(make_chunks("AtG.pdf", 1), unit_vectors(1))
    assert [(i.name, i.count) for i in one.list_collections()] == [("Gesetze", 3)]
    assert [(i.name, i.count) for i in two.list_collections()] == [("Gesetze", 1)]
    # no index files of Rabbithole's own beside a server: no session marker, no damage record
    assert one.sessions is None and one.damage is None and one.damaged() == {}
    assert not (tmp_path / "chroma").exists()
    one.close()
    two.close()


@pytest.mark.timeout(120)  # a refused connection is reported, not retried for ever (a hang guard)
def test_a_server_that_is_down_at_start_is_named_and_found_once_it_is_up(
    chroma_server: ChromaServer, tmp_path: Path
) -> None:
    vectors = chroma_server.vectors()
    chroma_server.stop()
    try:
        store = ChromaStore.from_settings(StorageSettings(data_dir=tmp_path), vectors)  # sends nothing yet
        assert store.heartbeat() is False
        with pytest.raises(VectorStoreUnavailableError) as err:
            store.open("Gesetze", FakeModel(), create=True)
        assert chroma_server.url in str(err.value)
        assert "RABBITHOLE_VECTORS__URL" in str(err.value)
        assert (err.value.http_status, err.value.exit_code) == (503, 69)
        with pytest.raises(VectorStoreUnavailableError, match="connecting"):
            store.collection_names()
    finally:
        chroma_server.start()
    assert store.heartbeat() is True  # the next call connects: no restart of this process needed
    store.open("Gesetze", FakeModel(), create=True).upsert(make_chunks("AtG.pdf", 2), unit_vectors(2))
    assert store.open("Gesetze", FakeModel()).count() == 2
    store.close()


@pytest.mark.timeout(120)
def test_a_server_stopped_mid_way_fails_each_call_by_name_and_serves_again_after_its_restart(
    chroma_server: ChromaServer, tmp_path: Path
) -> None:
    store = ChromaStore.from_settings(StorageSettings(data_dir=tmp_path), chroma_server.vectors())
    vectors = store.open("Gesetze", FakeModel(), create=True)
    embeddings = unit_vectors(4)
    vectors.upsert(make_chunks("AtG.pdf", 4), embeddings)
    chroma_server.stop()
    try:
        for call in (
            lambda: vectors.query(embeddings[0], 2),
            lambda: vectors.upsert(make_chunks("StrlSchG.pdf", 1), unit_vectors(1)),
            lambda: vectors.count(),
            lambda: store.open("Gesetze", FakeModel()),
        ):
            with pytest.raises(VectorStoreUnavailableError, match=chroma_server.url):
                call()
        assert store.heartbeat() is False
    finally:
        chroma_server.start()
    assert vectors.query(embeddings[1], 1)[0].id == "c:AtG.pdf:1"  # the same handle, the same data
    assert vectors.count() == 4
    store.close()


@pytest.mark.timeout(60)
def test_a_server_that_never_answers_fails_within_the_timeout(tmp_path: Path) -> None:
    with socket.socket() as silent:  # accepts connections (the backlog), never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        url = f"http://127.0.0.1:{silent.getsockname()[1]}"
        store = ChromaStore.from_settings(
            StorageSettings(data_dir=tmp_path), VectorSettings(url=url, timeout_s=0.5)
        )
        with pytest.raises(VectorStoreUnavailableError, match="no answer within the time allowed") as err:
            store.open("Gesetze", FakeModel())
        assert url in str(err.value)
