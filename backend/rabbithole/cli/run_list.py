"""`rabbithole runs` in the terminal: each run's whole id (what `--resume` takes, a unique start of it too),
status, mode and phase on one line, and when it was created and its question on the next; nothing is cut,
so an id can be copied at any terminal width."""

from __future__ import annotations

from collections.abc import Sequence

from rabbithole.research.models import RunSummary

HEADER = ("run", "status", "mode", "phase")


def run_lines(rows: Sequence[RunSummary]) -> list[str]:
    """The listing's lines: a header, then two lines per run (newest first, as given)."""
    if not rows:
        return ["no research runs yet: start one with `rabbithole research QUESTION --collection NAME`"]
    cells = [(r.run_id, r.status, r.mode, r.phase or "-") for r in rows]
    widths = [max(len(HEADER[i]), *(len(c[i]) for c in cells)) for i in range(len(HEADER))]

    def line(values: Sequence[str]) -> str:
        return "  ".join(v.ljust(w) for v, w in zip(values, widths, strict=True)).rstrip()

    lines = [line(HEADER), "  created (UTC)     question"]
    for row, values in zip(rows, cells, strict=True):
        lines.append(line(values))
        lines.append(f"  {row.created_at:%Y-%m-%d %H:%M}  {row.question}")
    return lines
