"""The query anchor: built from the model's draft, or deterministically from the question when the model's
output stays invalid (section references, abbreviations and the longest content words as key entities)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from rabbithole.research.models import ClarificationRound, QueryAnchor

_SECTION = re.compile(r"(?:§§?|Art\.|Artikel|Anlage|Section|Article)\s*\d+[a-z]?", re.IGNORECASE)
_ABBREVIATION = re.compile(r"\b[A-ZÄÖÜ][A-Za-zÄÖÜäöüß]*[A-ZÄÖÜ][A-Za-zÄÖÜäöüß]*\b")
_WORD = re.compile(r"[^\W\d_][\w-]{4,}", re.UNICODE)
_STOP = {
    "welche",
    "welcher",
    "welches",
    "werden",
    "wurden",
    "müssen",
    "können",
    "sollen",
    "dürfen",
    "gelten",
    "nach",
    "unter",
    "durch",
    "gegen",
    "zwischen",
    "sowie",
    "diese",
    "dieser",
    "dieses",
    "einer",
    "eines",
    "which",
    "where",
    "there",
    "their",
    "about",
    "under",
    "would",
    "could",
    "should",
    "what",
    "when",
    "does",
    "must",
    "have",
    "with",
    "from",
    "that",
    "this",
    "these",
    "those",
    "while",
}


def fallback_entities(question: str, limit: int = 6) -> list[str]:
    found: list[str] = []
    for pattern in (_SECTION, _ABBREVIATION):
        for match in pattern.finditer(question):
            text = " ".join(match.group(0).split())
            if text not in found:
                found.append(text)
    words = sorted({w for w in _WORD.findall(question) if w.lower() not in _STOP}, key=lambda w: (-len(w), w))
    for word in words:
        if len(found) >= limit:
            break
        if all(word.lower() not in f.lower() for f in found):
            found.append(word)
    return found[:limit]


def user_answers(rounds: Sequence[ClarificationRound]) -> list[str]:
    return [r.answer.strip() for r in rounds if r.answer and r.answer.strip() and r.answer.strip() != "/end"]


def fallback_anchor(question: str, language: str, rounds: Sequence[ClarificationRound]) -> QueryAnchor:
    return QueryAnchor(
        question=question,
        language=language,
        key_entities=fallback_entities(question),
        scope="",
        refinements=user_answers(rounds),
    )


def anchor_text(anchor: QueryAnchor) -> str:
    """What drift is measured against: the question, its entities, scope and refinements."""
    parts = [anchor.question, " ".join(anchor.key_entities), anchor.scope, *anchor.refinements]
    return "\n".join(p for p in parts if p)


def summary_of(question: str, rounds: Sequence[ClarificationRound]) -> str:
    """A deterministic summary of the conversation (when the model's stays invalid)."""
    lines = [f"Question: {question}"]
    for r in rounds:
        if r.answer and r.answer.strip() != "/end":
            lines.append(f"Asked: {' / '.join(r.questions)} -> answered: {r.answer.strip()}")
    return "\n".join(lines)
