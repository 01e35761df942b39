"""The LLM gate of a task's reference expansion: which candidate references are worth following.

The expansion asks its ``batch_gate`` once per depth, and the model judges all candidate references of that
depth in one call (as many as fit one prompt, most relevant passages first; the rest are followed). Depth 2's
candidates are known only once depth 1 has been followed, so the two calls would wait for each other. With
``research.gate_ahead`` (and ``research.concurrency`` above 1: a run limited to one call at a time judges
one depth after the other) the gate judges them *ahead*, side by side:

1. a dry expansion (no model) follows every reference of the first hop and lists the candidate references
   of the first two depths: depth 1's exactly, and depth 2's as a superset of what the real expansion can
   meet (it can only reach fewer passages at the first hop);
2. the two lists are judged in two calls at once;
3. the real expansion asks the gate per depth as always, and the gate answers from those decisions; a
   candidate the dry run did not meet (the real run spends the token budget differently) is put to the
   model then, at its depth, as before.

Every candidate the expansion meets is judged by the same call with the same rules as without it, so the
references followed are the same; only the second call no longer waits for the first.
"""

from __future__ import annotations

import asyncio
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import Any

from rabbithole.core.models import SearchHit
from rabbithole.llm.factory import MessagesInput
from rabbithole.references.expansion import BatchGate, GateRequest
from rabbithole.research.context import ResearchContext
from rabbithole.research.dig import prompts
from rabbithole.research.dig.followed import judged_event
from rabbithole.research.dig.schemas import gate_schema
from rabbithole.research.event_models import ReferenceFollowedEvent
from rabbithole.research.llm_step import StepResult, ask, ask_sync, merge_counts
from rabbithole.research.models import QueryAnchor, TaskSpec

#: Candidate references judged in one gate call at most (the prompt stays small); more are followed.
MAX_GATED = 60
#: Tokens of the gate prompt kept for the instructions, the task, the output schema and a margin.
GATE_RESERVE = 1200
#: The depths judged ahead (the first hop and the one after it).
AHEAD_DEPTHS = (1, 2)

#: A candidate reference: (source chunk id, mention start, target document, target section); the
#: expansion's own key for a gate decision.
RequestKey = tuple[str, int, str, str]


def request_key(request: GateRequest) -> RequestKey:
    return (
        request.source.id,
        request.reference.start,
        request.target.document or "",
        request.target.section or "",
    )


def within_section(request: GateRequest) -> bool:
    """A reference into the section its passage stands in ("Absatz 1", "Satz 2" -> this section): the
    conditions and exceptions of the provision the passage is part of. The gate follows these without asking
    the model (they were 40 % of its lines over the dev set)."""
    src = request.source.chunk
    target = request.target
    return bool(target.section) and target.document == src.document and target.section == src.section


def target_heading(engine: Any, request: GateRequest) -> str:
    target = request.target
    if target.document is None or target.section is None:
        return ""
    chunks = engine.passages.section_passages(target.document, target.section)
    return str(chunks[0].heading) if chunks else ""


def candidates_ahead(
    engine: Any, hits: Sequence[SearchHit], vector: Any, query: str, depths: Sequence[int] = AHEAD_DEPTHS
) -> dict[int, list[GateRequest]]:
    """The dry expansion (no model): the candidate references of ``depths`` when every reference before
    the last of them is followed (a superset of what a gated expansion meets at the last)."""
    last = max(depths)
    found: dict[int, list[GateRequest]] = {}

    def record(depth: int, requests: Sequence[GateRequest]) -> Collection[int]:
        found[depth] = list(requests)
        return range(len(requests)) if depth < last else ()

    engine.expand(list(hits), vector, depth=last, batch_gate=record, query=query)
    return {d: found[d] for d in depths if found.get(d)}


@dataclass(slots=True)
class _Call:
    """One gate call: the candidates and its messages; ``members[n]``: the candidates line n judges (a
    candidate identical to another is listed once)."""

    depth: int
    requests: Sequence[GateRequest]
    members: list[list[int]]
    schema: Any
    messages: MessagesInput


