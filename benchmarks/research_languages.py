"""Measurement 4 of bench_research: English questions against German ones over the German laws, with the
translation views (issue 24) and without them.

Gold recall of the retrieved sections (``result.retrieved_chunks``), German and English apart, at depth 0
(search alone) and at the default depth (references followed), in three settings measured in one run:

- ``before``: ``research.translation_views = false``, the code before the views (the question and the
  model's queries as written; no translation call, no language check, no glossary queries);
- ``views, fake translation``: the default; the fake's "translation" is made of the prompt's English words,
  so the language check drops it (and the fake's English corpus queries): the question is carried by its
  own view and the glossary's German terms;
- ``views, scripted translation``: the fake answers the translation call with a German translation written
  by hand (``benchmarks/data/research_dev_translations.yaml``), clearly a script, standing in for a model that
  translates.

Goal: English within 0.05 of German at the default depth, with and without the model's translation.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchmarks.common import DATA_DIR, Goal, print_table

if TYPE_CHECKING:
    from benchmarks.bench_research import FakeServer, ResearchQuestion, RunScore
    from rabbithole.services import Services

TRANSLATIONS = DATA_DIR / "research_dev_translations.yaml"
MAX_GAP = 0.05  #: goal: English gold recall at most this far below German
SETTINGS = ("before", "views, fake translation", "views, scripted translation")


def load_translations(path: Path = TRANSLATIONS) -> dict[str, str]:
    import yaml

    data: dict[str, Any] = yaml.safe_load(path.read_text(encoding="utf-8"))
    return {str(k): str(v) for k, v in data["translations"].items()}


def recall(scores: Sequence[RunScore], lang: str, depth: str) -> tuple[int, int]:
    subset = [s for s in scores if s.question.lang == lang and s.depth == depth]
    return sum(s.found for s in subset), sum(s.gold for s in subset)


def dropped_translations(warnings: Sequence[str]) -> int:
    return sum(1 for w in warnings if w.startswith("translate:"))


async def score_setting(
    services: Services, questions: Sequence[ResearchQuestion]
) -> tuple[list[RunScore], int, int]:
    """Every question at depth 0 and the default depth; also the translation calls made and dropped."""
    from benchmarks.bench_research import failed_run, lookups, run_question, score_run

    scores: list[RunScore] = []
    calls = dropped = 0
    for depth, overrides in (("0", {"depth": 0}), ("default", {})):
        for q in questions:
            started = time.perf_counter()
            try:
                result = await run_question(services, q.question, overrides)
            except Exception as exc:  # a failed run is a miss, listed
                print(f"  {q.id} depth {depth}: run failed: {type(exc).__name__}: {exc}")
                scores.append(failed_run(q, depth, f"{type(exc).__name__}: {exc}"))
                continue
            retrieved, pages = lookups(services, result)
            scores.append(score_run(q, depth, result, retrieved, pages, time.perf_counter() - started))
            calls += result.llm_calls.get("translate", 0)
            dropped += dropped_translations(result.warnings)
    return scores, calls, dropped


async def measure_languages(
    services: Services,
    fake: FakeServer,
    questions: Sequence[ResearchQuestion],
    goals: list[Goal],
) -> None:
    from rabbithole.services import Services as ServicesType

    settings = services.settings
    before = settings.model_copy(
        update={"research": settings.research.model_copy(update={"translation_views": False})}
    )
    translations = load_translations()
    print(
        f"\n4. English against German: gold recall of the retrieved sections, {len(questions)} questions, "
        "with the translation views and without them (before)"
    )
    results: dict[str, tuple[list[RunScore], int, int]] = {}
    async with ServicesType(before, share_with=services) as before_services:
        results["before"] = await score_setting(before_services, questions)
    results["views, fake translation"] = await score_setting(services, questions)
    for q in questions:
        if q.lang == "en" and q.id in translations:
            fake.client.script(
                {"translation": translations[q.id]}, schema="QuestionTranslation", prompt_contains=q.question
            )
    try:
        results["views, scripted translation"] = await score_setting(services, questions)
    finally:
        fake.client.reset()
    print_table(
        ["setting", "depth", "de found", "de recall", "en found", "en recall", "en - de", "translate calls",
         "dropped"],
        rows(results),
        title="(before: research.translation_views = false; scripted: German translations written by hand, "
        "answered by the fake)",
    )  # fmt: skip
    for setting in SETTINGS[1:]:
        de, en = (ratio(*recall(results[setting][0], lang, "default")) for lang in ("de", "en"))
        base_de, base_en = (ratio(*recall(results["before"][0], lang, "default")) for lang in ("de", "en"))
        goals.append(
            Goal(
                f"English gold recall within {MAX_GAP} of German ({setting}, default depth)",
                en >= de - MAX_GAP,
                f"en {en:.3f}, de {de:.3f} (before: en {base_en:.3f}, de {base_de:.3f})",
            )
        )


def ratio(part: int, whole: int) -> float:
    return part / whole if whole else float("nan")


def rows(results: Mapping[str, tuple[list[RunScore], int, int]]) -> list[list[object]]:
    out: list[list[object]] = []
    for setting in SETTINGS:
        scores, calls, dropped = results[setting]
        for depth in ("0", "default"):
            de, en = recall(scores, "de", depth), recall(scores, "en", depth)
            out.append(
                [setting, depth, f"{de[0]}/{de[1]}", ratio(*de), f"{en[0]}/{en[1]}", ratio(*en),
                 ratio(*en) - ratio(*de), calls, dropped]
            )  # fmt: skip
    return out
