"""The fake Ollama's weak-model behaviours, each turned on alone, over HTTP: answers cut at the output cap,
repetition, placeholders as headings, changed figures and facts from other sentences, the wrong language,
raw control characters in JSON strings (issues 24 and 30)."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from fixtures.weak_model import ask, chat_body, first_body
from rabbithole.devtools.fake_ollama import FakeOllama
from rabbithole.research.language import LanguageDetector

LIMIT_1_MSV = "Für beruflich exponierte Personen unter 18 Jahren beträgt der Grenzwert der effektiven Dosis "
GERMAN_PROMPT = (
    "<context>\n[S1] " + LIMIT_1_MSV + "1 Millisievert im Kalenderjahr.\n[S2] Die zuständige Behörde kann "
    "im Einzelfall Ausnahmen von den Grenzwerten zulassen, wenn die Arbeitsbedingungen dies erfordern.\n"
    "[S3] Die Körperdosen sind für jede beruflich exponierte Person zu ermitteln und aufzuzeichnen.\n"
    "</context>\nFrage: Welche Grenzwerte gelten für Personen unter 18 Jahren?"
)
ENGLISH_PROMPT = (
    "<context>\n[S1] The effective dose limit for occupationally exposed persons is 20 millisievert in a "
    "calendar year.\n[S2] The competent authority may allow exceptions where the working conditions "
    "require them.\n</context>\nQuestion: Which dose limits apply to workers?"
)
_NUMBERED = re.compile(r"^\[(\d+)\] (.+)$", re.MULTILINE)


@pytest.fixture(scope="module")
def detector() -> LanguageDetector:
    return LanguageDetector(("de", "en"))


def normal_and_weak(fake: FakeOllama, body: dict[str, Any], **knobs: Any) -> tuple[str, str]:
    """The answer to ``body`` in the normal profile, then with ``knobs`` alone."""
    fake.set_profile("normal")
    normal = ask(fake, body)
    assert normal.record.weak == [] and normal.done_reason == "stop"
    fake.set_profile(**knobs)
    return normal.content, ask(fake, body).content


def test_truncation_makes_answers_long_and_cuts_them_at_the_cap(fake_ollama: FakeOllama) -> None:
    body = first_body("Extraction")
    normal, _ = normal_and_weak(fake_ollama, body, truncation=1.0)
    reply = ask(fake_ollama, body)
    assert reply.done_reason == "length" and reply.record.weak == ["truncation"]
    assert len(reply.content) == 1500 and len(normal) < 1500
    assert reply.content.count('"fact": ') > len(json.loads(normal)["findings"])
    with pytest.raises(json.JSONDecodeError, match="Unterminated string"):
        json.loads(reply.content)  # a long extraction ends mid-string, as the 0.5B model's did
    fake_ollama.set_profile(truncation=1.0, char_cap=300)
    report = ask(fake_ollama, first_body("ReportDraft"))
    assert len(report.content) == 300 and report.done_reason == "length"
    capped = ask(fake_ollama, {**first_body("ReportDraft"), "options": {"num_predict": 5}})
    assert capped.done_reason == "length" and len(capped.content.split()) == 5  # num_predict cuts as before


def test_repetition_copies_one_item_into_every_list_and_one_sentence_into_prose(
    fake_ollama: FakeOllama,
) -> None:
    _, answer = normal_and_weak(fake_ollama, first_body("ReportDraft"), repetition=1.0)
    report = json.loads(answer)
    claims = [claim for section in report["sections"] for claim in section["claims"]]
    assert [len(s["claims"]) for s in report["sections"]] == [7] * len(report["sections"])
    assert len(report["sections"]) >= 2 and all(c == claims[0] for c in claims)  # text and its citations
    findings = json.loads(ask(fake_ollama, first_body("Extraction")).content)["findings"]
    assert len(findings) == 7 and all(f == findings[0] for f in findings)
    summary = json.loads(ask(fake_ollama, first_body("TaskSummaryDraft")).content)["findings"]
    assert len(summary) == 7 and len(set(summary)) == 1
    normal, prose = normal_and_weak(fake_ollama, chat_body(GERMAN_PROMPT), repetition=1.0)
    sentence = LIMIT_1_MSV + "1 Millisievert im Kalenderjahr. [S1]"
    assert normal.startswith(f"Laut den vorliegenden Quellen: {sentence} Die")
    assert prose == "Laut den vorliegenden Quellen: " + " ".join([sentence] * 14)


def test_placeholders_fill_headings_with_schema_names(fake_ollama: FakeOllama) -> None:
    fake_ollama.set_profile(placeholders=1.0)
    titles: set[str] = set()
    headings: set[str] = set()
    for step in range(12):  # other temperatures: other draws of the same request
        body = first_body("ReportDraft")
        body["options"] = {**body["options"], "temperature": step / 10}
        reply = ask(fake_ollama, body)
        assert reply.record.weak == ["placeholders"]
        report = json.loads(reply.content)
        titles.add(report["title"])
        headings.update(section["heading"] for section in report["sections"])
        assert all(claim["text"] for section in report["sections"] for claim in section["claims"])
    assert titles == {"ReportDraft", "Title of the report"}
    numbered = {h for h in headings if re.fullmatch(r"Section \d", h)}
    assert {"Section heading", "Claims", "Sections", "Section 1", "Section 2"} <= headings
    assert headings - numbered == {"Section heading", "Claims", "Sections"}
    plan = json.loads(ask(fake_ollama, first_body("PlanDraft")).content)
    assert {task["title"] for task in plan["tasks"]} <= {"Task 1", "Task 2", "Task title", "Tasks", "Queries"}


def test_junk_changes_a_figure_and_writes_a_fact_from_another_sentence(fake_ollama: FakeOllama) -> None:
    normal, answer = normal_and_weak(fake_ollama, chat_body(GERMAN_PROMPT), junk=1.0)
    assert "1 Millisievert" in normal and "20 Millisievert" not in normal
    assert answer == normal.replace("1 Millisievert", "20 Millisievert")  # issue 30's contradiction
    body = first_body("Extraction")
    numbered = dict(_NUMBERED.findall(body["messages"][-1]["content"]))
    reply = ask(fake_ollama, body)
    assert reply.record.weak == ["junk"]
    finding = json.loads(reply.content)["findings"][0]
    chosen = {numbered[str(n)].strip() for n in finding["sentences"]}
    assert finding["fact"] not in chosen
    others = {text.strip() for n, text in numbered.items() if int(n) not in finding["sentences"]}
    digits = re.compile(r"\d+")  # the fact is another sentence, one figure changed
    assert any(digits.sub("#", finding["fact"]) == digits.sub("#", other) for other in others)
    assert finding["fact"] not in others


def test_wrong_language_answers_german_in_english_and_english_in_german(
    fake_ollama: FakeOllama, detector: LanguageDetector
) -> None:
    _, answer = normal_and_weak(fake_ollama, chat_body(GERMAN_PROMPT), wrong_language=1.0)
    assert detector.detect(answer) == "en" and "[S1]" in answer
    assert detector.detect(ask(fake_ollama, chat_body(ENGLISH_PROMPT)).content) == "de"
    fake_ollama.set_profile("normal")
    normal = json.loads(ask(fake_ollama, first_body("ReportDraft")).content)
    fake_ollama.set_profile(wrong_language=1.0)
    report = json.loads(ask(fake_ollama, first_body("ReportDraft")).content)
    assert detector.detect(first_body("ReportDraft")["messages"][-1]["content"]) == "de"
    for section, before in zip(report["sections"], normal["sections"], strict=True):
        assert detector.detect(section["heading"]) == "en"
        for claim, was in zip(section["claims"], before["claims"], strict=True):
            assert detector.detect(claim["text"]) == "en" and claim["evidence"] == was["evidence"]


def test_control_chars_put_a_raw_newline_inside_a_json_string(fake_ollama: FakeOllama) -> None:
    for schema in ("TaskSummaryDraft", "ReportDraft", "Extraction"):
        normal, answer = normal_and_weak(fake_ollama, first_body(schema), control_chars=1.0)
        assert answer.count("\n") == 1 and "\n" not in normal
        with pytest.raises(json.JSONDecodeError, match="Invalid control character"):
            json.loads(answer)
        lenient = json.loads(answer, strict=False)
        assert json.loads(answer.replace("\n", " ")) == json.loads(normal) != lenient
