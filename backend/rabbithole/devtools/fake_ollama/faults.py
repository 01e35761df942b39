"""Injected faults: what can go wrong with a model call, when, and how often."""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

FaultKind = Literal["error", "stream_error", "malformed", "invalid", "slow", "drop", "latency"]
FAULT_KINDS: tuple[str, ...] = ("error", "stream_error", "malformed", "invalid", "slow", "drop", "latency")

#: Endpoints that run a model; faults apply to these only.
MODEL_PATHS = ("/api/chat", "/api/generate", "/api/embed", "/api/embeddings", "/v1/chat/completions")


@dataclass
class Fault:
    """One injected fault.

    kind:
      * ``error``: answer HTTP ``status`` (default 500) with ``{"error": message}``.
      * ``stream_error``: stream ``after_chunks`` chunks, then an ``{"error": message}`` line.
      * ``malformed``: the model's text is broken JSON (structured requests) / garbage.
      * ``invalid``: valid JSON that does not match the requested schema.
      * ``slow``: ``delay_ms`` before every streamed chunk.
      * ``drop``: close the connection after ``after_chunks`` chunks (0: right after the headers).
      * ``latency``: ``delay_ms`` before answering.
    times: how many matching requests it hits (None: all until reset).
    probability: chance to hit a matching request, drawn from ``random.Random(seed)``.
    path / model / schema: only requests to this endpoint / for this model / asking for this schema (its
    title, e.g. "SectionDraft") match.
    """

    kind: FaultKind
    times: int | None = 1
    probability: float = 1.0
    seed: int = 0
    status: int = 500
    message: str = "fake ollama: injected failure"
    delay_ms: int = 0
    after_chunks: int = 1
    path: str | None = None
    model: str | None = None
    schema: str | None = None
    hits: int = 0
    _rng: random.Random = field(default_factory=random.Random, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.kind not in FAULT_KINDS:
            raise ValueError(f"unknown fault kind {self.kind!r}; one of {', '.join(FAULT_KINDS)}")
        if not 0.0 <= self.probability <= 1.0:
            raise ValueError("probability must be within [0, 1]")
        self._rng = random.Random(self.seed)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Fault:
        allowed = {
            "kind",
            "times",
            "probability",
            "seed",
            "status",
            "message",
            "delay_ms",
            "after_chunks",
            "path",
            "model",
            "schema",
        }
        unknown = set(data) - allowed
        if unknown:
            raise ValueError(f"unknown fault fields: {', '.join(sorted(unknown))}")
        return cls(**{k: v for k, v in data.items() if k in allowed})

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data.pop("_rng", None)
        return data

    @property
    def exhausted(self) -> bool:
        return self.times is not None and self.hits >= self.times

    def matches(self, path: str, model: str | None, schema: str | None = None) -> bool:
        if self.path is not None and self.path != path:
            return False
        if self.schema is not None and self.schema != schema:
            return False
        return self.model is None or self.model == model

    def draw(self) -> bool:
        """Whether this fault hits the current (matching) request; counts the hit."""
        if self.exhausted:
            return False
        if self.probability < 1.0 and self._rng.random() >= self.probability:
            return False
        self.hits += 1
        return True


@dataclass
class AppliedFaults:
    """The faults that hit one request, folded into what the server does."""

    kinds: list[str] = field(default_factory=list)
    error: Fault | None = None
    stream_error: Fault | None = None
    drop_after: int | None = None
    chunk_delay_s: float = 0.0
    latency_s: float = 0.0
    malformed: bool = False
    invalid: bool = False

    def add(self, fault: Fault) -> None:
        self.kinds.append(fault.kind)
        if fault.kind == "error":
            self.error = self.error or fault
        elif fault.kind == "stream_error":
            self.stream_error = self.stream_error or fault
        elif fault.kind == "drop":
            after = max(0, fault.after_chunks)
            self.drop_after = after if self.drop_after is None else min(self.drop_after, after)
        elif fault.kind == "slow":
            self.chunk_delay_s += fault.delay_ms / 1000
        elif fault.kind == "latency":
            self.latency_s += fault.delay_ms / 1000
        elif fault.kind == "malformed":
            self.malformed = True
        elif fault.kind == "invalid":
            self.invalid = True
