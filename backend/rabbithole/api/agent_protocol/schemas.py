"""Request and response bodies of the Agent Protocol endpoints, as ``langgraph-sdk`` sends and reads them
(its ``schema.py``: ``Assistant``, ``Thread``, ``ThreadState``, ``Run``)."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from rabbithole.core.errors import InvalidRequestError

ThreadStatus = Literal["idle", "busy", "interrupted", "error"]
AgentRunStatus = Literal["pending", "running", "error", "success", "timeout", "interrupted"]
StreamMode = Literal["values", "updates", "custom"]
#: The stream modes served; the others (messages, events, debug, ...) are refused with 422.
STREAM_MODES: tuple[StreamMode, ...] = ("values", "updates", "custom")
_NO_MESSAGES = (
    "the research and report graphs keep no chat messages and stream no model tokens (their progress "
    "and draft text come in mode 'custom', their state in 'values')"
)


def served_modes(requested: list[str]) -> list[StreamMode]:
    """The requested stream modes, each one served (InvalidRequestError, 422, naming the first that is not:
    ``useStream`` asks for ``messages-tuple`` as soon as a component reads its ``messages``)."""
    served: list[StreamMode] = []
    for mode in requested:
        known = next((m for m in STREAM_MODES if m == mode), None)
        if known is not None:
            served.append(known)
            continue
        why = _NO_MESSAGES if mode in ("messages", "messages-tuple") else "the subset does not serve it"
        raise InvalidRequestError(
            f"stream mode '{mode}' is not served: {why}; the modes served are {', '.join(STREAM_MODES)}"
        )
    return served


class Assistant(BaseModel):
    assistant_id: str
    graph_id: str
    name: str
    description: str
    config: dict[str, Any] = Field(default_factory=dict)
    context: dict[str, Any] = Field(default_factory=dict)
    metadata: dict[str, Any] = Field(default_factory=dict)
    version: int = 1
    created_at: datetime
    updated_at: datetime


class AssistantSchemas(BaseModel):
    graph_id: str
    input_schema: dict[str, Any]
    output_schema: dict[str, Any]
    state_schema: dict[str, Any]
    config_schema: dict[str, Any]
    context_schema: dict[str, Any]


class AssistantSearch(BaseModel):
    graph_id: str | None = None
    name: str | None = None
    metadata: dict[str, Any] | None = None
    limit: int = Field(10, ge=1, le=1000)
    offset: int = Field(0, ge=0)

    model_config = ConfigDict(extra="ignore")


class Interrupt(BaseModel):
    value: dict[str, Any]
    id: str


class Thread(BaseModel):
    thread_id: str
    created_at: datetime
    updated_at: datetime
    metadata: dict[str, Any]
    status: ThreadStatus
    values: dict[str, Any] | None = None
    interrupts: dict[str, list[Interrupt]] = Field(default_factory=dict)


class ThreadCreate(BaseModel):
    thread_id: str | None = Field(None, pattern=r"^[A-Za-z0-9_-]{1,64}$")
    metadata: dict[str, Any] | None = None
    if_exists: Literal["raise", "do_nothing"] = "raise"

    model_config = ConfigDict(extra="ignore")


class ThreadSearch(BaseModel):
    ids: list[str] | None = None
    metadata: dict[str, Any] | None = None
    status: ThreadStatus | None = None
    limit: int = Field(10, ge=1, le=1000)
    offset: int = Field(0, ge=0)

    model_config = ConfigDict(extra="ignore")


class CheckpointRef(BaseModel):
    thread_id: str
    checkpoint_ns: str = ""
    checkpoint_id: str | None = None


class ThreadTask(BaseModel):
    id: str
    name: str
    error: str | None = None
    interrupts: list[Interrupt]
    checkpoint: CheckpointRef | None = None
    state: None = None
    result: dict[str, Any] | None = None


class ThreadState(BaseModel):
    values: dict[str, Any]
    next: list[str]
    checkpoint: CheckpointRef
    metadata: dict[str, Any]
    created_at: str | None
    parent_checkpoint: CheckpointRef | None
    tasks: list[ThreadTask]
    interrupts: list[Interrupt]


class HistoryQuery(BaseModel):
    limit: int = Field(10, ge=1, le=1000)

    model_config = ConfigDict(extra="ignore")


class Command(BaseModel):
    resume: Any = None

    model_config = ConfigDict(extra="ignore")


class RunCreate(BaseModel):
    """A run on a thread. The first run's ``input``: the question and collections (and, as /api/runs takes
    them, ``mode``, ``settings``, report fields), its ``context``: settings too (the assistant's context
    schema; they win over the input's); a later run's ``command.resume``: the answer to the pending
    interrupt (a string answers a clarification question)."""

    assistant_id: str
    input: dict[str, Any] | None = None
    command: Command | None = None
    context: dict[str, Any] | None = None
    stream_mode: str | list[str] = "values"
    metadata: dict[str, Any] | None = None
    multitask_strategy: Literal["reject"] = "reject"

    model_config = ConfigDict(extra="ignore")

    def modes(self) -> list[StreamMode]:
        """The stream modes asked for (InvalidRequestError, 422, for one that is not served)."""
        return served_modes([self.stream_mode] if isinstance(self.stream_mode, str) else self.stream_mode)


class AgentRun(BaseModel):
    run_id: str
    thread_id: str
    assistant_id: str
    created_at: datetime
    updated_at: datetime
    status: AgentRunStatus
    metadata: dict[str, Any]
    multitask_strategy: Literal["reject"] = "reject"
