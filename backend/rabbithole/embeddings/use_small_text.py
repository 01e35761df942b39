"""Tokenizing a few short texts (a search query) with the USE SentencePiece model, without building the
whole 128k-piece Unigram model first.

Building the full ``tokenizers`` Unigram model takes about a second (its trie of 128k pieces); a one-shot
`rabbithole search` spent half its time there for a query of a few words. The Unigram model's Viterbi
search only ever considers pieces that occur in the text, plus the unknown piece, whose score is the
lowest piece score minus a penalty. So a Unigram model built from exactly the pieces that occur in the
(normalized, pre-tokenized) text, with the lowest-scoring piece of the whole model kept in, sees the same
lattice with the same scores and gives the same pieces; their ids are mapped back to the full model's.
Texts are normalized by the same normalizer and pre-tokenizer as the full model (``llm.sentencepiece``).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

#: above this many characters in one call the full model is worth building
SMALL_TEXT_CHARS = 2000
#: after this many calls too: a process that embeds many queries (a research run) pays the build once
#: rather than a millisecond or so per query
SMALL_TEXT_CALLS = 16


class SmallTextTokenizer:
    """Piece ids of short texts, as the full Unigram model of the same SentencePiece model gives them."""

    UNK = 0

    def __init__(self, path: str | None = None, cache_dir: Path | None = None) -> None:
        """``cache_dir``: where the parsed pieces of the model are kept between processes."""
        from rabbithole.llm.sentencepiece import sentencepiece_front, sentencepiece_pieces

        vocab, charsmap = sentencepiece_pieces(path, cache_dir)
        self._ids = {piece: index for index, (piece, _) in enumerate(vocab)}
        self._vocab = vocab
        self._longest = max(len(piece) for piece, _ in vocab)
        lowest = min(range(len(vocab)), key=lambda i: vocab[i][1])
        self._always = sorted({self.UNK, lowest})  # the unknown piece and the one its score derives from
        self._normalizer, self._pre_tokenizer = sentencepiece_front(charsmap)

    def encode_ids(self, texts: Sequence[str]) -> list[list[int]]:
        """Full-model piece ids of each text (no BOS/EOS)."""
        from tokenizers import models

        out: list[list[int]] = []
        for text in texts:
            normalized = self._normalizer.normalize_str(text)
            words = [word for word, _ in self._pre_tokenizer.pre_tokenize_str(normalized)]
            wanted = set(self._always)
            for word in words:
                wanted.update(self._pieces_in(word))
            chosen = sorted(wanted)  # ascending ids: the unknown piece (0) stays id 0
            local: Any = models.Unigram([self._vocab[i] for i in chosen], unk_id=0, byte_fallback=False)
            ids: list[int] = []
            for word in words:
                ids.extend(chosen[token.id] for token in local.tokenize(word))
            out.append(ids)
        return out

    def _pieces_in(self, word: str) -> set[int]:
        ids = self._ids
        found: set[int] = set()
        size = len(word)
        for start in range(size):
            for end in range(start + 1, min(size, start + self._longest) + 1):
                piece_id = ids.get(word[start:end])
                if piece_id is not None:
                    found.add(piece_id)
        return found
