"""The LLM reranker against the fake Ollama, for bench_quality --rerank-fake.

The fake model answers every rerank request with the passages in the order it was given them (its prompt
numbers them), so the measured quality equals the search's own; what the run shows is that the stage runs
end to end (prompt, schema-constrained JSON, reordering) and what it costs per query. A real model is
measured the same way with ``retrieval.reranker = "llm"`` and ``llm.*`` pointing at it.
"""

from __future__ import annotations

import re
from typing import Any

_NUMBERED = re.compile(r"^\[(\d+)\] ", re.MULTILINE)


class FakeReranking:
    def __init__(self) -> None:
        from rabbithole.devtools.fake_ollama import FakeOllama
        from rabbithole.retrieval.rerank import RerankAnswer

        self.server = FakeOllama().start()
        self.server.script(self._answer, schema=RerankAnswer)

    @staticmethod
    def _answer(request: Any) -> dict[str, list[int]]:
        return {"ranking": [int(n) for n in _NUMBERED.findall(request.prompt)]}

    def searcher(self, base: Any, retrieval: Any) -> Any:
        from rabbithole.llm import LLMClient
        from rabbithole.retrieval.hybrid import HybridSearcher
        from rabbithole.retrieval.rerank import LLMReranker

        return HybridSearcher(
            base.embedder,
            base.store,
            base.source,
            bm25=base.bm25,
            settings=retrieval.model_copy(update={"reranker": "llm"}),
            reranker=LLMReranker(LLMClient(self.server.settings())),
        )

    def close(self) -> None:
        self.server.stop()


def fake_reranker() -> FakeReranking:
    return FakeReranking()
