"""The Chroma name of a Rabbithole collection (light: no Chroma, no numpy)."""

from __future__ import annotations

import hashlib
import re
import unicodedata

COLLECTION_PREFIX = "rh_"


def chroma_collection_name(collection: str) -> str:
    """A valid, deterministic Chroma name for a Rabbithole collection: ``rh_<ascii slug>_<hash8>``.

    The hash of the exact name keeps names apart that sanitize alike ("A B" / "A-B" / "a b").
    """
    ascii_name = unicodedata.normalize("NFKD", collection).encode("ascii", "ignore").decode("ascii")
    slug = re.sub(r"[^A-Za-z0-9_-]+", "-", ascii_name).strip("-_")[:47].strip("-_")
    digest = hashlib.sha1(collection.encode("utf-8")).hexdigest()[:8]
    return f"{COLLECTION_PREFIX}{slug}_{digest}" if slug else f"{COLLECTION_PREFIX}{digest}"
