"""Cut structured answers: how many a research step can still use (``rabbithole.llm.json_salvage``).

    python -m benchmarks.bench_salvage

Corpus: the answers the fake Ollama writes for three structured steps (a report section: claims with
evidence ids, report mode's ``section_schema``; an extraction: findings with sentence numbers; a plan:
tasks with queries), one per question of ``benchmarks/data/retrieval_dev.yaml``, with as many items as each
schema allows, written compact and indented; each answer cut at 200, 500, 1,000 and 1,500 characters
(where it is longer), as a model's answer is cut at its output cap.

Per step and cut: the share of cut answers that give a value (salvaged); the items complete before the cut
(closed), the items the values keep with all their values (an item whose closing bracket was cut is kept
whole), and those kept in part (the cut went through one of their own lists, after their required fields).
Beside it, measured in the same run, the reader before the salvage (``extract_json`` and validation): a cut
answer never parses, so every one was an invalid attempt.
Goals (correctness): every salvaged value validates and holds only strings the whole answer holds (no half
string), its items are the first ones of the whole answer, and a cut answer with a complete item that
validates on its own is salvaged.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ValidationError

from benchmarks.common import Goal, load_dev_questions, machine_info, print_goals, print_table
from rabbithole.devtools.fake_ollama import PromptContext, generate_instance
from rabbithole.llm import context_block
from rabbithole.llm.json_salvage import salvage
from rabbithole.llm.structured import extract_json, json_schema_of
from rabbithole.research.dig.schemas import extraction_schema
from rabbithole.research.report.schemas import section_schema
from rabbithole.research.run.schemas import plan_schema

CUTS = (200, 500, 1000, 1500)
PASSAGES = [
    "Für beruflich exponierte Personen beträgt der Grenzwert der effektiven Dosis 20 Millisievert im "
    "Kalenderjahr. Die zuständige Behörde kann im Einzelfall für ein einzelnes Jahr eine effektive Dosis "
    "von 50 Millisievert zulassen, wobei für fünf aufeinander folgende Jahre 100 Millisievert nicht "
    "überschritten werden dürfen.",
    "Für beruflich exponierte Personen unter 18 Jahren beträgt der Grenzwert der effektiven Dosis 1 "
    "Millisievert im Kalenderjahr. Die zuständige Behörde kann für Auszubildende und Studierende im Alter "
    "zwischen 16 und 18 Jahren einen Grenzwert von 6 Millisievert im Kalenderjahr festlegen, wenn dies zur "
    "Erreichung des Ausbildungsziels notwendig ist.",
    "Der Strahlenschutzverantwortliche hat dafür zu sorgen, dass Strahlenschutzbereiche eingerichtet werden, "
    "wenn die Exposition von Personen einen der Grenzwerte überschreiten kann. Überwachungsbereiche sind "
    "betriebliche Bereiche, in denen Personen eine effektive Dosis von mehr als 1 Millisievert erhalten "
    "können.",
    "Die Genehmigung nach § 7 des Atomgesetzes darf nur erteilt werden, wenn die erforderliche Vorsorge "
    "gegen Schäden durch die Errichtung und den Betrieb der Anlage getroffen ist. Die Kosten der "
    "Standortauswahl für ein Endlager trägt der Abfallerzeuger nach Maßgabe des Standortauswahlgesetzes.",
]
IDS = ["E1", "E2", "E3", "E4", "E5", "E6", "E7", "E8"]


@dataclass(frozen=True)
class Step:
    name: str
    schema: type[BaseModel]
    items_key: str
    max_items: int


STEPS = (
    Step("report section", section_schema(IDS, max_claims=12), "claims", 12),
    Step("extraction", extraction_schema(range(1, 13)), "findings", 12),
    Step("plan", plan_schema(1, 6), "tasks", 6),
)


@dataclass
class Tally:
    answers: int = 0
    salvaged: int = 0
    old_read: int = 0
    kept: int = 0
    #: kept items that lost part of their own lists (the cut went through them; required fields complete)
    partial: int = 0
    complete: int = 0
    problems: list[str] = field(default_factory=list)
    #: cut answers with a complete item that validates alone, and how many of them were salvaged
    salvageable: int = 0
    salvaged_of_salvageable: int = 0


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def _validates(schema: type[BaseModel], data: Any) -> bool:
    try:
        schema.model_validate(data)
    except ValidationError:
        return False
    return True


def _old_reader(text: str, schema: type[BaseModel]) -> bool:
    """Whether the reader before the salvage took the text (``extract_json`` strict, then validation)."""
    try:
        schema.model_validate(json.loads(text) if text.strip().startswith("{") else extract_json(text))
    except (json.JSONDecodeError, ValidationError):
        return False
    return True


def answers(step: Step, questions: list[str]) -> list[dict[str, Any]]:
    out = []
    schema = json_schema_of(step.schema)
    for question in questions:
        prompt = context_block(PASSAGES, ids=IDS[: len(PASSAGES)]) + f"\n\nFrage: {question}"
        ctx = PromptContext.from_prompt(prompt)
        out.append(generate_instance(schema, ctx, items=step.max_items))
    return out


def measure(step: Step, corpus: list[dict[str, Any]], indent: int | None, cut: int, tally: Tally) -> None:
    def dump(value: Any) -> str:
        return json.dumps(value, ensure_ascii=False, indent=indent)

    probe = dump({step.items_key: ["X"]})
    tail = len(probe) - probe.index('"X"') - 3  # what follows the last item: "]}" or "\n  ]\n}"
    for answer in corpus:
        text = dump(answer)
        if len(text) <= cut:
            continue
        items = answer[step.items_key]
        whole = step.schema.model_validate(answer).model_dump(mode="json")[step.items_key]
        ends = [len(dump({step.items_key: items[: i + 1]})) - tail for i in range(len(items))]
        complete = sum(1 for end in ends if end <= cut)
        tally.answers += 1
        tally.complete += complete
        tally.old_read += _old_reader(text[:cut], step.schema)
        got = salvage(text[:cut], step.schema)
        first_alone = complete > 0 and _validates(step.schema, {step.items_key: items[:1]})
        tally.salvageable += first_alone
        if got is None:
            continue
        tally.salvaged += 1
        tally.salvaged_of_salvageable += first_alone
        kept = got.value.model_dump(mode="json")[step.items_key]
        tally.kept += len(kept)
        tally.partial += bool(kept) and kept[-1] != whole[len(kept) - 1]
        written = got.value.model_dump(mode="json", exclude_unset=True)  # without the schema's defaults
        if not set(_strings(written)) <= set(_strings(answer)):
            tally.problems.append(f"{step.name} cut at {cut}: a string that the whole answer does not hold")
        if kept[:-1] != whole[: len(kept) - 1]:  # the last one may have lost items of its own lists
            tally.problems.append(f"{step.name} cut at {cut}: the kept items are not the answer's first ones")


def main(argv: list[str] | None = None) -> int:
    print(machine_info())
    questions = [q.question for q in load_dev_questions()]
    rows = []
    goals: list[Goal] = []
    total = Tally()
    for step in STEPS:
        corpus = answers(step, questions)
        lengths = sorted(len(json.dumps(a, ensure_ascii=False)) for a in corpus)
        print(f"{step.name}: {len(corpus)} answers, {lengths[0]}-{lengths[-1]} characters compact")
        for indent in (None, 2):
            for cut in CUTS:
                tally = Tally()
                measure(step, corpus, indent, cut, tally)
                if not tally.answers:
                    continue
                rows.append(
                    [
                        step.name,
                        "compact" if indent is None else "indented",
                        cut,
                        tally.answers,
                        f"{tally.old_read}/{tally.answers}",
                        f"{tally.salvaged}/{tally.answers}",
                        tally.complete,
                        tally.kept - tally.partial,
                        tally.partial,
                    ]
                )
                for name in ("answers", "salvaged", "old_read", "kept", "partial", "complete"):
                    setattr(total, name, getattr(total, name) + getattr(tally, name))
                total.salvageable += tally.salvageable
                total.salvaged_of_salvageable += tally.salvaged_of_salvageable
                total.problems += tally.problems
    print_table(
        [
            "step",
            "JSON",
            "cut at",
            "answers",
            "read before",
            "salvaged",
            "complete items",
            "kept",
            "kept in part",
        ],
        rows,
        title="\ncut answers (the reader before beside the salvage, same run):",
    )
    print(
        f"\nall: {total.salvaged}/{total.answers} cut answers salvaged "
        f"({total.salvaged / max(1, total.answers):.0%}; before: {total.old_read}), "
        f"{total.kept - total.partial}/{total.complete} complete items kept "
        f"({(total.kept - total.partial) / max(1, total.complete):.0%}), "
        f"and {total.partial} items that the cut went through, with their required fields complete"
    )
    goals.append(
        Goal("no half string, items in order", not total.problems, "; ".join(total.problems[:3]) or "ok")
    )
    goals.append(
        Goal(
            "a cut answer with a complete item that validates alone is salvaged",
            total.salvaged_of_salvageable == total.salvageable,
            f"{total.salvaged_of_salvageable}/{total.salvageable}",
        )
    )
    return 0 if print_goals(goals) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
