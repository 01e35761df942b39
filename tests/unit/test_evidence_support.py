from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np
import pytest

from rabbithole.embeddings.base import FloatArray, l2_normalize
from rabbithole.research.evidence.support import SupportChecker, content_tokens, token_overlap

DIM = 64


def fake_embed(texts: Sequence[str]) -> FloatArray:
    """A deterministic hashed bag of content words, L2-normalised (no model)."""
    rows = np.zeros((len(texts), DIM), dtype=np.float32)
    for i, text in enumerate(texts):
        for token in content_tokens(text):
            rows[i, int(hashlib.sha1(token.encode()).hexdigest(), 16) % DIM] += 1.0
    return l2_normalize(rows)


class CountingEmbed:
    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def __call__(self, texts: Sequence[str]) -> FloatArray:
        self.calls.append(list(texts))
        return fake_embed(texts)


def test_content_tokens_fold_stem_and_drop_stopwords() -> None:
    tokens = content_tokens("Die zuständige Behörde prüft die Anzeigen nach § 57 Absatz 1 in 20 Tagen.")
    assert tokens == {"zustae", "behoer", "prueft", "anzeig", "§57", "absatz", "1", "20", "tagen"}
    assert content_tokens("Abs. 2 Nr. 3 Art. 4") == content_tokens("Absatz 2 Nummer 3 Artikel 4")
    assert content_tokens("Straße STRASSE Strasse") == {"strass"}
    assert content_tokens("the of and der die das in zu ab") == set()


def test_inflections_match_by_prefix() -> None:
    assert token_overlap("Strahlenschutzbeauftragter", "die Strahlenschutzbeauftragten") == 1.0
    assert token_overlap("Genehmigungen der Behörden", "eine Genehmigung der Behörde") == 1.0


def test_token_overlap_is_the_share_of_claim_tokens() -> None:
    assert (
        token_overlap("Grenzwert 20 Millisievert Kalenderjahr", "Der Grenzwert beträgt 20 Millisievert.")
        == 0.75
    )
    assert token_overlap(
        "Grenzwert 50 Millisievert", "Der Grenzwert beträgt 20 Millisievert."
    ) == pytest.approx(2 / 3)
    assert token_overlap("", "irgendetwas") == 0.0
    assert token_overlap("der die das", "der die das") == 0.0
    assert token_overlap("Grenzwert", "") == 0.0


EVIDENCE = (
    "Für beruflich exponierte Personen beträgt der Grenzwert der effektiven Dosis 20 Millisievert im "
    "Kalenderjahr."
)


def test_supported_and_unsupported_claims() -> None:
    embed = CountingEmbed()
    checker = SupportChecker(embed)
    supported, unsupported, uncited = checker.check(
        [
            ("Der Grenzwert der effektiven Dosis beträgt 20 Millisievert im Kalenderjahr.", [EVIDENCE]),
            ("Kernkraftwerke müssen bis 2030 stillgelegt werden.", [EVIDENCE]),
            ("Ein Satz ohne Beleg.", []),
        ]
    )
    assert len(embed.calls) == 1
    assert sorted(embed.calls[0]) == sorted(
        {
            "Der Grenzwert der effektiven Dosis beträgt 20 Millisievert im Kalenderjahr.",
            EVIDENCE,
            "Kernkraftwerke müssen bis 2030 stillgelegt werden.",
            "Ein Satz ohne Beleg.",
        }
    )  # one batch, each text once
    assert supported.overlap == 1.0
    assert supported.similarity > 0.7
    assert not supported.flagged
    assert supported.score == pytest.approx(0.5 * supported.overlap + 0.5 * supported.similarity)
    assert unsupported.overlap == 0.0
    assert unsupported.flagged
    assert unsupported.score < 0.35
    assert uncited.score == 0.0 and uncited.flagged


def test_best_evidence_counts() -> None:
    checker = SupportChecker(fake_embed)
    [alone] = checker.check([("Grenzwert 20 Millisievert", ["Anzeige bei der Behörde."])])
    [with_good] = checker.check([("Grenzwert 20 Millisievert", ["Anzeige bei der Behörde.", EVIDENCE])])
    assert with_good.score > alone.score
    assert with_good.overlap == 1.0


def test_weights_threshold_and_clamping() -> None:
    def opposite(texts: Sequence[str]) -> FloatArray:
        rows = np.ones((len(texts), 4), dtype=np.float32) / 2
        rows[1:] *= -1
        return rows

    [support] = SupportChecker(opposite, overlap_weight=0.0).check([("Alpha Beta", ["Gamma Delta"])])
    assert support.similarity == pytest.approx(-1.0)
    assert support.score == 0.0 and support.flagged
    [only_overlap] = SupportChecker(opposite, overlap_weight=1.0, threshold=0.5).check(
        [("Grenzwert Dosis", ["Grenzwert Dosis"])]
    )
    assert only_overlap.score == 1.0 and not only_overlap.flagged
    with pytest.raises(ValueError):
        SupportChecker(fake_embed, overlap_weight=1.5)


def test_empty_input_makes_no_embed_call() -> None:
    embed = CountingEmbed()
    assert SupportChecker(embed).check([]) == []
    assert embed.calls == []


def test_embed_returning_the_wrong_row_count_is_an_error() -> None:
    with pytest.raises(ValueError):
        SupportChecker(lambda texts: fake_embed(texts)[:1]).check([("a b c", ["d e f"])])
