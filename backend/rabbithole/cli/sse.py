"""A reader of server-sent events over httpx: the lines of a ``text/event-stream`` response, grouped into
events (``id``, ``event``, ``data``); heartbeats (comment lines) skipped."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class SseMessage:
    id: str | None
    event: str
    data: str


def parse_sse(lines: Iterable[str]) -> Iterator[SseMessage]:
    """Events from the lines of a stream (as ``httpx.Response.iter_lines`` yields them)."""
    fields: dict[str, str] = {}
    data: list[str] = []
    for line in lines:
        if line.startswith(":"):  # a heartbeat or comment
            continue
        if line:
            key, _, value = line.partition(":")
            value = value.removeprefix(" ")
            if key == "data":
                data.append(value)
            else:
                fields[key] = value
            continue
        if data:
            yield SseMessage(fields.get("id"), fields.get("event", "message"), "\n".join(data))
        fields, data = {}, []
