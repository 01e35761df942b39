"""Each passage read once per run (issue 24's token economy): tasks that retrieve the same passage do not
send it to the model again; the reading of the task that read it becomes their evidence, and a passage its
reader could not read is read by the task that waited for it."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

import pytest

from rabbithole.devtools.fake_ollama import FakeOllama, PromptContext, generate_instance
from rabbithole.devtools.fake_ollama.state import RecordedRequest
from rabbithole.research.models import ResearchResult, TaskResult
from rabbithole.runs.runner import ResearchRunner
from rabbithole.services import Services

pytestmark = pytest.mark.asyncio

QUESTION = "Welche Grenzwerte gelten für beruflich exponierte Personen?"
SMALL = {"depth": 0, "k": 2, "max_tasks": 2, "concurrency": 1}  # the tasks dug one after the other
_BLOCK = re.compile(r'<passage id="([^"]+)"[^>]*>(.*?)</passage>', re.DOTALL)
_NUMBER = re.compile(r"(?m)^\[\d+\] ")
_TASK = re.compile(r"^Task: (.+?)(?: \(|$)", re.MULTILINE)


def prompt_of(request: RecordedRequest) -> str:
    return "\n".join(str(m.get("content", "")) for m in request.messages if m.get("role") != "assistant")


def first_attempts(fake: FakeOllama) -> list[RecordedRequest]:
    """Every extraction call's first attempt (a retry of an invalid answer shows the same passages)."""
    return [
        r
        for r in fake.model_requests()
        if r.schema_name == "Extraction" and not any(m.get("role") == "assistant" for m in r.messages)
    ]


def shown(request: RecordedRequest) -> list[tuple[str, str]]:
    """The passages an extraction prompt shows: chunk id and the text under it (without the sentence
    numbers, which depend on the prompt)."""
    return [
        (chunk, " ".join(_NUMBER.sub(" ", text).split()))
        for chunk, text in _BLOCK.findall(prompt_of(request))
    ]


def task_of(request: RecordedRequest) -> str:
    match = _TASK.search(prompt_of(request))
    assert match is not None
    return match.group(1)


async def run(sample_index: Services, fake: FakeOllama) -> tuple[ResearchResult, list[TaskResult]]:
    settings = sample_index.settings.model_copy(update={"llm": fake.settings()})
    async with Services(settings, share_with=sample_index) as services:
        runner = ResearchRunner(services)
        record = runner.create(QUESTION, ["sample"], "quick", SMALL)
        view = await runner.advance(record.id)
        graph = await runner.graph("quick")
        snapshot = await graph.aget_state({"configurable": {"thread_id": record.id}})
    assert view.result is not None
    return view.result, list(snapshot.values["task_results"])


async def test_a_passage_two_tasks_retrieved_is_read_once(
    sample_index: Services, fake_ollama: FakeOllama
) -> None:
    result, tasks = await run(sample_index, fake_ollama)
    assert result.status == "done" and len(tasks) == 2
    calls = first_attempts(fake_ollama)
    seen = Counter(p for c in calls for p in shown(c))
    assert seen and max(seen.values()) == 1, [p[0] for p, n in seen.items() if n > 1]
    shared = sum(t.passages_shared for t in tasks)
    assert shared > 0  # the two tasks of this question retrieve passages in common
    assert sum(t.passages for t in tasks) - shared == len(seen)
    by_task = {t.task_id: t for t in tasks}
    for task in tasks:
        read_here = {chunk for c in calls if task_of(c) == task.title for chunk, _ in shown(c)}
        assert task.state == "done" and task.passages_unread == []
        for e in task.evidence:
            assert e.task_id == task.task_id and e.id.startswith(f"{task.task_id}-b")
        if task.passages_shared:
            # findings of passages this task never sent to the model: the other task's reading of them
            taken = [e for e in task.evidence if e.chunk_id not in read_here]
            other = next(t for i, t in by_task.items() if i != task.task_id)
            assert taken and {e.chunk_id for e in taken} <= {e.chunk_id for e in other.evidence}
            assert {(e.chunk_id, e.start, e.end) for e in taken} <= {
                (e.chunk_id, e.start, e.end) for e in other.evidence
            }


async def test_a_passage_its_reader_could_not_read_is_read_by_the_task_that_waited(
    sample_index: Services, fake_ollama: FakeOllama
) -> None:
    failing: list[str] = []

    def first_task_fails(request: RecordedRequest) -> str | dict[str, Any]:
        """No valid answer ever for the task dug first; good answers for the other."""
        task = task_of(request)
        if not failing:
            failing.append(task)
        if task == failing[0]:
            return "Die Passagen behandeln Grenzwerte und"
        return generate_instance(request.format, PromptContext.from_messages(request.messages))  # type: ignore[no-any-return]

    fake_ollama.script(first_task_fails, schema="Extraction")
    result, tasks = await run(sample_index, fake_ollama)
    assert result.status == "done"
    calls = first_attempts(fake_ollama)
    first = next(t for t in tasks if t.title == failing[0])
    second = next(t for t in tasks if t.title != failing[0])
    read_first = {p for c in calls if task_of(c) == first.title for p in shown(c)}
    read_second = {p for c in calls if task_of(c) == second.title for p in shown(c)}
    assert first.state == "error" and len(first.passages_unread) == first.passages == len(read_first)
    # the passages both tasks retrieved: claimed by the first, which could not read them, then read by
    # the second itself, which has everything it retrieved read and nothing taken from the first
    assert read_first & read_second
    assert second.passages_shared == 0 and second.passages_unread == []
    assert len(read_second) == second.passages and second.evidence
