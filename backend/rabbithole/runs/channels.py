"""The PostgreSQL notification channels on which run events and run-list changes cross worker processes, and
their payloads. Only the server backend uses them (``database.url``); the embedded SQLite backend has one
process serving clients, whose broker sees everything.

- ``EVENTS_CHANNEL``: sent by ``RunEventLog.append_batch`` in the transaction that appends a run's events
  (PostgreSQL delivers it at commit, never for a batch rolled back), one per run and batch:
  ``"<run_id> <first seq> <last seq>"``. A listening worker reads the new rows from the event log by seq.
- ``CHANGES_CHANNEL``: a run-list change (``{change, run_id, status, phase}``) with the worker that made it
  (``origin``), JSON; the other workers hand it to their clients of ``GET /api/runs/events``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from sqlalchemy import text

EVENTS_CHANNEL = "rabbithole_run_events"
CHANGES_CHANNEL = "rabbithole_run_changes"

#: The statement that sends one notification per payload on a channel (one round trip for a batch).
NOTIFY = text("SELECT pg_notify(:channel, payload) FROM unnest(CAST(:payloads AS text[])) AS payload")


@dataclass(frozen=True, slots=True)
class Appended:
    """A run's events appended in one transaction: numbers ``first`` to ``last``."""

    run_id: str
    first: int
    last: int

    def payload(self) -> str:
        return f"{self.run_id} {self.first} {self.last}"

    @classmethod
    def parse(cls, payload: str) -> Appended | None:
        """The notification's events; None for a payload of another shape (logged by the caller)."""
        parts = payload.split(" ")
        if len(parts) != 3 or not parts[1].isdigit() or not parts[2].isdigit():
            return None
        return cls(parts[0], int(parts[1]), int(parts[2]))


def change_payload(origin: str, change: dict[str, Any]) -> str:
    return json.dumps({**change, "origin": origin}, ensure_ascii=False, default=str)


def parse_change(payload: str) -> tuple[str, dict[str, Any]] | None:
    """The change's origin and the change; None for a payload of another shape."""
    try:
        body = json.loads(payload)
    except ValueError:
        return None
    if not isinstance(body, dict) or not isinstance(body.get("origin"), str) or "change" not in body:
        return None
    origin = body.pop("origin")
    return origin, body
