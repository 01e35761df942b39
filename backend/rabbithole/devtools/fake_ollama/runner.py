"""Run a fake Ollama server in a background thread, and control one from Python.

``FakeOllama`` serves in this process (tests: fast, and callables can be scripted);
``FakeOllamaClient`` controls one started as a separate process (``python -m
rabbithole.devtools.fake_ollama``) through its ``/_fake`` endpoints, with the same methods.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable
from typing import Any

import httpx
from pydantic import BaseModel

from rabbithole.core.config import LLMSettings
from rabbithole.devtools.fake_ollama.faults import Fault, FaultKind
from rabbithole.devtools.fake_ollama.server import create_app
from rabbithole.devtools.fake_ollama.state import FakeState, RecordedRequest, Script
from rabbithole.devtools.fake_ollama.weak import WeakKnobs, profile_knobs
from rabbithole.devtools.threaded_server import ThreadedServer


def _schema_title(schema: str | type[BaseModel] | None) -> str | None:
    if schema is None or isinstance(schema, str):
        return schema
    title = schema.model_json_schema().get("title")
    return str(title) if title else schema.__name__


class _Controls(ABC):
    """The control surface shared by the in-process server and the HTTP client."""

    @property
    @abstractmethod
    def url(self) -> str:
        """Base URL of the fake server."""

    def settings(self, **overrides: Any) -> LLMSettings:
        """``LLMSettings`` pointing at this server (small, fast defaults for tests)."""
        values: dict[str, Any] = {"base_url": self.url, "request_timeout_s": 10.0, **overrides}
        return LLMSettings(**values)

    def openai_settings(self, **overrides: Any) -> LLMSettings:
        """``LLMSettings`` for this server's OpenAI-compatible ``/v1`` API."""
        return self.settings(provider="openai", base_url=f"{self.url}/v1", **overrides)


class FakeOllama(_Controls):
    """A fake Ollama server in a daemon thread of this process.

    Use as a context manager, or ``start()``/``stop()``. ``port=0`` picks a free port.
    """

    def __init__(
        self,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        models: Iterable[str] | None = None,
        latency_ms: int = 0,
        profile: str = "normal",
    ) -> None:
        self.state = FakeState(models, latency_ms, profile_knobs(profile))
        self.app = create_app(self.state)
        self.host = host
        self._served = ThreadedServer(self.app, host=host, port=port, name="fake ollama")

    @property
    def port(self) -> int:
        return self._served.port

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def start(self, timeout_s: float = 10.0) -> FakeOllama:
        if not self._served.running:
            self._served.start(timeout_s)
            self.app.state.handlers.warm_up()
        return self

    def stop(self) -> None:
        self._served.stop()

    def __enter__(self) -> FakeOllama:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- control ---------------------------------------------------------------------------

    def script(
        self,
        response: Any,
        *,
        schema: str | type[BaseModel] | None = None,
        prompt_contains: str | None = None,
        model: str | None = None,
        path: str | None = None,
        times: int | None = None,
    ) -> Script:
        """Answer matching requests with ``response`` (str, dict, Pydantic model, or callable).

        ``schema``: the requested schema's title (a Pydantic model or its name). The latest
        matching script wins; ``times`` limits how often it answers.
        """
        return self.state.add_script(
            Script(response, _schema_title(schema), prompt_contains, model, path, times)
        )

    def fault(self, kind: FaultKind, **options: Any) -> Fault:
        """Inject a fault (see ``Fault``): e.g. ``fault("error", times=2)``, ``fault("drop")``."""
        return self.state.add_fault(Fault(kind, **options))

    def set_models(self, models: Iterable[str]) -> None:
        self.state.set_models(models)

    def set_latency(self, latency_ms: int) -> None:
        self.state.latency_ms = latency_ms

    def set_profile(self, profile: str = "normal", **knobs: Any) -> WeakKnobs:
        """Answer as a weak model: ``set_profile("weak")``; one behaviour alone: ``set_profile(junk=1.0)``
        (the normal profile with that knob); the weak profile with a knob changed: ``set_profile("weak",
        char_cap=800)``. ``reset()`` returns to the profile the server started with."""
        return self.state.set_knobs(profile_knobs(profile, knobs))

    @property
    def requests(self) -> list[RecordedRequest]:
        return self.state.recorded()

    def model_requests(self, path: str | None = None) -> list[RecordedRequest]:
        """Recorded requests to chat/generate endpoints (or to ``path``)."""
        paths = (path,) if path else ("/api/chat", "/api/generate", "/v1/chat/completions")
        return [r for r in self.requests if r.path in paths]

    def reset(self) -> None:
        self.state.reset()


class FakeOllamaClient(_Controls):
    """Controls a fake Ollama server running elsewhere (another process) over HTTP."""

    def __init__(self, url: str, timeout_s: float = 10.0) -> None:
        self._url = url.rstrip("/")
        self._http = httpx.Client(base_url=self._url, timeout=timeout_s)

    @property
    def url(self) -> str:
        return self._url

    def _post(self, path: str, body: Any) -> Any:
        response = self._http.post(path, json=body)
        response.raise_for_status()
        return response.json()

    def script(
        self,
        response: Any,
        *,
        schema: str | type[BaseModel] | None = None,
        prompt_contains: str | None = None,
        model: str | None = None,
        path: str | None = None,
        times: int | None = None,
    ) -> None:
        if callable(response):
            raise TypeError("a server in another process cannot run callables: script a value")
        if isinstance(response, BaseModel):
            response = response.model_dump(mode="json")
        body = {
            "response": response,
            "schema": _schema_title(schema),
            "prompt_contains": prompt_contains,
            "model": model,
            "path": path,
            "times": times,
        }
        self._post("/_fake/script", body)

    def fault(self, kind: FaultKind, **options: Any) -> None:
        self._post("/_fake/faults", {"kind": kind, **options})

    def set_models(self, models: Iterable[str]) -> None:
        self._post("/_fake/models", {"models": list(models)})

    def set_latency(self, latency_ms: int) -> None:
        self._post("/_fake/latency", {"latency_ms": latency_ms})

    def set_profile(self, profile: str = "normal", **knobs: Any) -> dict[str, Any]:
        """As ``FakeOllama.set_profile``, over ``POST /_fake/profile``; returns the knobs now in force."""
        data: dict[str, Any] = self._post("/_fake/profile", {"profile": profile, "knobs": knobs})
        return data

    @property
    def requests(self) -> list[dict[str, Any]]:
        response = self._http.get("/_fake/requests")
        response.raise_for_status()
        data: list[dict[str, Any]] = response.json()
        return data

    def reset(self) -> None:
        self._post("/_fake/reset", {})

    def close(self) -> None:
        self._http.close()
