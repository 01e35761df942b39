"""Deterministic fake embeddings: similar texts get similar vectors.

Each text becomes a bag of features (NFKC-normalized, case-folded word tokens, weight 1, and their
character trigrams, weight 0.3, so inflected forms stay close), each hashed to a signed coordinate of
a fixed-size vector, which is then L2-normalized. Same text, same vector, in every process.
"""

from __future__ import annotations

import hashlib
import math
import re
import unicodedata

DEFAULT_DIM = 384
_TOKEN = re.compile(r"\w+", re.UNICODE)


def _features(text: str) -> dict[str, float]:
    normalized = unicodedata.normalize("NFKC", text).casefold()
    features: dict[str, float] = {}
    for token in _TOKEN.findall(normalized):
        features[f"w:{token}"] = features.get(f"w:{token}", 0.0) + 1.0
        padded = f"<{token}>"
        for i in range(len(padded) - 2):
            gram = f"g:{padded[i : i + 3]}"
            features[gram] = features.get(gram, 0.0) + 0.3
    return features


def embed_text(text: str, dim: int = DEFAULT_DIM) -> list[float]:
    """One L2-normalized vector of ``dim`` floats (a fixed unit vector for text without words)."""
    vector = [0.0] * dim
    for feature, weight in _features(text).items():
        digest = hashlib.blake2b(feature.encode("utf-8"), digest_size=8).digest()
        value = int.from_bytes(digest, "big")
        sign = 1.0 if value & 1 else -1.0
        vector[(value >> 1) % dim] += sign * weight
    norm = math.sqrt(sum(v * v for v in vector))
    if norm == 0.0:
        vector[0] = 1.0
        return vector
    return [v / norm for v in vector]


def cosine(a: list[float], b: list[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    na = math.sqrt(sum(x * x for x in a))
    nb = math.sqrt(sum(y * y for y in b))
    return dot / (na * nb) if na and nb else 0.0
