"""What a fake Ollama server knows: models, scripted answers, faults, latency, the weak-model knobs, and
what it received.

One ``FakeState`` is shared by the server (its event-loop thread) and the test (its own thread), so
every access holds a lock.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from rabbithole.devtools.fake_ollama.faults import MODEL_PATHS, AppliedFaults, Fault
from rabbithole.devtools.fake_ollama.weak import PROFILES, WeakKnobs

#: Models the fake server has "pulled" unless told otherwise (includes the configured default).
DEFAULT_MODELS: tuple[str, ...] = (
    "qwen3:8b",
    "qwen3:4b",
    "qwen3:14b",
    "qwen2.5:7b",
    "llama3.2:3b",
    "llama3.1:8b",
    "gemma3:4b",
    "mistral:7b",
    "nomic-embed-text:latest",
    "bge-m3:latest",
)
EMBEDDING_MODELS = ("nomic-embed-text", "bge-m3", "mxbai-embed-large", "all-minilm")


@dataclass
class RecordedRequest:
    """One request the server received (model endpoints and the model-listing ones)."""

    method: str
    path: str
    body: dict[str, Any]
    model: str | None = None
    status: int = 200
    faults: list[str] = field(default_factory=list)
    scripted: bool = False
    prompt_tokens: int = 0
    truncated: bool = False
    response_text: str | None = None
    weak: list[str] = field(default_factory=list)

    @property
    def options(self) -> dict[str, Any]:
        options = self.body.get("options")
        return dict(options) if isinstance(options, Mapping) else {}

    @property
    def num_ctx(self) -> int | None:
        value = self.options.get("num_ctx")
        return int(value) if isinstance(value, int) else None

    @property
    def format(self) -> Any:
        if "format" in self.body:
            return self.body["format"]
        response_format = self.body.get("response_format")
        if isinstance(response_format, Mapping):
            if response_format.get("type") == "json_schema":
                return response_format.get("json_schema", {}).get("schema")
            if response_format.get("type") == "json_object":
                return "json"
        return None

    @property
    def schema_name(self) -> str | None:
        return schema_name(self.body)

    @property
    def messages(self) -> list[dict[str, Any]]:
        messages = self.body.get("messages")
        return [dict(m) for m in messages] if isinstance(messages, list) else []

    @property
    def prompt(self) -> str:
        """All text the model was given (messages, or system + prompt)."""
        from rabbithole.devtools.fake_ollama.text import content_text

        if self.messages:
            return "\n\n".join(content_text(m.get("content")) for m in self.messages)
        return "\n\n".join(str(self.body.get(k, "")) for k in ("system", "prompt") if self.body.get(k))

    def to_dict(self) -> dict[str, Any]:
        return {
            "method": self.method,
            "path": self.path,
            "body": self.body,
            "model": self.model,
            "status": self.status,
            "faults": self.faults,
            "scripted": self.scripted,
            "prompt_tokens": self.prompt_tokens,
            "truncated": self.truncated,
            "num_ctx": self.num_ctx,
            "schema_name": self.schema_name,
            "response_text": self.response_text,
            "weak": self.weak,
        }


def schema_name(body: Mapping[str, Any]) -> str | None:
    """Title of the JSON schema a request asks for (Pydantic: the model's class name)."""
    fmt = body.get("format")
    if isinstance(fmt, Mapping):
        title = fmt.get("title")
        return str(title) if title else None
    response_format = body.get("response_format")
    if isinstance(response_format, Mapping) and response_format.get("type") == "json_schema":
        spec = response_format.get("json_schema") or {}
        schema = spec.get("schema") or {}
        title = schema.get("title") if isinstance(schema, Mapping) else None
        return str(title or spec.get("name") or "") or None
    return None


Responder = Callable[[RecordedRequest], Any]


@dataclass
class Script:
    """A canned answer for requests that match all given criteria (None matches anything).

    ``response``: a string (sent as the model's text, verbatim), a dict / list / number (sent as
    JSON), a Pydantic model (its JSON), or a callable taking the ``RecordedRequest`` and returning
    one of these.
    """

    response: Any
    schema: str | None = None
    prompt_contains: str | None = None
    model: str | None = None
    path: str | None = None
    times: int | None = None
    hits: int = 0

    def matches(self, request: RecordedRequest) -> bool:
        if self.times is not None and self.hits >= self.times:
            return False
        if self.path is not None and self.path != request.path:
            return False
        if self.model is not None and self.model != request.model:
            return False
        if self.schema is not None and self.schema != request.schema_name:
            return False
        return self.prompt_contains is None or self.prompt_contains in request.prompt

    def render(self, request: RecordedRequest) -> str:
        value = self.response(request) if callable(self.response) else self.response
        return render_response(value)

    def to_dict(self) -> dict[str, Any]:
        response = "<callable>" if callable(self.response) else self.response
        if isinstance(response, BaseModel):
            response = response.model_dump(mode="json")
        return {
            "response": response,
            "schema": self.schema,
            "prompt_contains": self.prompt_contains,
            "model": self.model,
            "path": self.path,
            "times": self.times,
            "hits": self.hits,
        }


def render_response(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, BaseModel):
        return value.model_dump_json()
    return json.dumps(value, ensure_ascii=False)


def normalize_model(name: str) -> str:
    return name if ":" in name else f"{name}:latest"


class FakeState:
    """Mutable, lock-protected state of one fake server."""

    def __init__(
        self, models: Iterable[str] | None = None, latency_ms: int = 0, knobs: WeakKnobs | None = None
    ) -> None:
        self._lock = threading.RLock()
        self._default_models = tuple(DEFAULT_MODELS if models is None else models)
        self._default_latency_ms = latency_ms
        self.models: list[str] = []
        self.latency_ms = latency_ms
        self.scripts: list[Script] = []
        self.faults: list[Fault] = []
        self.requests: list[RecordedRequest] = []
        self._default_knobs = knobs or PROFILES["normal"]
        self.knobs = self._default_knobs
        self.reset()

    def reset(self) -> None:
        """Back to the start: default models, latency and knobs (the profile the server was started with,
        normal unless told), no scripts, faults or recorded requests."""
        with self._lock:
            self.models = [normalize_model(m) for m in self._default_models]
            self.latency_ms = self._default_latency_ms
            self.knobs = self._default_knobs
            self.scripts = []
            self.faults = []
            self.requests = []

    # -- the weak model --------------------------------------------------------------------

    def set_knobs(self, knobs: WeakKnobs) -> WeakKnobs:
        """Answer with these weak-model knobs from the next request on (``PROFILES["normal"]``: as usual)."""
        with self._lock:
            self.knobs = knobs
        return knobs

    # -- models ----------------------------------------------------------------------------

    def set_models(self, models: Iterable[str]) -> None:
        with self._lock:
            self.models = [normalize_model(m) for m in models]

    def has_model(self, name: str | None) -> bool:
        if not name:
            return False
        with self._lock:
            return normalize_model(name) in self.models

    def model_list(self) -> list[str]:
        with self._lock:
            return list(self.models)

    # -- scripts and faults ----------------------------------------------------------------

    def add_script(self, script: Script) -> Script:
        with self._lock:
            self.scripts.insert(0, script)  # the latest script wins
        return script

    def take_script(self, request: RecordedRequest) -> Script | None:
        with self._lock:
            for script in self.scripts:
                if script.matches(request):
                    script.hits += 1
                    return script
        return None

    def add_fault(self, fault: Fault) -> Fault:
        with self._lock:
            self.faults.append(fault)
        return fault

    def draw_faults(self, path: str, model: str | None, schema: str | None = None) -> AppliedFaults:
        applied = AppliedFaults()
        if path not in MODEL_PATHS:
            return applied
        with self._lock:
            for fault in self.faults:
                if fault.matches(path, model, schema) and fault.draw():
                    applied.add(fault)
        return applied

    # -- requests --------------------------------------------------------------------------

    def record(self, request: RecordedRequest) -> RecordedRequest:
        with self._lock:
            self.requests.append(request)
        return request

    def recorded(self) -> list[RecordedRequest]:
        with self._lock:
            return list(self.requests)
