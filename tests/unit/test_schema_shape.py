"""The compact schema instruction (issue 24, token economy): a schema's shape in a few lines instead of the
whole JSON schema in every structured step's system prompt."""

from __future__ import annotations

import json
from typing import Literal

from pydantic import BaseModel, Field

from rabbithole.llm.schema_shape import MAX_ENUM_SHOWN, schema_shape
from rabbithole.llm.structured import schema_instruction, with_schema_instruction
from rabbithole.llm.tokens import TokenCounter
from rabbithole.research.dig.schemas import TaskSummaryDraft, extraction_schema, gate_schema
from rabbithole.research.run.schemas import plan_schema


class Quote(BaseModel):
    """A class docstring: not a field's description."""

    text: str = Field(description="Verbatim.")
    page: int = Field(ge=1)


class Answer(BaseModel):
    language: Literal["de", "en"]
    score: int = Field(ge=0, le=100)
    share: float = Field(gt=0, lt=1)
    quotes: list[Quote] = Field(min_length=1, max_length=3, description="Where it is written")
    note: str | None = None
    labels: dict[str, int] = Field(default_factory=dict)
    short: str = Field(max_length=80)


def test_the_shape_of_the_extraction_schema() -> None:
    shape = schema_shape(extraction_schema(list(range(1, 59))).model_json_schema())
    assert shape == (
        '{"findings": [{"fact": string, "sentences": [integer] (1-8 items), "answers": boolean}] '
        "(at most 12)}\n"
        "fact: The finding in one sentence, in your own words. "
        "sentences: Numbers of the sentences that state it. "
        "answers: Does it answer the task (false: related only)?"
    )


def test_keys_types_counts_bounds_and_optional_keys() -> None:
    shape = schema_shape(Answer.model_json_schema())
    line, notes = shape.split("\n")
    assert line == (
        '{"language": "de" | "en", "score": integer (0-100), "share": number (above 0, below 1), '
        '"quotes": [{"text": string, "page": integer (at least 1)}] (1-3 items), '
        '"note": string (optional), "labels": {string: integer} (optional), '
        '"short": string (at most 80 characters)}'
    )
    assert notes == "quotes: Where it is written. text: Verbatim."  # the class docstring is left out


def test_long_enums_are_left_to_the_format_constraint() -> None:
    gate = schema_shape(gate_schema(25).model_json_schema())
    decisions = '{"decisions": [{"index": integer, "follow": boolean, "reason": string}] (at most 25'
    assert gate.startswith(decisions)
    assert "24" not in gate
    short = schema_shape(gate_schema(MAX_ENUM_SHOWN).model_json_schema())
    assert '"index": 0 | 1 | 2 | 3 | 4 | 5 | 6 | 7,' in short


def test_nested_definitions_are_inlined() -> None:
    shape = schema_shape(plan_schema(2, 4).model_json_schema())
    assert shape.startswith('{"tasks": [{"title": string, ')
    assert "$ref" not in shape and "$defs" not in shape and "TaskDraft" not in shape


def test_the_instruction_is_a_fraction_of_the_full_schema() -> None:
    counter = TokenCounter()
    schemas = [extraction_schema(list(range(1, 59))), gate_schema(25), plan_schema(2, 4), TaskSummaryDraft]
    shapes = fulls = 0
    for schema in schemas:
        shape = schema_instruction(schema)
        full = schema_instruction(schema, "full")
        assert json.dumps(schema.model_json_schema(), ensure_ascii=False) in full
        assert schema.__name__ not in shape  # a weak model writes the class name back as a title
        assert counter.count(shape) * 2 < counter.count(full), schema.__name__
        shapes, fulls = shapes + counter.count(shape), fulls + counter.count(full)
    assert shapes * 4 < fulls


def test_with_schema_instruction_appends_to_the_system_message() -> None:
    from langchain_core.messages import HumanMessage, SystemMessage

    messages = with_schema_instruction([SystemMessage("Plan."), HumanMessage("Q")], TaskSummaryDraft)
    assert len(messages) == 2
    assert messages[0].content == (
        "Plan.\n\nAnswer with exactly one JSON object of this shape, with no other text:\n"
        + schema_shape(TaskSummaryDraft.model_json_schema())
    )
    alone = with_schema_instruction([HumanMessage("Q")], TaskSummaryDraft, "full")
    assert isinstance(alone[0], SystemMessage) and "matches this JSON schema" in str(alone[0].content)
