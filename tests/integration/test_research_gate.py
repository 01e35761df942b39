"""The reference gate's prompt (issue 24, token economy): each candidate reference listed once, compactly,
and the model's decision on a line holds for every candidate it stands for; references into the section their
passage stands in are followed without asking."""

from __future__ import annotations

import itertools
import json
import re
from typing import Any

import pytest

from rabbithole.devtools.fake_ollama import FakeOllama
from rabbithole.runs.runner import run_research
from rabbithole.services import Services

pytestmark = pytest.mark.asyncio

#: a question whose passages cite the same provisions several times (rd01 of the research dev set)
QUESTION = (
    "What reference value applies to the annual average radon concentration in homes and other living spaces?"
)
_LINE = re.compile(r'^\[(\d+)\] "([^"\n]*)" -> (.+)$', re.M)
_SOURCE = re.compile(r"^in (.+):$", re.M)


async def test_the_gate_lists_each_candidate_once_and_its_decision_holds_for_every_copy(
    research_services: Services, fake_ollama: FakeOllama
) -> None:
    prompts: list[str] = []

    def decline_every_line(request: Any) -> str:
        prompt = request.messages[-1]["content"]
        prompts.append(prompt)
        numbers = [int(m.group(1)) for m in _LINE.finditer(prompt)]
        decisions = [{"index": n, "follow": False, "reason": "not needed"} for n in numbers]
        return json.dumps({"decisions": decisions})

    fake_ollama.script(decline_every_line, schema="ReferenceGate")
    events: list[dict[str, Any]] = []
    # one gate call per depth, after the one before (not ahead): each candidate judged is in one prompt
    research = research_services.settings.research.model_copy(update={"gate_ahead": False})
    settings = research_services.settings.model_copy(update={"research": research})
    async with Services(settings, share_with=research_services) as services:
        result = await run_research(services, QUESTION, ["sample"], mode="quick", on_event=events.append)
    assert result.status == "done" and prompts

    counts = [e for e in events if e.get("step") == "followed_references"]  # each task's, once
    assert counts
    judged = sum(e["followed"] + e["skipped"] for e in counts)
    listed = 0
    for prompt in prompts:
        block = prompt[prompt.index("References:\n") :]
        lines = _LINE.findall(block)
        assert [int(n) for n, _, _ in lines] == list(range(len(lines)))  # numbered from 0, one per line
        listed += len(lines)
        # a source passage is named once for the lines under it, never before each line
        sources = _SOURCE.findall(block)
        assert len(sources) < len(lines)
        assert all(a != b for a, b in itertools.pairwise(sources))
        # one line per distinct candidate of its passage: (source, mention, target) is never listed twice
        seen: set[tuple[str, str, str]] = set()
        source = ""
        for line in block.splitlines()[1:]:
            if head := _SOURCE.match(line):
                source = head.group(1)
                continue
            _, mention, target = _LINE.match(line).groups()  # type: ignore[union-attr]
            key = (source, mention, target.split(" (")[0])
            assert key not in seen, line
            seen.add(key)
            assert ".pdf" not in line  # documents are named without their extension
    assert listed < judged  # candidates the passages cite twice were listed once ...
    # ... and declined with their line; only references into the passage's own section were followed, without
    # asking the model (none of them is listed)
    followed = [e for e in events if e["type"] == "reference_followed"]
    within = [
        e
        for e in followed
        if (e["from"]["document"], e["from"]["section"]) == (e["to"]["document"], e["to"]["section"])
    ]
    assert followed and within == followed
    assert sum(e["followed"] for e in counts) == len(followed)
    assert not [p for p in prompts if "this section" in p]
