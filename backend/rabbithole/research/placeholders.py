"""What small local models write instead of a real heading or sentence (pure): the output schemas' field and
class names, generic placeholders ("Section 3", "Überschrift") and the schemas' field descriptions copied as
content (``research.guards`` drops or replaces them)."""

from __future__ import annotations

import re
import unicodedata

__all__ = ["heading_key", "is_placeholder"]

#: Schema field and class names, and generic placeholders, compared normalised (see ``_key``).
_PLACEHOLDER_WORDS = {
    # the output schemas' class and field names
    "reportdraft",
    "report draft",
    "reportsection",
    "report section",
    "report sections",
    "sectiondraft",
    "section draft",
    "claim",
    "claims",
    "evidence",
    "text",
    "heading",
    "headings",
    "section heading",
    "sectionheading",
    "section title",
    "title",
    "report title",
    "title of the report",
    "sections",
    "section",
    "string",
    "str",
    "none",
    "null",
    "todo",
    "tbd",
    "placeholder",
    "example",
    "untitled",
    # German placeholders
    "abschnitt",
    "abschnitte",
    "überschrift",
    "ueberschrift",
    "titel",
    "abschnittsüberschrift",
    "kapitel",
    "berichtstitel",
    "titel des berichts",
    "aussagen",
    "aussage",
    "thema",
    # the schemas' field descriptions, copied as content
    "one sentence of the report without citation marks",
    "one sentence of the report",
    "ids of the evidence that supports it",
}
#: "Section 3", "Abschnitt 2", "Heading 1", "Kapitel 4" (a number alone after a placeholder word; "Section
#: 4.2 of the standard" has more words and is a real heading).
_NUMBERED = re.compile(
    r"^(?:section|sections|abschnitt|heading|überschrift|kapitel|chapter|part|teil|title|titel|claim|claims)"
    r"\s*(?:\d+|[ivx]+)$"
)


def heading_key(text: str) -> str:
    """Lower case, no markdown heading marks, no punctuation, whitespace collapsed."""
    text = unicodedata.normalize("NFKC", text).strip().lstrip("#").strip().lower()
    text = re.sub(r"[<>\[\]{}()\"'`*_:.…,;!?\-–—]+", " ", text)
    return " ".join(text.split())


def is_placeholder(heading: str) -> bool:
    """A schema field or class name or a generic placeholder (not a real heading)."""
    key = heading_key(heading)
    if not key or not any(ch.isalnum() for ch in key):
        return True
    return (
        key in _PLACEHOLDER_WORDS or bool(_NUMBERED.match(key)) or key.replace(" ", "") in _PLACEHOLDER_WORDS
    )
