"""How the catalog stores the path a document was ingested from (``documents.source_path``): as text when
it is valid UTF-8, else (a file name in another encoding, kept by Python as surrogate escapes) as the
path's bytes in base64 behind a prefix, so every path round-trips exactly."""

from __future__ import annotations

import base64
import os
from pathlib import Path

_BYTES = "fsb64:"  #: an absolute path never starts with this


def encode_source(path: Path) -> str:
    text = str(path.resolve())
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return _BYTES + base64.urlsafe_b64encode(os.fsencode(text)).decode("ascii")
    return text


def decode_source(stored: str) -> Path | None:
    """The recorded path; None when none was recorded."""
    if not stored:
        return None
    if stored.startswith(_BYTES):
        return Path(os.fsdecode(base64.urlsafe_b64decode(stored[len(_BYTES) :])))
    return Path(stored)
