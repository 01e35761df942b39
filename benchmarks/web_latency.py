"""SSE event -> DOM in the app, from the app's own commit marks (frontend/e2e/latency.measure.ts): an event
is in the DOM at the first mark (useRunEvents' EVENTS_APPLIED_MARK, set in the commit that applied it) whose
event number covers it. Exact for every event, also one that changes nothing visible; the first-DOM-change
pairing (bench_web.pair_latencies) charges such an event whatever changes next (a timer's tick, a refetch)."""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from typing import Any

#: An event not in the DOM after this long counts as never applied.
WINDOW_MS = 5000.0


@dataclass(frozen=True)
class Applied:
    latencies: list[float]
    #: events no mark covered within WINDOW_MS
    unapplied: int


def applied_latencies(events: list[float], seqs: list[int], marks: list[list[float]]) -> Applied:
    """Per event (arrival time, number): ms to the first commit mark at or after it covering its number."""
    ordered = sorted((time, int(seq)) for time, seq in marks)
    times = [time for time, _ in ordered]
    latencies: list[float] = []
    unapplied = 0
    for arrived, seq in zip(events, seqs, strict=True):
        index = bisect.bisect_left(times, arrived)
        covering = next((time for time, last in ordered[index:] if last >= seq), None)
        if covering is None or covering - arrived > WINDOW_MS:
            unapplied += 1
        else:
            latencies.append(covering - arrived)
    return Applied(latencies, unapplied)


@dataclass(frozen=True)
class SlowEvent:
    type: str
    first_change_ms: float
    applied_ms: float | None
    changed: str


def slowest_first_changes(page: dict[str, Any], count: int = 5) -> list[SlowEvent]:
    """The events whose first DOM change came latest (within 1 s), with what changed and when the app had
    applied them: where the first-change figure's tail comes from."""
    mutations: list[float] = page["mutations"]
    marks = sorted((time, int(seq)) for time, seq in page["applied"])
    slow: list[SlowEvent] = []
    for arrived, kind, seq in zip(page["events"], page["types"], page["seqs"], strict=True):
        index = bisect.bisect_left(mutations, arrived)
        if index >= len(mutations) or mutations[index] - arrived > 1000.0:
            continue
        applied = next((time - arrived for time, last in marks if time >= arrived and last >= seq), None)
        slow.append(SlowEvent(kind, mutations[index] - arrived, applied, page["targets"][index]))
    return sorted(slow, key=lambda event: event.first_change_ms, reverse=True)[:count]
