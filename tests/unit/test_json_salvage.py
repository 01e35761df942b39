"""Salvage of cut structured answers (``rabbithole.llm.json_salvage``), on the shapes the research steps ask
for: each real answer cut at every character position, compared with an independent oracle that builds the
partial values from the whole answer's parsed value (not from its text)."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterator
from typing import Any, Literal

import pytest
from pydantic import BaseModel, Field, ValidationError, create_model

from rabbithole.llm.json_salvage import ends_unterminated, salvage
from rabbithole.research.dig.schemas import TaskSummaryDraft, extraction_schema
from rabbithole.research.report.schemas import section_schema
from rabbithole.research.run.schemas import plan_schema

EVIDENCE_IDS = ["E1", "E2", "E3", "E4", "E5", "E6"]


def one_call_report_schema(evidence_ids: list[str]) -> type[BaseModel]:
    """The one-call report of synthesis (title, sections of claims with evidence ids): the deepest shape a
    model has written, as ``research/synthesis/schemas.py`` defined it before synthesis went per section."""
    ids: Any = Literal[tuple(evidence_ids)]  # type: ignore[valid-type]
    claim = create_model("Claim", text=(str, ...), evidence=(list[ids], Field(max_length=5)))
    section = create_model(
        "ReportSection",
        heading=(str, ...),
        claims=(list[claim], Field(min_length=1, max_length=14)),  # type: ignore[valid-type]
    )
    return create_model(
        "ReportDraft",
        title=(str, ...),
        sections=(list[section], Field(min_length=1, max_length=8)),  # type: ignore[valid-type]
    )


REPORT = {
    "title": "Grenzwerte für beruflich exponierte Personen unter 18 Jahren",
    "sections": [
        {
            "heading": "Effektive Dosis",
            "claims": [
                {
                    "text": "Für beruflich exponierte Personen unter 18 Jahren beträgt der Grenzwert der "
                    "effektiven Dosis 1 Millisievert im Kalenderjahr.",
                    "evidence": ["E1"],
                },
                {
                    "text": "Die zuständige Behörde kann für Auszubildende zwischen 16 und 18 Jahren einen "
                    "Grenzwert von 6 Millisievert zulassen.",
                    "evidence": ["E1", "E2"],
                },
            ],
        },
        {
            "heading": "Organdosen",
            "claims": [
                {
                    "text": "Der Grenzwert der Organ-Äquivalentdosis für die Augenlinse beträgt 15 "
                    "Millisievert im Kalenderjahr.",
                    "evidence": ["E3"],
                },
                {"text": "Für die Haut gilt ein Grenzwert von 50 Millisievert.", "evidence": ["E3", "E4"]},
                {
                    "text": "Die Einhaltung wird durch die Strahlenschutzverantwortlichen überwacht.",
                    "evidence": [],
                },
            ],
        },
        {
            "heading": "Ärztliche Überwachung",
            "claims": [
                {
                    "text": "Personen der Kategorie A dürfen nur tätig werden, wenn sie innerhalb eines "
                    "Jahres ärztlich untersucht wurden (§ 77 StrlSchV).",
                    "evidence": ["E5", "E6"],
                }
            ],
        },
    ],
}

EXTRACTION = {
    "findings": [
        {
            "fact": "Der Grenzwert der effektiven Dosis für Personen unter 18 Jahren beträgt 1 mSv im Jahr.",
            "sentences": [3],
            "answers": True,
        },
        {
            "fact": "Auszubildende ab 16 Jahren dürfen mit Zustimmung der Behörde bis 6 mSv erhalten.",
            "sentences": [4, 5],
            "answers": True,
        },
        {
            "fact": "Die Organdosis der Augenlinse ist auf 15 mSv begrenzt.",
            "sentences": [7],
            "answers": False,
        },
        {
            "fact": "Schwangere dürfen keiner Dosis über 1 mSv für das ungeborene Kind ausgesetzt werden.",
            "sentences": [11, 12, 13],
            "answers": False,
        },
    ]
}

PLAN = {
    "tasks": [
        {
            "title": "Grenzwert der effektiven Dosis",
            "description": "Welcher Jahresgrenzwert gilt für Personen unter 18 Jahren?",
            "queries": ["Grenzwert effektive Dosis unter 18 Jahren", "Auszubildende Dosisgrenzwert"],
            "corpus_queries": ["§ 78 StrlSchG Grenzwerte"],
        },
        {
            "title": "Organ-Äquivalentdosen",
            "description": "Grenzwerte für Augenlinse, Haut und Extremitäten.",
            "queries": ["Organdosis Augenlinse Grenzwert"],
            "corpus_queries": [],
        },
        {
            "title": "Ausnahmen für Auszubildende",
            "description": "Wann die Behörde höhere Werte zulassen kann.",
            "queries": ["Ausnahme Auszubildende 16 Jahre", "Behörde Zulassung Dosis"],
            "corpus_queries": ["Berufsausbildung Strahlenschutz"],
        },
    ]
}

SECTION = {"claims": REPORT["sections"][1]["claims"]}  # type: ignore[index]

SUMMARY = {
    "findings": ["Unter 18 Jahren gilt 1 mSv im Kalenderjahr.", "Auszubildende: bis 6 mSv mit Zulassung."],
    "gaps": ["Keine Angaben zu Extremitäten."],
    "related": ["Schwangere: 1 mSv für das ungeborene Kind."],
}

CASES: dict[str, tuple[type[BaseModel], dict[str, Any]]] = {
    "report": (one_call_report_schema(EVIDENCE_IDS), REPORT),
    "report-mode section": (section_schema(EVIDENCE_IDS), SECTION),
    "extraction": (extraction_schema(range(1, 15)), EXTRACTION),
    "plan": (plan_schema(1, 4), PLAN),
    "task summary": (TaskSummaryDraft, SUMMARY),
}


class _Partials:
    """Writes a value as ``json.dumps(value, ensure_ascii=False, indent=indent)`` does and notes, after each
    complete value inside the root, a copy of the partial root (the values complete so far, inside the
    containers open there), the offset where that value ended, and whether it was a number or literal."""

    def __init__(self, indent: int | None) -> None:
        self.indent = indent
        self.parts: list[str] = []
        self.length = 0
        self.root: Any = None
        self.points: list[tuple[int, bool, Any]] = []

    def write(self, text: str) -> None:
        self.parts.append(text)
        self.length += len(text)

    def newline(self, depth: int) -> None:
        if self.indent is not None:
            self.write("\n" + " " * (self.indent * depth))

    def value(self, value: Any, depth: int, attach: Callable[[Any], None]) -> None:
        if isinstance(value, dict | list):
            self.container(value, depth, attach)
        else:
            self.write(json.dumps(value, ensure_ascii=False))
            attach(value)
        if depth > 0:
            scalar = not isinstance(value, str | dict | list)
            self.points.append((self.length, scalar, copy.deepcopy(self.root)))

    def container(self, value: dict[str, Any] | list[Any], depth: int, attach: Callable[[Any], None]) -> None:
        shadow: Any = {} if isinstance(value, dict) else []
        attach(shadow)
        opener, closer = ("{", "}") if isinstance(value, dict) else ("[", "]")
        if not value:
            self.write(opener + closer)
            return
        self.write(opener)
        items = list(value.items()) if isinstance(value, dict) else list(enumerate(value))
        for i, (key, item) in enumerate(items):
            if i:
                self.write("," if self.indent is not None else ", ")
            self.newline(depth + 1)
            if isinstance(value, dict):
                self.write(json.dumps(key, ensure_ascii=False) + ": ")
                self.value(item, depth + 1, lambda v, k=key: shadow.__setitem__(k, v))
            else:
                self.value(item, depth + 1, shadow.append)
        self.newline(depth)
        self.write(closer)

    def run(self, value: dict[str, Any]) -> str:
        def set_root(v: Any) -> None:
            self.root = v

        self.value(value, 0, set_root)
        return "".join(self.parts)


def _valid(schema: type[BaseModel], data: Any) -> BaseModel | None:
    try:
        return schema.model_validate(data)
    except ValidationError:
        return None


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


@pytest.mark.parametrize("indent", [None, 2], ids=["compact", "indented"])
@pytest.mark.parametrize("case", list(CASES))
def test_every_cut_keeps_the_most_complete_items_that_validate(case: str, indent: int | None) -> None:
    schema, answer = CASES[case]
    partials = _Partials(indent)
    text = partials.run(answer)
    assert text == json.dumps(answer, ensure_ascii=False, indent=indent)  # the oracle's offsets hold
    checked = [(end, scalar, _valid(schema, data)) for end, scalar, data in partials.points]
    whole_strings = set(_strings(answer))
    salvaged = 0
    for cut in range(len(text)):
        expected = None
        for end, scalar, value in checked:
            complete = end < cut if scalar else end <= cut
            if complete and value is not None:
                expected = value
        got = salvage(text[:cut], schema)
        if expected is None:
            assert got is None, f"cut at {cut}: {text[:cut]!r}"
            continue
        assert got is not None, f"cut at {cut}: {text[:cut]!r}"
        assert got.value.model_dump() == expected.model_dump(), f"cut at {cut}: {text[:cut]!r}"
        assert set(_strings(got.value.model_dump())) <= whole_strings  # never a half-written string
        salvaged += 1
    assert salvaged > len(text) // 3  # the cases do hold complete items
    assert salvage(text, schema) is None  # a whole answer is not salvaged


def test_a_cut_item_is_dropped_and_counted() -> None:
    schema = extraction_schema(range(1, 15))
    text = json.dumps(EXTRACTION, ensure_ascii=False)
    cut = text.index("Schwangere") + 5
    got = salvage(text[:cut], schema)
    assert got is not None
    assert [f.fact for f in got.value.findings] == [f["fact"] for f in EXTRACTION["findings"][:3]]  # type: ignore[attr-defined]
    assert got.dropped_items == 1
    assert got.kept_chars == text.index(', {"fact": "Schwangere')


def test_an_item_missing_a_required_field_is_dropped() -> None:
    schema = extraction_schema(range(1, 15))
    cut = (
        '{"findings": [{"fact": "A.", "sentences": [1], "answers": true}, {"fact": "B.", "sentences": [2, 3]'
    )
    got = salvage(cut, schema)
    assert got is not None
    assert [f.fact for f in got.value.findings] == ["A."]  # type: ignore[attr-defined]
    assert got.dropped_items == 1


def test_a_report_keeps_whole_claims_of_the_section_it_was_cut_in() -> None:
    schema = one_call_report_schema(EVIDENCE_IDS)
    text = json.dumps(REPORT, ensure_ascii=False)
    got = salvage(text[: text.index("Die Einhaltung") + 3], schema)
    assert got is not None
    sections = got.value.sections  # type: ignore[attr-defined]
    assert [s.heading for s in sections] == ["Effektive Dosis", "Organdosen"]
    assert len(sections[1].claims) == 2
    assert got.dropped_items == 1  # the third claim of "Organdosen"


def test_a_list_below_its_minimum_is_no_salvage() -> None:
    schema = one_call_report_schema(EVIDENCE_IDS)
    assert (
        salvage('{"title": "Grenzwerte", "sections": [{"heading": "Effektive Dosis", "claims": [{"te', schema)
        is None
    )
    assert salvage('{"title": "Grenzwerte", "sections": [', schema) is None


def test_numbers_and_literals_count_only_once_they_end() -> None:
    schema = extraction_schema(range(1, 15))
    head = '{"findings": [{"fact": "A.", "sentences": [1], "answers": true}, {"fact": "B.", "sentences": [12'
    got = salvage(head, schema)
    assert got is not None and len(got.value.findings) == 1  # type: ignore[attr-defined]
    got = salvage(head + '], "answers": fals', schema)
    assert got is not None and len(got.value.findings) == 1  # type: ignore[attr-defined]
    got = salvage(head + '], "answers": false', schema)
    assert got is not None and len(got.value.findings) == 1  # type: ignore[attr-defined]
    got = salvage(head + '], "answers": false}', schema)
    assert got is not None and [f.sentences for f in got.value.findings] == [[1], [12]]  # type: ignore[attr-defined]


def test_raw_control_characters_fences_and_prose_around_a_cut_answer() -> None:
    text = (
        'Hier ist die Antwort:\n```json\n{"findings": ["Unter 18 Jahren:\n\t1 mSv im Kalenderjahr.", '
        '"Auszubildende: bis 6'
    )
    got = salvage(text, TaskSummaryDraft)
    assert got is not None
    assert got.value.findings == ["Unter 18 Jahren:\n\t1 mSv im Kalenderjahr."]  # type: ignore[attr-defined]
    assert got.dropped_items == 1


def test_what_is_not_a_cut_answer_is_not_salvaged() -> None:
    whole = '{"findings": ["a"], "gaps": []}'
    assert salvage(whole, TaskSummaryDraft) is None
    broken = '{"findings": ["a", "b"] "gaps": ["c"'  # a syntax error before the end: not a cut
    assert salvage(broken, TaskSummaryDraft) is None
    assert not ends_unterminated(broken)
    # the same text from a reply cut at the output cap: its complete items before the error
    got = salvage(broken, TaskSummaryDraft, cut=True)
    assert got is not None and got.value.findings == ["a", "b"]  # type: ignore[attr-defined]
    assert salvage("no JSON at all", TaskSummaryDraft, cut=True) is None
    assert salvage('<think>{"findings": ["a", "b"', TaskSummaryDraft) is None  # cut while thinking
    assert salvage('<think>hm</think>{"findings": ["a", "b"', TaskSummaryDraft) is not None


def test_ends_unterminated() -> None:
    assert ends_unterminated('{"a": [1, 2')
    assert ends_unterminated('{"a": "text with \\" an escaped quote')
    assert not ends_unterminated('{"a": [1, 2]}')
    assert not ends_unterminated("plain text")
