"""Research runs whose extraction answers fail the way a 0.5B model's did (issue 24): invalid answers for
batches of several passages, answers cut at the output cap. The passages are asked again in smaller
batches; what stays unread is recorded as unread, and the run goes on. Task summaries cut short keep their
complete items or fall back to the findings."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import pytest

from rabbithole.devtools.fake_ollama import FakeOllama, PromptContext, generate_instance
from rabbithole.devtools.fake_ollama.state import RecordedRequest
from rabbithole.research.evidence.claim_tokens import ClaimToken, claim_tokens, missing_tokens
from rabbithole.research.evidence.numbering import prompt_id
from rabbithole.research.models import ResearchResult, TaskResult
from rabbithole.runs.runner import ResearchRunner
from rabbithole.services import Services

pytestmark = pytest.mark.asyncio

QUESTION = "Welche Grenzwerte gelten für beruflich exponierte Personen?"
# the tasks one after the other: which task reads a passage both retrieved (each passage is read once per
# run) is then the same in every run
SMALL = {"depth": 0, "k": 2, "max_tasks": 2, "concurrency": 1}
_PASSAGE = re.compile(r'<passage id="([^"]+)"')
_TASK = re.compile(r"^Task: (.+?)(?: \(|$)", re.MULTILINE)


def prompt_of(request: RecordedRequest) -> str:
    return "\n".join(str(m.get("content", "")) for m in request.messages if m.get("role") != "assistant")


def passages_of(request: RecordedRequest) -> list[str]:
    """The passages an extraction prompt shows (the retry of an invalid answer shows the same ones)."""
    return list(dict.fromkeys(_PASSAGE.findall(prompt_of(request))))


def valid(request: RecordedRequest) -> dict[str, Any]:
    return generate_instance(request.format, PromptContext.from_messages(request.messages))  # type: ignore[no-any-return]


def extraction_calls(fake: FakeOllama) -> list[RecordedRequest]:
    """The first attempt of every extraction call (a retry of an invalid answer echoes it back)."""
    return [
        r
        for r in fake.model_requests()
        if r.schema_name == "Extraction" and not any(m.get("role") == "assistant" for m in r.messages)
    ]


def task_of(request: RecordedRequest) -> str:
    match = _TASK.search(prompt_of(request))
    assert match is not None
    return match.group(1)


async def run(
    sample_index: Services, fake: FakeOllama, **research: Any
) -> tuple[ResearchResult, list[TaskResult], list[dict[str, Any]]]:
    """A quick run on the sample with these research settings: its result, task results and events."""
    settings = sample_index.settings.model_copy(
        update={
            "llm": fake.settings(),
            "research": sample_index.settings.research.model_copy(update=research),
        }
    )
    events: list[dict[str, Any]] = []
    async with Services(settings, share_with=sample_index) as services:
        runner = ResearchRunner(services)
        record = runner.create(QUESTION, ["sample"], "quick", SMALL)
        view = await runner.advance(record.id, on_event=events.append)
        graph = await runner.graph("quick")
        snapshot = await graph.aget_state({"configurable": {"thread_id": record.id}})
    assert view.result is not None
    return view.result, list(snapshot.values["task_results"]), events


def several_passages_invalid(request: RecordedRequest) -> str | dict[str, Any]:
    """The weak model: no valid answer for a prompt with several passages, a good one for one passage."""
    if len(passages_of(request)) > 1:
        return "Die Passagen behandeln Grenzwerte für beruflich exponierte Personen und"
    return valid(request)


async def test_passages_of_invalid_batches_are_read_in_smaller_batches(
    sample_index: Services, fake_ollama: FakeOllama
) -> None:
    fake_ollama.script(several_passages_invalid, schema="Extraction")
    result, tasks, _ = await run(sample_index, fake_ollama, extract_retry_calls=60)
    assert result.status == "done"
    calls = extraction_calls(fake_ollama)
    assert any(len(passages_of(c)) > 1 for c in calls)  # the batches failed ...
    read = [c for c in calls if len(passages_of(c)) == 1]
    assert read  # ... and their passages were read one by one
    assert result.llm_calls["extract"] == sum(
        1 for r in fake_ollama.model_requests() if r.schema_name == "Extraction"
    )
    for task in tasks:
        assert task.state == "done" and task.evidence and task.passages_unread == []
        one_by_one = {p for c in read if task_of(c) == task.title for p in passages_of(c)}
        # every passage of the task read on its own, or taken from another task's reading of it
        assert len(one_by_one) + task.passages_shared == task.passages
        assert task.extraction_failures == sum(
            1 for c in calls if task_of(c) == task.title and len(passages_of(c)) > 1
        )
        assert len({e.id for e in task.evidence}) == len(task.evidence)
    assert not [w for w in result.warnings if "could not read" in w]


async def test_passages_the_model_cannot_read_are_reported_and_the_run_goes_on(
    sample_index: Services, fake_ollama: FakeOllama
) -> None:
    fake_ollama.script("Keine gültige Antwort", schema="Extraction")
    result, tasks, events = await run(sample_index, fake_ollama, extract_retry_calls=2)
    assert result.status == "done"  # before: the run ended in its error state at the first batch
    calls = extraction_calls(fake_ollama)
    for task in tasks:
        own = [c for c in calls if task_of(c) == task.title]
        smaller = [
            c for i, c in enumerate(own) if any(set(passages_of(c)) < set(passages_of(b)) for b in own[:i])
        ]
        assert 1 <= len(smaller) <= 2  # the task's two extra calls at most, on halves of a failed batch
        assert task.extraction_failures == len(own)
        assert len(task.passages_unread) == task.passages > 0
        shown = {p for c in own for p in passages_of(c)}
        assert {prompt_id(u.chunk_id) for u in task.passages_unread} == shown
        assert task.state == "error" and task.evidence == []
        assert task.error is not None and task.error.startswith(
            f"the model could not read {task.passages} of the {task.passages} passage(s) retrieved ("
        )
    assert {t.state for t in result.tasks} == {"error"}
    warned = [w for w in result.warnings if w.startswith("extract: the model could not read")]
    assert warned and all("stayed invalid" in w for w in warned)
    assert [e for e in events if e.get("type") == "warning" and "could not read" in e.get("message", "")]
    retries = sample_index.settings.llm.structured_retries
    assert result.llm_calls["extract"] == len(calls) * (1 + retries)


def cut_after_first_passage(request: RecordedRequest) -> str | dict[str, Any]:
    """The weak model at its output cap: the findings of the first passage shown, then cut mid-finding."""
    shown = passages_of(request)
    if len(shown) == 1:
        return valid(request)
    prompt = prompt_of(request)
    block = prompt[prompt.index(f'<passage id="{shown[0]}"') : prompt.index("</passage>")]
    first = [int(n) for n in re.findall(r"^\[(\d+)\]", block, re.MULTILINE)]
    finding = {"fact": "Ein Grenzwert gilt.", "sentences": first[:2], "answers": True}
    return json.dumps({"findings": [finding]}, ensure_ascii=False)[:-2] + ', {"fact": "Der Grenzwert betr'


async def test_a_cut_answer_keeps_its_findings_and_the_rest_is_asked_again(
    sample_index: Services, fake_ollama: FakeOllama
) -> None:
    fake_ollama.script(cut_after_first_passage, schema="Extraction")
    result, tasks, _ = await run(sample_index, fake_ollama, extract_retry_calls=60)
    assert result.status == "done"
    calls = extraction_calls(fake_ollama)
    assert any(len(passages_of(c)) > 1 for c in calls)
    # a task asks for a passage until the call in which it comes first (its findings are kept), never after
    for task, passage in {(task_of(c), p) for c in calls for p in passages_of(c)}:
        asked = [c for c in calls if task_of(c) == task and passage in passages_of(c)]
        firsts = [i for i, c in enumerate(asked) if passages_of(c)[0] == passage]
        assert firsts == [len(asked) - 1], passage
    for task in tasks:
        assert task.passages_unread == [] and task.evidence
        assert task.extraction_failures == sum(
            1 for c in calls if task_of(c) == task.title and len(passages_of(c)) > 1
        )
        assert "Ein Grenzwert gilt." in {e.fact for e in task.evidence}


def summaries_cut(first: str, then: str) -> Callable[[RecordedRequest], str]:
    """The tasks' summaries: ``first`` for the one asked first, ``then`` for every other."""
    answers = [first]

    def answer(_request: RecordedRequest) -> str:
        return answers.pop(0) if answers else then

    return answer


