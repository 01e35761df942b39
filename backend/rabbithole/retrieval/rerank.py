"""Optional reranking of the fused candidates (``retrieval.reranker``; off by default).

- ``llm``: the configured chat model (through :class:`rabbithole.llm.LLMClient`) reads the question and the
  first ``retrieval.rerank_candidates`` passages (heading and the start of the text, numbered) and answers the
  numbers of the passages that answer the question, best first (schema-constrained JSON). Passages it leaves
  out follow in their fused order; numbers out of range or repeated are ignored. A failed call (model
  unavailable, invalid output after the retries) keeps the fused order and is logged: reranking can only
  reorder what search found, never lose it.
- ``cross-encoder``: a sentence-transformers ``CrossEncoder`` by local path or cached name
  (``retrieval.rerank_model``; never downloaded), scoring (question, passage) pairs.

Hits keep their fused ``score``; with a reranker they are in the reranker's order.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from pydantic import BaseModel, Field

from rabbithole.core.errors import EmbeddingError
from rabbithole.core.models import SearchHit

if TYPE_CHECKING:
    from langchain_core.messages import BaseMessage

    from rabbithole.core.config import Settings

log = logging.getLogger(__name__)

T = TypeVar("T", bound=BaseModel)

#: characters of each passage shown to an LLM reranker
PASSAGE_CHARS = 700


class Reranker(Protocol):
    """Reorders search hits for a query (best first); returns the same hits."""

    name: str

    def rerank(self, query: str, hits: Sequence[SearchHit]) -> list[SearchHit]: ...


class StructuredLLM(Protocol):
    """What the LLM reranker needs of :class:`rabbithole.llm.LLMClient`."""

    def structured(
        self, schema: type[T], messages: list[BaseMessage], *, retries: int | None = None
    ) -> T: ...


class RerankAnswer(BaseModel):
    """The passages that answer the question, best first."""

    ranking: list[int] = Field(
        default_factory=list, description="Numbers of the passages that help answer the question, best first."
    )


SYSTEM_PROMPT = (
    "You rank passages of legal documents by how well they answer a question. The question may be in another "
    "language than the passages. Answer only with JSON: the numbers of the passages that help answer the "
    "question, most useful first. Leave out passages that do not help."
)


def reorder(hits: Sequence[SearchHit], ranking: Sequence[int]) -> list[SearchHit]:
    """``hits`` with the 1-based positions in ``ranking`` first (in that order; invalid and repeated ones
    ignored), then the others in their original order."""
    chosen: list[int] = []
    for number in ranking:
        if isinstance(number, int) and 1 <= number <= len(hits) and number - 1 not in chosen:
            chosen.append(number - 1)
    rest = [i for i in range(len(hits)) if i not in chosen]
    return [hits[i] for i in chosen + rest]


def passage_prompt(query: str, hits: Sequence[SearchHit], max_chars: int = PASSAGE_CHARS) -> str:
    lines = [f"Question: {query}", "", "Passages:"]
    for number, hit in enumerate(hits, start=1):
        chunk = hit.chunk
        title = " ".join(part for part in (chunk.document, chunk.section or "", chunk.heading) if part)
        text = " ".join(chunk.text.split())[:max_chars]
        lines.append(f"[{number}] {title}: {text}")
    return "\n".join(lines)


class LLMReranker:
    """Reranking by the chat model; see the module docstring."""

    name = "llm"

    def __init__(self, llm: StructuredLLM, *, max_chars: int = PASSAGE_CHARS) -> None:
        self.llm = llm
        self.max_chars = max_chars
        self.failures = 0

    def rerank(self, query: str, hits: Sequence[SearchHit]) -> list[SearchHit]:
        if len(hits) < 2:
            return list(hits)
        from langchain_core.messages import HumanMessage, SystemMessage

        messages: list[BaseMessage] = [
            SystemMessage(SYSTEM_PROMPT),
            HumanMessage(passage_prompt(query, hits, self.max_chars)),
        ]
        try:
            answer = self.llm.structured(RerankAnswer, messages)
        except Exception as exc:  # the fused order stands
            self.failures += 1
            log.warning("LLM reranking failed, keeping the search order: %s", exc)
            return list(hits)
        return reorder(hits, answer.ranking)


class CrossEncoderReranker:
    """A sentence-transformers cross-encoder, loaded on first use from a local path or the local cache."""

    name = "cross-encoder"

    def __init__(self, model: str, *, max_chars: int = 2000) -> None:
        if not model:
            raise EmbeddingError("retrieval.rerank_model is required for the cross-encoder reranker")
        self.model_name = model
        self.max_chars = max_chars
        self._model: Any = None
        self._lock = threading.Lock()

    def _load(self) -> Any:
        with self._lock:
            if self._model is None:
                os.environ.setdefault("HF_HUB_OFFLINE", "1")
                os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
                from sentence_transformers import CrossEncoder

                path = os.path.expanduser(self.model_name)
                try:
                    self._model = CrossEncoder(path if os.path.isdir(path) else self.model_name)
                except Exception as exc:
                    raise EmbeddingError(
                        f"cross-encoder '{self.model_name}' could not be loaded (a local folder or a model "
                        f"in the local Hugging Face cache; Rabbithole does not download models): {exc}"
                    ) from exc
            return self._model

    def rerank(self, query: str, hits: Sequence[SearchHit]) -> list[SearchHit]:
        if len(hits) < 2:
            return list(hits)
        model = self._load()
        pairs = [(query, f"{h.chunk.heading}\n{h.chunk.text}"[: self.max_chars]) for h in hits]
        scores = [float(s) for s in model.predict(pairs, show_progress_bar=False)]
        order = sorted(range(len(hits)), key=lambda i: (-scores[i], i))
        return [hits[i] for i in order]


def create_reranker(settings: Settings) -> Reranker | None:
    """The reranker ``settings.retrieval`` configures (None when off). Cheap: models load on first use."""
    kind = settings.retrieval.reranker
    if kind == "llm":
        from rabbithole.llm.factory import LLMClient

        return LLMReranker(LLMClient(settings.llm))
    if kind == "cross-encoder":
        return CrossEncoderReranker(settings.retrieval.rerank_model)
    return None
