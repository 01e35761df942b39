"""The terminal side of report mode: the outline editor (typer prompts, so answers can also come from a
pipe) and progress lines for the sections on stderr."""

from __future__ import annotations

from typing import Any

import typer
from rich.console import Console
from rich.table import Table

from rabbithole.cli.research_terminal import Progress

OUTLINE_HELP = (
    "Enter: approve · e N TEXT: rename N · d N: remove N · a TEXT: add · m N M: move N to M · "
    "t N: toggle research · q N Q1; Q2: set N's questions (q N: none) · f TEXT: re-plan with feedback"
)


class ReportProgress(Progress):
    """The research run's progress lines, and a line per section step."""

    def __call__(self, event: dict[str, Any]) -> None:
        if event.get("type") == "section":
            state = event["state"]
            mark = {"done": "[green]✓[/]", "refined": "[green]✓[/]"}.get(state, "·")
            extra = ""
            if state == "graded":
                extra = " passed" if event.get("passed") else " failed: searching again if allowed"
            elif state == "refining":
                extra = f": {event.get('instructions', '')}"
            self.console.print(
                f"  {mark} {event['section_id']} {event['title']}: {state}{extra}", highlight=False
            )
            return
        if event.get("type") == "task_progress":
            return  # the sections' own lines say enough
        super().__call__(event)


def _show(console: Console, payload: dict[str, Any], sections: list[dict[str, Any]]) -> None:
    table = Table(show_header=True, header_style="bold", title=f"Outline: {payload.get('title', '')}")
    for column in ("#", "section", "research", "questions"):
        table.add_column(column)
    for i, s in enumerate(sections, start=1):
        table.add_row(
            str(i),
            s["title"],
            "yes" if s.get("research", True) else "no",
            "; ".join(s.get("questions") or []),
        )
    console.print(table)


def ask_outline(console: Console, payload: dict[str, Any]) -> dict[str, Any]:
    """Approve the outline as proposed, edit it (then approve), or send feedback to re-plan it."""
    sections: list[dict[str, Any]] = [dict(s) for s in payload["sections"]]
    edited = False
    if payload.get("error"):
        console.print(f"[red]{payload['error']}[/]", highlight=False)
    while True:
        _show(console, payload, sections)
        command: str = typer.prompt(OUTLINE_HELP, default="", show_default=False, err=True).strip()
        if not command:
            break
        if command.startswith("f "):
            return {"action": "feedback", "feedback": command[2:].strip()}
        try:
            edited |= edit_outline(sections, command)
        except (ValueError, IndexError):
            console.print(f"[red]not understood:[/] {command}", highlight=False)
    if not edited:
        return {"action": "approve"}
    keep = ("id", "title", "description", "research", "questions")
    return {"action": "edit", "sections": [{k: s[k] for k in keep if k in s} for s in sections]}


def _index(text: str, sections: list[dict[str, Any]]) -> int:
    number = int(text)
    if not 1 <= number <= len(sections):
        raise IndexError(number)
    return number - 1


def edit_outline(sections: list[dict[str, Any]], command: str) -> bool:
    """Apply one editor command to ``sections`` in place (ValueError/IndexError: not understood)."""
    verb, _, rest = command.partition(" ")
    if verb == "e":
        number, _, text = rest.partition(" ")
        if not text.strip():
            raise ValueError(command)
        section = sections[_index(number, sections)]
        section["title"] = text.strip()
        section.pop("questions", None)  # a renamed section is searched under its new title
    elif verb == "d":
        del sections[_index(rest, sections)]
    elif verb == "a":
        if not rest.strip():
            raise ValueError(command)
        sections.append({"id": None, "title": rest.strip(), "description": "", "research": True})
    elif verb == "m":
        a, b = (_index(x, sections) for x in rest.split())
        sections.insert(b, sections.pop(a))
    elif verb == "q":
        # imported here: the report package pulls in langgraph, which every other command can do without
        from rabbithole.research.report.schemas import MAX_QUESTION_LENGTH, MAX_SECTION_QUESTIONS

        number, _, text = rest.partition(" ")
        section = sections[_index(number, sections)]
        questions = [q.strip()[:MAX_QUESTION_LENGTH] for q in text.split(";") if q.strip()]
        section["questions"] = questions[:MAX_SECTION_QUESTIONS]  # none: searched under its title
    elif verb == "t":
        section = sections[_index(rest, sections)]
        section["research"] = not section.get("research", True)
    else:
        raise ValueError(command)
    return True
