"""The fake model's schema instances: valid for tricky schemas, meaningful, deterministic."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any, Literal

import jsonschema
import pytest
from pydantic import BaseModel, Field

from rabbithole.devtools.fake_ollama import PromptContext, generate_instance
from rabbithole.devtools.fake_ollama.string_values import sample_regex
from rabbithole.llm.context import context_block

GERMAN_PROMPT = [
    {"role": "system", "content": "Du bist ein sorgfältiger Rechercheassistent."},
    {
        "role": "user",
        "content": context_block(
            [
                "Wer eine fremde bewegliche Sache wegnimmt, wird wegen Diebstahls bestraft. "
                "Der Versuch ist strafbar.",
                "Die Strafe für Diebstahl beträgt bis zu fünf Jahre Freiheitsstrafe. "
                "In besonders schweren Fällen ist die Strafe höher.",
            ],
            ids=["S1", "S2"],
        )
        + "\n\nFrage: Wie hoch ist die Strafe für Diebstahl?",
    },
]
ENGLISH_PROMPT = [
    {
        "role": "user",
        "content": "<context>\n[1] The treaty was signed in Paris by all member states of the union.\n"
        "[2] It entered into force two years later after every parliament had ratified it.\n"
        "</context>\nQuestion: When did the treaty enter into force?",
    }
]


class Verdict(StrEnum):
    supported = "supported"
    refuted = "refuted"
    unclear = "unclear"


class Evidence(BaseModel):
    quote: str = Field(min_length=5)
    source_id: str
    relevance: float = Field(ge=0, le=1)


class Node(BaseModel):
    label: str
    children: list[Node] = Field(default_factory=list, max_length=2)


class Cat(BaseModel):
    kind: Literal["cat"] = "cat"
    lives: int = Field(ge=1, le=9)


class Dog(BaseModel):
    kind: Literal["dog"] = "dog"
    good: bool


class Report(BaseModel):
    title: str = Field(max_length=40)
    language: Literal["de", "en"]
    verdict: Verdict
    answer: str
    summary: str | None = None
    evidence: list[Evidence] = Field(min_length=1, max_length=3)
    queries: list[str] = Field(min_length=3, max_length=5)
    tags: set[str] = Field(default_factory=set)
    scores: dict[str, float] = Field(default_factory=dict)
    pair: tuple[int, str]
    count: Annotated[int, Field(gt=10, lt=13, multiple_of=2)]
    ratio: Annotated[float, Field(gt=0, lt=0.5)]
    tree: Node
    pet: Cat | Dog = Field(discriminator="kind")
    needs_more_research: bool
    is_relevant: bool
    note: Annotated[str, Field(pattern=r"^[A-Z]{2}-\d{3}$")]


def validate(schema: dict[str, Any], instance: Any) -> None:
    jsonschema.Draft202012Validator(schema).validate(instance)


def test_pydantic_schema_instance_is_valid_and_meaningful() -> None:
    schema = Report.model_json_schema()
    ctx = PromptContext.from_messages(GERMAN_PROMPT)
    instance = generate_instance(schema, ctx)
    validate(schema, instance)
    report = Report.model_validate(instance)
    assert report.language == "de"
    assert 3 <= len(report.queries) <= 5 and len(set(report.queries)) == len(report.queries)
    assert "Diebstahl" in " ".join(report.queries)
    assert report.count == 12
    prompt = "\n".join(m["content"] for m in GERMAN_PROMPT)
    for evidence in report.evidence:
        assert evidence.quote in prompt  # verbatim
        assert evidence.source_id in ("S1", "S2")
        source_text = prompt.split(f'id="{evidence.source_id}">', 1)[1].split("</passage>", 1)[0]
        assert evidence.quote in source_text  # cites the passage it quotes
    assert report.evidence[0].quote.startswith("Die Strafe für Diebstahl")  # most relevant first
    assert report.needs_more_research is False and report.is_relevant is True
    assert "Strafe" in report.answer


def test_english_prompt_and_bracket_ids() -> None:
    ctx = PromptContext.from_messages(ENGLISH_PROMPT)
    assert ctx.language == "en"
    assert ctx.ids == ["1", "2"]
    instance = generate_instance(Report.model_json_schema(), ctx)
    report = Report.model_validate(instance)
    assert report.language == "en"
    assert (
        report.evidence[0].quote
        == "It entered into force two years later after every parliament had ratified it."
    )
    assert report.evidence[0].source_id == "2"
    assert report.answer.startswith("According to the provided sources:")


def test_same_prompt_same_instance_other_prompt_other_instance() -> None:
    schema = Report.model_json_schema()
    first = generate_instance(schema, PromptContext.from_messages(GERMAN_PROMPT))
    again = generate_instance(schema, PromptContext.from_messages(GERMAN_PROMPT))
    other = generate_instance(schema, PromptContext.from_messages(ENGLISH_PROMPT))
    assert first == again
    assert first != other


HAND_WRITTEN: list[dict[str, Any]] = [
    {
        "type": "object",
        "required": ["id", "when", "site", "mail", "kind", "n", "maybe", "fixed"],
        "properties": {
            "id": {"type": "string", "format": "uuid"},
            "when": {"type": "string", "format": "date-time"},
            "site": {"type": "string", "format": "uri"},
            "mail": {"type": "string", "format": "email"},
            "kind": {"enum": ["a", 1, None]},
            "n": {"type": ["integer", "null"], "minimum": 5, "exclusiveMaximum": 7},
            "maybe": {"oneOf": [{"type": "null"}, {"type": "number", "multipleOf": 0.25, "minimum": 2.1}]},
            "fixed": {"const": {"x": 1}},
            "short": {"type": "string", "minLength": 3, "maxLength": 4},
        },
        "additionalProperties": False,
    },
    {"type": "array", "items": {"enum": ["x", "y"]}, "minItems": 2, "uniqueItems": True},
    {
        "$defs": {
            "leaf": {"type": "object", "properties": {"v": {"$ref": "#/definitions/deep"}}, "required": ["v"]}
        },
        "definitions": {"deep": {"allOf": [{"type": "integer"}, {"minimum": 40}]}},
        "type": "object",
        "properties": {
            "leaf": {"$ref": "#/$defs/leaf"},
            "list": {"type": "array", "prefixItems": [{"type": "boolean"}], "items": False},
        },
        "required": ["leaf", "list"],
    },
    {"type": "object", "additionalProperties": {"type": "integer"}, "minProperties": 2},
    {"type": "string", "pattern": r"^(foo|bar)-[a-f0-9]{4}_\w+$"},
]


@pytest.mark.parametrize("schema", HAND_WRITTEN)
def test_hand_written_schemas(schema: dict[str, Any]) -> None:
    instance = generate_instance(schema, PromptContext.from_messages(ENGLISH_PROMPT))
    validate(schema, instance)


def test_formats_are_well_formed() -> None:
    instance = generate_instance(HAND_WRITTEN[0], PromptContext.from_messages(ENGLISH_PROMPT))
    checker = jsonschema.Draft202012Validator.FORMAT_CHECKER
    jsonschema.Draft202012Validator(HAND_WRITTEN[0], format_checker=checker).validate(instance)
    assert instance["site"].startswith("https://")
    assert 5 <= instance["n"] < 7


def test_recursive_schema_terminates() -> None:
    schema = Node.model_json_schema()
    instance = generate_instance(schema, PromptContext.from_messages(ENGLISH_PROMPT))
    Node.model_validate(instance)
    validate(schema, instance)


def test_regex_sampler() -> None:
    import random

    for pattern in (r"^\d{4}-\d{2}$", r"[A-Z][a-z]+ \d+", r"^(x|y)+[^a-z]$", r"^v\.\d+\.\d+$"):
        sample = sample_regex(pattern, random.Random(1))
        assert sample is not None
        assert __import__("re").search(pattern, sample)


def test_prompt_context_reads_generate_style_prompts() -> None:
    ctx = PromptContext.from_prompt("Frage: Was ist ein Vertrag?", system="Antworte kurz.")
    assert ctx.language == "de"
    assert ctx.question == "Was ist ein Vertrag?"
    assert ctx.keywords[0] == "Vertrag"