@dataclass
class ReferenceGate:
    """The gate of one task's expansion: its decisions (ahead or not), what it judged (for the
    ``reference_followed`` events), its calls and warnings."""

    ctx: ResearchContext
    task: TaskSpec
    anchor: QueryAnchor
    counts: dict[str, int] = field(default_factory=dict)
    tokens: dict[str, int] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    judged: list[ReferenceFollowedEvent] = field(default_factory=list)
    decided: dict[RequestKey, bool] = field(default_factory=dict)

    # -- one call ------------------------------------------------------------------------------------

    def _call(self, depth: int, requests: Sequence[GateRequest], engine: Any) -> _Call | None:
        """As many candidates as fit one prompt (most relevant passages first); None: none fits."""
        lines = prompts.GateLines()
        members: list[list[int]] = []
        room = self.ctx.llm.window.budget - GATE_RESERVE
        for i, r in enumerate(requests[:MAX_GATED]):
            if within_section(r):
                continue  # followed without asking: the rest of the provision the passage is part of
            same = lines.same_as(r)
            if same is not None:
                members[same].append(i)
                continue
            room -= self.ctx.llm.window.count_text(lines.add(r, target_heading(engine, r))) + 2
            if room < 0:
                break
            members.append([i])
        if not members:
            return None
        messages = prompts.gate_prompt(self.task, self.anchor, lines.lines[: len(members)])
        return _Call(depth, requests, members, gate_schema(len(members)), messages)

    def _decide(self, call: _Call, step: StepResult[Any]) -> set[int]:
        """Indices of the candidates to follow: all but those the model turned down (invalid output: all,
        with a warning); the decisions are kept."""
        self.counts["gate"] = self.counts.get("gate", 0) + step.requests
        self.tokens = merge_counts(self.tokens, step.usage())
        self.warnings.extend(f"{w} (references at depth {call.depth} followed)" for w in step.warnings)
        follow = set(range(len(call.requests)))
        if step.value is not None:
            for d in step.value.decisions:
                if not d.follow:
                    follow.difference_update(call.members[d.index])
        for i, r in enumerate(call.requests):
            self.decided[request_key(r)] = i in follow
        return follow

    def judge(self, depth: int, requests: Sequence[GateRequest], engine: Any) -> set[int]:
        """From a worker thread: one call on ``requests``; the indices to follow."""
        call = self._call(depth, requests, engine)
        if call is None:
            return set(range(len(requests)))
        return self._decide(call, ask_sync(self.ctx.llm, "gate", call.schema, call.messages))

    def _calls_ahead(self, ahead: dict[int, list[GateRequest]], engine: Any) -> list[_Call]:
        calls = []
        for depth, requests in ahead.items():
            call = self._call(depth, requests, engine)
            if call is None:  # nothing fits a prompt: followed, as in ``judge``
                self.decided.update((request_key(r), True) for r in requests)
            else:
                calls.append(call)
        return calls

    async def judge_ahead(self, ahead: dict[int, list[GateRequest]], engine: Any) -> None:
        """The candidates of each depth (``candidates_ahead``) judged in one call per depth, all at once."""
        calls = await asyncio.to_thread(self._calls_ahead, ahead, engine)  # headings: catalog reads
        steps = await asyncio.gather(*(ask(self.ctx.llm, "gate", c.schema, c.messages) for c in calls))
        for call, step in zip(calls, steps, strict=True):
            self._decide(call, step)

    # -- the expansion's batch gate ------------------------------------------------------------------

    def batch_gate(self, engine: Any) -> BatchGate:
        """The expansion's gate for ``engine``'s collection: decisions made ahead where there are any, a
        call for the candidates without one."""

        def gate(depth: int, requests: Sequence[GateRequest]) -> set[int]:
            unknown = [i for i, r in enumerate(requests) if request_key(r) not in self.decided]
            follow = {i for i, r in enumerate(requests) if self.decided.get(request_key(r), False)}
            if unknown:
                chosen = self.judge(depth, [requests[i] for i in unknown], engine)
                follow |= {unknown[j] for j in chosen}
            for i, r in enumerate(requests):
                self.judged.append(judged_event(self.task.id, r, engine, follow=i in follow, depth=depth))
            return follow

        return gate
