"""Section labels in comparable form, and the shape of a vector-store metadata filter.

Both the vector store (which writes ``section_key`` into each vector's metadata and takes ``Where``
filters) and retrieval (which builds the filters) use these, so they live below both: ``store`` and
``retrieval`` import them from here, and ``retrieval`` depends on ``store``, never the reverse.
"""

from __future__ import annotations

import re
from typing import Any

#: A Chroma ``where`` filter over the metadata written for each chunk.
Where = dict[str, Any]

_SPACES = re.compile(r"\s+")
_SECTION_SIGN = re.compile(r"§\s*")


def section_key(label: str | None) -> str:
    """Comparable form of a section label: "§ 80" / "§80" / " §  80 " -> "§80"; "Anlage  4" -> "anlage 4"."""
    if not label:
        return ""
    return _SECTION_SIGN.sub("§", _SPACES.sub(" ", label.strip())).casefold()
