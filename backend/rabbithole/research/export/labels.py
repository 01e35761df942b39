"""The fixed words of an exported report, by language (English for any other)."""

from __future__ import annotations

LABELS: dict[str, dict[str, str]] = {
    "de": {
        "question": "Frage",
        "open_quote": "„",
        "close_quote": "“",
        "contents": "Inhalt",
        "sources": "Quellen",
        "page": "S.",
        "section": "Abschnitt",
        "chain": "Verweiskette",
        "web": "Webquelle",
        "fetched": "abgerufen",
        "weak": "schwach belegt",
        "warnings": "Hinweise",
        "quality": "Qualität",
        "issues": "Anmerkungen der Prüfung",
        "criterion": "Kriterium",
        "score": "Wert",
        "factual_accuracy": "Sachliche Richtigkeit",
        "semantic_validity": "Inhaltliche Stimmigkeit",
        "structure": "Aufbau",
        "citation_correctness": "Belegtreue",
        "query_relevance": "Bezug zur Frage",
        "overall": "Gesamt",
        "passed": "bestanden",
        "failed": "nicht bestanden",
        "remediated": "überarbeitet",
    },
    "en": {
        "question": "Question",
        "open_quote": "“",
        "close_quote": "”",
        "contents": "Contents",
        "sources": "Sources",
        "page": "p.",
        "section": "Section",
        "chain": "Reference chain",
        "web": "web source",
        "fetched": "fetched",
        "weak": "weakly supported",
        "warnings": "Warnings",
        "quality": "Quality",
        "issues": "Reviewer's issues",
        "criterion": "Criterion",
        "score": "Score",
        "factual_accuracy": "Factual accuracy",
        "semantic_validity": "Semantic validity",
        "structure": "Structure",
        "citation_correctness": "Citation correctness",
        "query_relevance": "Query relevance",
        "overall": "Overall",
        "passed": "passed",
        "failed": "not passed",
        "remediated": "remediated",
    },
}


def labels(language: str) -> dict[str, str]:
    return LABELS.get(language, LABELS["en"])