async def test_a_cut_summary_keeps_its_complete_findings_or_falls_back_to_the_facts(
    sample_index: Services, fake_ollama: FakeOllama
) -> None:
    kept = '{"findings": ["Erster Befund.", "Zweiter Befund."], "gaps": ["Offen'
    no_finding = '{"gaps": ["Offen ist die Frist."], "findings": ["Der Grenzw'
    fake_ollama.script(summaries_cut(kept, no_finding), schema="TaskSummaryDraft")
    result, tasks, _ = await run(sample_index, fake_ollama)
    assert result.status == "done" and len(tasks) == 2 and all(t.evidence for t in tasks)
    by_findings = sorted((t.summary.findings for t in tasks), key=len)
    facts = {t.task_id: [e.fact for e in t.evidence if e.answers] for t in tasks}
    assert ["Erster Befund.", "Zweiter Befund."] in by_findings  # the complete items of a cut answer
    fallback = next(t for t in tasks if t.summary.findings != ["Erster Befund.", "Zweiter Befund."])
    assert fallback.summary.findings == facts[fallback.task_id] != []  # cut before one finding was complete
    assert "summarize: the answer was cut at the output limit; kept the complete items" in result.warnings
    assert f"summarize: task '{fallback.title}': the answer was cut before its first finding; " in " ".join(
        result.warnings
    )


async def test_every_fact_is_quoted_from_the_sentences_that_hold_its_figures(
    sample_index: Services, fake_ollama: FakeOllama
) -> None:
    fake_ollama.set_profile(junk=1.0)  # every extraction fact written from a sentence it does not name
    result, tasks, _ = await run(sample_index, fake_ollama)
    assert result.status == "done"
    evidence = [e for t in tasks for e in t.evidence]
    assert evidence
    quoted: dict[tuple[str, str], list[ClaimToken]] = {}
    for e in evidence:  # a fact quoted from several places: each quote states one of its figures
        law = [e.document.removesuffix(".pdf")]
        tokens = [
            *claim_tokens(e.quote, document_laws=law),
            *claim_tokens(e.section or "", document_laws=law),
        ]
        wanted = claim_tokens(e.fact)
        assert not wanted or len(missing_tokens(wanted, tokens)) < len(wanted), (e.fact, e.quote)
        quoted.setdefault((e.task_id, e.fact), []).extend(tokens)
    for (_, fact), tokens in quoted.items():  # and together they state all of them
        assert missing_tokens(fact, tokens) == [], fact
    assert any(claim_tokens(e.fact) for e in evidence)  # facts with figures were checked above
    assert any("junk" in r.weak for r in fake_ollama.model_requests())  # the model did write them elsewhere
