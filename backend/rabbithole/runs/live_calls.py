"""A run's LLM calls so far, counted while its graph runs, subgraphs included.

A subgraph (clarification, a task's dig, synthesis, a report section) hands its calls to the run graph only
when it ends: its node's output carries its whole count. Until then the count lives in the subgraph's own
steps, and a clarification that waits for an answer keeps it in the subgraph's checkpoint. So the count
kept here is the run graph's (``committed``) plus, for each subgraph still under way, what its steps
reported (``pending``, by the subgraph's namespace: ``("clarify:<task id>",)``, one entry per level). When
the subgraph's node ends, its pending count is dropped: the node's output holds it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rabbithole.research.llm_step import merge_counts

Namespace = tuple[str, ...]


def _written_calls(result: Any) -> dict[str, int]:
    """The ``llm_calls`` a finished task wrote (one write, or several as ``{"$writes": [...]}``)."""
    if not isinstance(result, dict):
        return {}
    value = result.get("llm_calls")
    writes = value.get("$writes") if isinstance(value, dict) and "$writes" in value else [value]
    total: dict[str, int] = {}
    for write in writes if isinstance(writes, list) else []:
        if isinstance(write, dict):
            total = merge_counts(total, {str(k): int(n) for k, n in write.items() if isinstance(n, int)})
    return total


@dataclass
class LiveCalls:
    """The LLM calls of a run under way, by kind: the run graph's and its unfinished subgraphs'."""

    committed: dict[str, int] = field(default_factory=dict)
    pending: dict[Namespace, dict[str, int]] = field(default_factory=dict)

    def task_finished(self, namespace: Namespace, payload: Any) -> None:
        """A task's result (LangGraph's ``tasks`` stream: ``{"id", "name", "result", ...}``) at
        ``namespace``. A task's start (no ``result``) changes nothing, nor does a task that stopped at an
        interrupt or failed: its subgraph's calls stay pending (its checkpoint keeps them)."""
        if not isinstance(payload, dict) or "result" not in payload:
            return
        if payload.get("interrupts") or payload.get("error") is not None:
            return
        own = (*namespace, f"{payload.get('name')}:{payload.get('id')}")
        for key in [k for k in self.pending if k[: len(own)] == own]:
            del self.pending[key]  # the task was a subgraph: its output holds these
        calls = _written_calls(payload.get("result"))
        if not calls:
            return
        if namespace:
            self.pending[namespace] = merge_counts(self.pending.get(namespace), calls)
        else:
            self.committed = merge_counts(self.committed, calls)

    def total(self) -> dict[str, int]:
        total = dict(self.committed)
        for calls in self.pending.values():
            total = merge_counts(total, calls)
        return total


def checkpoint_calls(snapshot: Any) -> LiveCalls:
    """The calls a checkpoint holds: the run graph's, and those of the subgraphs it stopped in (a
    clarification waiting for its answer). ``snapshot``: ``aget_state(config, subgraphs=True)``."""
    live = LiveCalls(committed=dict((getattr(snapshot, "values", None) or {}).get("llm_calls") or {}))
    _add_subgraphs(live, snapshot)
    return live


def _add_subgraphs(live: LiveCalls, snapshot: Any) -> None:
    for task in getattr(snapshot, "tasks", ()) or ():
        state = getattr(task, "state", None)
        values = getattr(state, "values", None)
        if not isinstance(values, dict):  # not a subgraph, or its state not read (a config)
            continue
        configurable = (getattr(state, "config", None) or {}).get("configurable") or {}
        namespace = str(configurable.get("checkpoint_ns", ""))
        calls = values.get("llm_calls") or {}
        if namespace and calls:
            live.pending[tuple(namespace.split("|"))] = dict(calls)
        _add_subgraphs(live, state)
