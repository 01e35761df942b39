"""The HTTP side of `rabbithole research --server URL`: a small client of the run endpoints that turns the
API's error bodies into the domain errors the CLI reports (same messages, same exit codes as local runs),
and follows a run's events (SSE) with reconnects from the last event it saw."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import httpx

from rabbithole.api.runs.schemas import RunCreated, RunDetail
from rabbithole.cli.sse import parse_sse
from rabbithole.core.errors import (
    ConfigurationError,
    InvalidRequestError,
    NotFoundError,
    RabbitholeError,
    RunStateError,
    ServerUnavailableError,
)
from rabbithole.research.models import ResearchResult

#: Reconnects to a run's event stream in a row (with a growing pause) before giving up.
RECONNECTS = 8
_BY_STATUS: dict[int, type[RabbitholeError]] = {
    400: InvalidRequestError,
    401: ConfigurationError,
    403: ConfigurationError,
    404: NotFoundError,
    409: RunStateError,
    413: InvalidRequestError,
    422: InvalidRequestError,
}


def _error(response: httpx.Response) -> RabbitholeError:
    try:
        message = str(response.json()["error"]["message"])
    except (ValueError, KeyError, TypeError):
        message = response.text[:200] or response.reason_phrase
    kind = _BY_STATUS.get(response.status_code, ServerUnavailableError)
    return kind(f"{message} (HTTP {response.status_code})")


class RemoteRuns:
    """Runs on a server at ``base_url`` (``token``: its bearer token, when it requires one)."""

    def __init__(self, base_url: str, token: str | None = None, timeout_s: float = 30.0) -> None:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        self.base_url = base_url.rstrip("/")
        self.http = httpx.Client(base_url=self.base_url, headers=headers, timeout=timeout_s)

    def close(self) -> None:
        self.http.close()

    def _call(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        try:
            response = self.http.request(method, path, **kwargs)
        except httpx.TransportError as exc:
            raise ServerUnavailableError(f"cannot reach the server at {self.base_url}: {exc}") from exc
        if response.status_code >= 400:
            raise _error(response)
        return response

    def create(
        self, question: str, collections: list[str], mode: str, overrides: dict[str, Any]
    ) -> RunCreated:
        body = {"question": question, "collections": collections, "mode": mode, "settings": overrides}
        return RunCreated.model_validate(self._call("POST", "/api/runs", json=body).json())

    def detail(self, run_id: str) -> RunDetail:
        return RunDetail.model_validate(self._call("GET", f"/api/runs/{run_id}").json())

    def resume(self, run_id: str, answer: dict[str, Any]) -> RunCreated:
        return RunCreated.model_validate(self._call("POST", f"/api/runs/{run_id}/resume", json=answer).json())

    def report(self, run_id: str) -> ResearchResult:
        return ResearchResult.model_validate(self._call("GET", f"/api/runs/{run_id}/report").json())

    def report_markdown(self, run_id: str) -> str:
        return self._call("GET", f"/api/runs/{run_id}/report.md").text

    def events(self, run_id: str, after: int) -> Iterator[dict[str, Any]]:
        """The run's events numbered above ``after`` (each a dict with ``type`` and ``seq``), live, until
        the server ends the stream (after ``done`` or ``error``). A dropped connection is re-opened with
        ``Last-Event-ID``: no event is lost or repeated."""
        last = after
        failures = 0
        while True:
            try:
                with self.http.stream(
                    "GET",
                    f"/api/runs/{run_id}/events",
                    headers={"Last-Event-ID": str(last)},
                    timeout=httpx.Timeout(30.0, read=None),
                ) as response:
                    if response.status_code >= 400:
                        response.read()
                        raise _error(response)
                    for message in parse_sse(response.iter_lines()):
                        data: dict[str, Any] = json.loads(message.data)
                        last = int(data.get("seq", last))
                        failures = 0
                        yield data
                return  # the server ended the stream
            except (httpx.TransportError, httpx.RemoteProtocolError) as exc:
                failures += 1
                if failures > RECONNECTS:
                    raise ServerUnavailableError(
                        f"lost the event stream of run {run_id} at {self.base_url}: {exc}"
                    ) from exc
                time.sleep(min(0.25 * 2**failures, 5.0))
