"""Optional reranking: the LLM reranker against the fake Ollama, a tiny local cross-encoder, and the
searcher's rerank stage."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import pytest

from fixtures.retrieval import (  # noqa: F401  (the fixtures retrieval_env and use_embedder)
    RetrievalEnv,
    retrieval_env_fixture,
    use_embedder_fixture,
)
from rabbithole.core.config import RetrievalSettings, Settings
from rabbithole.core.errors import EmbeddingError
from rabbithole.core.models import Chunk, SearchHit
from rabbithole.devtools.fake_ollama import FakeOllama
from rabbithole.llm import LLMClient
from rabbithole.retrieval.hybrid import HybridSearcher
from rabbithole.retrieval.rerank import (
    CrossEncoderReranker,
    LLMReranker,
    RerankAnswer,
    create_reranker,
    reorder,
)


def _hit(i: int, heading: str, text: str) -> SearchHit:
    chunk = Chunk(f"c{i}", "laws", "StrlSchG.pdf", i, text, 0, len(text), 1, 1, f"§ {70 + i}", heading)
    return SearchHit(chunk=chunk, score=1.0 - i / 10)


HITS = [
    _hit(0, "Bestellung", "Der Strahlenschutzverantwortliche bestellt Strahlenschutzbeauftragte."),
    _hit(1, "Grenzwerte für beruflich exponierte Personen", "20 Millisievert im Kalenderjahr."),
    _hit(2, "Berufslebensdosis", "400 Millisievert über das Berufsleben."),
]


def _ids(hits: Sequence[SearchHit]) -> list[str]:
    return [h.chunk.id for h in hits]


def test_reorder_puts_the_chosen_first_and_keeps_the_rest() -> None:
    assert _ids(reorder(HITS, [2, 3])) == ["c1", "c2", "c0"]
    assert _ids(reorder(HITS, [3, 3, 0, 9, -1])) == ["c2", "c0", "c1"]  # repeats and junk ignored
    assert _ids(reorder(HITS, [])) == ["c0", "c1", "c2"]


def test_llm_reranker_follows_the_model(fake_ollama: FakeOllama) -> None:
    fake_ollama.script({"ranking": [2, 3]}, schema=RerankAnswer)
    reranker = LLMReranker(LLMClient(fake_ollama.settings()))
    reranked = reranker.rerank("What are the annual dose limits for workers?", HITS)
    assert _ids(reranked) == ["c1", "c2", "c0"]
    prompt = fake_ollama.model_requests()[-1].prompt
    assert "What are the annual dose limits for workers?" in prompt
    assert re.search(r"\[2\] StrlSchG\.pdf § 71 Grenzwerte für beruflich exponierte Personen", prompt)


def test_llm_reranker_keeps_the_search_order_when_the_model_fails(fake_ollama: FakeOllama) -> None:
    fake_ollama.fault("error")  # every request answers HTTP 500
    reranker = LLMReranker(LLMClient(fake_ollama.settings(max_retries=0)))
    assert _ids(reranker.rerank("dose limits", HITS)) == ["c0", "c1", "c2"]
    assert reranker.failures == 1
    assert reranker.rerank("one hit only", HITS[:1]) == HITS[:1]


def _tiny_cross_encoder(folder: Path) -> Path:
    """A randomly initialised one-layer BERT cross-encoder, saved locally (no download)."""
    import torch
    from transformers import BertConfig, BertForSequenceClassification, BertTokenizerFast

    words = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *"abcdefghijklmnopqrstuvwxyzäöüß0123456789§"]
    (folder / "vocab.txt").write_text("\n".join(words), encoding="utf-8")
    config = BertConfig(
        vocab_size=len(words),
        hidden_size=16,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=32,
        num_labels=1,
        max_position_embeddings=512,
    )
    torch.manual_seed(0)
    BertForSequenceClassification(config).save_pretrained(folder)
    BertTokenizerFast(str(folder / "vocab.txt")).save_pretrained(folder)
    return folder


def test_cross_encoder_orders_by_its_scores(tmp_path: Path) -> None:
    from sentence_transformers import CrossEncoder

    model = _tiny_cross_encoder(tmp_path)
    reranker = CrossEncoderReranker(str(model))
    query = "dose limits"
    reranked = reranker.rerank(query, HITS)
    scores = CrossEncoder(str(model)).predict(
        [(query, f"{h.chunk.heading}\n{h.chunk.text}") for h in HITS], show_progress_bar=False
    )
    expected = [HITS[i].chunk.id for i in sorted(range(3), key=lambda i: (-float(scores[i]), i))]
    assert _ids(reranked) == expected
    with pytest.raises(EmbeddingError, match="could not be loaded"):
        CrossEncoderReranker(str(tmp_path / "missing")).rerank(query, HITS)
    with pytest.raises(EmbeddingError, match="rerank_model is required"):
        CrossEncoderReranker("")


def test_reranker_from_settings() -> None:
    assert create_reranker(Settings()) is None
    llm = create_reranker(Settings(retrieval=RetrievalSettings(reranker="llm")))
    assert isinstance(llm, LLMReranker)
    cross = create_reranker(Settings(retrieval=RetrievalSettings(reranker="cross-encoder", rerank_model="x")))
    assert isinstance(cross, CrossEncoderReranker)


class Reverse:
    name = "reverse"

    def __init__(self) -> None:
        self.seen: list[int] = []

    def rerank(self, query: str, hits: Sequence[SearchHit]) -> list[SearchHit]:
        self.seen.append(len(hits))
        return list(reversed(hits))


def test_searcher_reranks_the_first_candidates_in_hybrid_mode_only(retrieval_env: RetrievalEnv) -> None:
    env = retrieval_env
    reverse = Reverse()
    settings = RetrievalSettings(k=5, candidates=30, rerank_candidates=8)
    searcher = HybridSearcher(
        env.embedder,
        env.store,
        env.source,
        index_dir=env.storage.index_dir,
        settings=settings,
        reranker=reverse,
    )
    plain = HybridSearcher(
        env.embedder, env.store, env.source, index_dir=env.storage.index_dir, settings=settings
    )
    query = "Grenzwerte für beruflich exponierte Personen"
    first_eight = plain.search(query, "laws", k=8)
    result = searcher.run(query, "laws", k=3)
    assert reverse.seen == [8] and "rerank" in result.timings
    assert _ids(result.hits) == _ids(list(reversed(first_eight)))[:3]
    assert _ids(searcher.search(query, "laws", k=3, mode="bm25")) == _ids(
        plain.search(query, "laws", k=3, mode="bm25")
    )
    assert reverse.seen == [8]
