"""The web app as a person waits for it (frontend/e2e/flow.measure.ts): the bytes of the first load and the
moments after "Start research". Read from the measurement's JSON; a moment never seen stays None."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import urlparse

#: The app's text files, which the server sends compressed (fonts and images other than SVG are not).
TEXT_SUFFIXES = (".js", ".mjs", ".css", ".html", ".svg", ".json")
COMPRESSED = ("gzip", "br")


@dataclass(frozen=True)
class LoadedFile:
    path: str
    transferred: int
    encoded: int
    decoded: int
    encoding: str | None

    @property
    def is_text(self) -> bool:
        """A text file of the app (the document itself is index.html)."""
        return self.path.endswith(TEXT_SUFFIXES) or self.path.endswith("/")


@dataclass(frozen=True)
class FirstLoad:
    files: list[LoadedFile]

    @property
    def transferred_kb(self) -> float:
        """What went over the wire, headers included (resource timing's transferSize)."""
        return sum(f.transferred for f in self.files) / 1000

    @property
    def decoded_kb(self) -> float:
        return sum(f.decoded for f in self.files) / 1000

    @property
    def uncompressed_text(self) -> list[str]:
        """The text files that did not arrive compressed."""
        return [f.path for f in self.files if f.is_text and f.encoding not in COMPRESSED]


@dataclass(frozen=True)
class Flow:
    first_load: FirstLoad
    #: ms from the click on "Start research" to the run page's first render (the run created), the first
    #: phase event on its stream, the first phase shown, the first streamed report text, the finished
    #: report; None: never seen on the page
    to_run_page_ms: float | None
    to_first_phase_event_ms: float | None
    to_progress_ms: float | None
    to_draft_text_ms: float | None
    to_report_ms: float | None


def _moment(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) else None


def read_flow(data: dict[str, Any]) -> Flow:
    files = [
        LoadedFile(
            path=urlparse(str(entry["url"])).path,
            transferred=int(entry["transferred"]),
            encoded=int(entry["encoded"]),
            decoded=int(entry["decoded"]),
            encoding=entry.get("encoding"),
        )
        for entry in data["firstLoad"]
    ]
    return Flow(
        first_load=FirstLoad(files),
        to_run_page_ms=_moment(data.get("startToRunPageMs")),
        to_first_phase_event_ms=_moment(data.get("startToFirstPhaseEventMs")),
        to_progress_ms=_moment(data.get("startToProgressMs")),
        to_draft_text_ms=_moment(data.get("startToDraftTextMs")),
        to_report_ms=_moment(data.get("startToReportMs")),
    )


def shown(ms: float | None) -> str:
    return "not seen" if ms is None else f"{ms / 1000:.2f} s"
