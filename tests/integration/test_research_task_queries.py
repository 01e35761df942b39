"""The queries a task is searched with (research/dig/nodes.py ``make_queries``), and a plan of one task
(research/run/nodes.py ``plan``): real research runs over kb/sample against the fake Ollama."""

from __future__ import annotations

from typing import Any

import pytest

from rabbithole.devtools.fake_ollama import FakeOllama
from rabbithole.runs.runner import run_research
from rabbithole.services import Services

pytestmark = pytest.mark.asyncio

#: an English question over the German laws; its anchor scripted without corpus queries and the fake's
#: translation (English words) dropped by the language check: the first task has no corpus queries, and is
#: routed to make_queries, which replaced all its queries (the question itself among them)
ENGLISH = "Who finances the site search?"


async def run(services: Services, question: str, **overrides: Any) -> tuple[Any, list[dict[str, Any]]]:
    events: list[dict[str, Any]] = []
    result = await run_research(
        services, question, ["sample"], overrides={"depth": 0, **overrides}, on_event=events.append
    )
    return result, events


async def test_the_first_task_keeps_the_question_when_its_corpus_queries_are_made(
    research_services: Services, fake_ollama: FakeOllama
) -> None:
    anchor = {
        "key_entities": ["site search"],
        "scope": "financing",
        "research_queries": ["financing of the site selection"],
        "corpus_queries": [],
        "summary": "Who pays for the site search.",
    }
    fake_ollama.script(anchor, schema="AnchorDraft")
    result, events = await run(research_services, ENGLISH)
    assert result.status == "done" and result.llm_calls.get("task_queries", 0) >= 1
    searched = next(
        e for e in events if e["type"] == "task_progress" and e["step"] == "searched" and e["task_id"] == "t1"
    )
    assert searched["queries"][0] == ENGLISH  # the task's own queries, kept
    assert "financing of the site selection" in searched["queries"]
    assert searched["dropped_corpus_queries"] >= 1  # the model's corpus queries, added (and checked: English)


async def test_a_plan_of_one_task_is_the_question_alone(research_services: Services) -> None:
    # max_tasks 1 leaves no task to plan: no plan call (its token count was read before it was set)
    result, _ = await run(
        research_services, "Welche Grenzwerte gelten für beruflich exponierte Personen?", max_tasks=1
    )
    assert result.status == "done" and [t.id for t in result.tasks] == ["t1"]
    assert "plan" not in result.llm_calls
