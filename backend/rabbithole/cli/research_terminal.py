"""The terminal side of a research run: progress lines on stderr, the clarification questions and the plan
editor on the terminal (typer prompts, so answers can also come from a pipe)."""

from __future__ import annotations

from typing import Any

import typer
from rich.console import Console
from rich.table import Table

from rabbithole.cli.draft_terminal import DraftPrinter

END = "/end"


class Progress:
    """Prints a run's progress events to stderr as they arrive."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self.titles: dict[str, str] = {}
        self.drafts = DraftPrinter(console)

    def __call__(self, event: dict[str, Any]) -> None:
        kind = event.get("type")
        c = self.console
        if kind == "phase":
            c.print(f"[bold cyan]▸ {event['phase']}[/]", highlight=False)
        elif kind == "todo":
            for task in event["tasks"]:
                self.titles[task["id"]] = task["title"]
        elif kind == "task_progress":
            title = self.titles.get(event["task_id"], event["task_id"])
            step = event["step"]
            if step == "searched":
                c.print(f"  {event['task_id']} {title}: {event['passages']} passages found", highlight=False)
            elif step == "followed_references":
                c.print(
                    f"  {event['task_id']}: {event['followed']} references followed, "
                    f"{event['skipped']} skipped, "
                    f"{event['passages']} passages to read",
                    highlight=False,
                )
            elif step == "done":
                c.print(
                    f"  [green]✓[/] {event['task_id']} {title}: {event['evidence']} findings", highlight=False
                )
        elif kind == "clarification_progress":
            if event["step"] == "searching" and event["queries"] and event["searched"] == event["queries"]:
                c.print(
                    f"  searched {event['queries']} queries: {event['passages']} passages", highlight=False
                )
        elif kind == "draft_text":
            self.drafts.draft_text(event)
        elif kind == "draft_section":
            self.drafts.draft_section(event)
        elif kind == "warning":
            c.print(f"  [yellow]warning:[/] {event['message']}", highlight=False)
        # an "error" event is not printed: the run raises it next, and the command prints it once as it exits


def ask_clarification(console: Console, payload: dict[str, Any]) -> dict[str, str]:
    """Show one clarification round and ask for the answer ('/end' starts the research)."""
    console.print(f"\n[bold]Clarification, round {payload['round']}[/]", highlight=False)
    console.print(f"Understanding: {payload['understanding']}", highlight=False)
    gaps = "; ".join(payload.get("gaps", [])) or "-"
    console.print(
        f"Coverage {payload['coverage']:.0%}, dedup ratio {payload['dedup_ratio']:.0%}, gaps: {gaps}",
        highlight=False,
    )
    console.print("Searched: " + "; ".join(payload.get("queries", [])), highlight=False)
    table = Table(show_header=True, header_style="bold")
    for column in ("document", "page", "section", "score"):
        table.add_column(column)
    for p in payload.get("passages", []):
        table.add_row(p["document"], str(p["page"]), p.get("section") or "", f"{p['score']:.2f}")
    console.print(table)
    for i, question in enumerate(payload.get("questions", []), start=1):
        console.print(f"[bold]{i}.[/] {question}", highlight=False)
    if payload.get("error"):
        console.print(f"[red]{payload['error']}[/]", highlight=False)
    answer: str = typer.prompt(f"Your answer ({END} to start the research)", err=True)
    return {"answer": answer}


def answer_interrupt(console: Console, payload: dict[str, Any], yes: bool) -> dict[str, Any]:
    """The answer to a research run's interrupt: asked in the terminal, or with ``yes`` the defaults
    (end clarification, approve the plan as proposed). Used by local and remote runs alike."""
    if payload.get("kind") == "clarification":
        return {"answer": END} if yes else ask_clarification(console, payload)
    return {"tasks": None} if yes else ask_plan(console, payload)


def _show_plan(console: Console, tasks: list[dict[str, Any]]) -> None:
    table = Table(show_header=True, header_style="bold", title="Research plan")
    table.add_column("#")
    table.add_column("task")
    table.add_column("queries")
    for i, t in enumerate(tasks, start=1):
        table.add_row(str(i), t["title"], "; ".join(t.get("queries") or []) or "(new: queries to be planned)")
    console.print(table)


PLAN_HELP = (
    f"Enter or {END}: approve · e N TEXT: rename task N · d N: remove task N · a TEXT: add a task · "
    "m N M: move task N to M"
)


def ask_plan(console: Console, payload: dict[str, Any]) -> dict[str, Any]:
    """The plan editor: approve as proposed, or edit, remove, add and reorder tasks, then approve."""
    tasks: list[dict[str, Any]] = [dict(t) for t in payload["tasks"]]
    edited = False
    if payload.get("error"):
        console.print(f"[red]{payload['error']}[/]", highlight=False)
    while True:
        _show_plan(console, tasks)
        command: str = typer.prompt(PLAN_HELP, default="", show_default=False, err=True).strip()
        if command == END:  # typed once more after clarification ended: start the research, as Enter does
            console.print(f"{END}: the plan is approved as shown", highlight=False)
            break
        if not command:
            break
        try:
            edited |= _edit(tasks, command)
        except (ValueError, IndexError):
            console.print(f"[red]not understood:[/] {command}", highlight=False)
    if not edited:
        return {"tasks": None}
    return {
        "tasks": [
            {"id": t.get("id"), "title": t["title"], "description": t.get("description", "")} for t in tasks
        ]
    }


def _index(text: str, tasks: list[dict[str, Any]]) -> int:
    number = int(text)
    if not 1 <= number <= len(tasks):
        raise IndexError(number)
    return number - 1


def _edit(tasks: list[dict[str, Any]], command: str) -> bool:
    verb, _, rest = command.partition(" ")
    if verb == "e":
        number, _, text = rest.partition(" ")
        if not text.strip():
            raise ValueError(command)
        tasks[_index(number, tasks)]["title"] = text.strip()
    elif verb == "d":
        del tasks[_index(rest, tasks)]
    elif verb == "a":
        if not rest.strip():
            raise ValueError(command)
        tasks.append({"id": None, "title": rest.strip(), "description": ""})
    elif verb == "m":
        a, b = (_index(x, tasks) for x in rest.split())
        tasks.insert(b, tasks.pop(a))
    else:
        raise ValueError(command)
    return True
