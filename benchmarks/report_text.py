"""What a reader sees of a final report's text (pure): its headings, the placeholder headings among them, and
the sentences it says more than once. Read from the report's Markdown, as the research run and report mode
render it (today's and the code before alike): ``#`` title, ``##`` sections (report mode: a contents list
first), body paragraphs with citation marks, and the sources list under its heading, which is left out.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

#: the sources list's heading in every report language (research.export.labels: "sources")
SOURCES_HEADINGS = frozenset({"quellen", "sources"})
#: system headings, not the model's: report mode's contents list
SYSTEM_HEADINGS = frozenset({"inhalt", "contents"})

_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_CONTENTS_ENTRY = re.compile(r"^\s*\d+\.\s+\[.*\]\(#[^)]*\)\s*$")
_LABEL = re.compile(r"^\s*[*_][^*_].*[*_]\s*$")  # a whole line in italics: the system's label
_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+(?=\S)")  # as research.guards splits
#: a sentence needs this many words to count as repeated ("Abs." or "S. 165)" alone are fragments of
#: legal abbreviations, not sentences)
MIN_WORDS = 4


def report_body(markdown: str) -> list[str]:
    """The report's lines before the sources list."""
    lines = []
    for line in markdown.splitlines():
        match = _HEADING.match(line)
        if match and match.group(2).strip().lower() in SOURCES_HEADINGS:
            break
        lines.append(line)
    return lines


def headings(markdown: str) -> list[str]:
    """The headings of the report (title and sections), without the contents list's and the sources'."""
    found = []
    for line in report_body(markdown):
        match = _HEADING.match(line)
        if match and match.group(2).strip().lower() not in SYSTEM_HEADINGS:
            found.append(match.group(2).strip())
    return found


def placeholder_headings(markdown: str) -> list[str]:
    """Headings that are schema names or placeholders (``research.guards.is_placeholder``, today's test of
    them, applied to the code before's reports too)."""
    from rabbithole.research.guards import is_placeholder

    return [h for h in headings(markdown) if is_placeholder(h)]


def body_sentences(markdown: str) -> list[str]:
    """The sentences of the report's paragraphs (headings, the contents list and whole-line italic labels,
    such as an assembled section's note, left out)."""
    paragraphs: list[list[str]] = [[]]
    for line in report_body(markdown):
        if not line.strip() or _HEADING.match(line):
            paragraphs.append([])
        elif not (_CONTENTS_ENTRY.match(line) or _LABEL.match(line)):
            paragraphs[-1].append(line.strip())
    sentences = []
    for paragraph in paragraphs:
        text = " ".join(paragraph)
        sentences += [s.strip() for s in _SENTENCE_END.split(text) if s.strip()]
    return sentences


def repeated_sentences(markdown: str) -> list[tuple[str, int]]:
    """Sentences the report says more than once (compared as the guards compare them:
    ``research.guards.normalise_sentence``, citation marks, case and punctuation removed), each with how
    often it occurs; sentences under ``MIN_WORDS`` words are left out."""
    from rabbithole.research.guards import normalise_sentence

    keys = [normalise_sentence(s) for s in body_sentences(markdown)]
    counts = Counter(k for k in keys if len(k.split()) >= MIN_WORDS)
    return [(k, n) for k, n in counts.items() if n > 1]


def extra_occurrences(repeats: Sequence[tuple[str, int]]) -> int:
    """How many sentences a reader reads again: every occurrence after a sentence's first."""
    return sum(n - 1 for _, n in repeats)
