"""The report as the model writes it, on the terminal: each sentence of a section once it is complete
(``draft_text`` events), with the page of each evidence id the run checked, then the section as written
(``draft_section``). Sections are written side by side, so every line names its section. It is the
model's draft: the checked report follows at the end."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.markup import escape


class DraftPrinter:
    """Prints the streamed report's sentences on the console (stderr), each once."""

    def __init__(self, console: Console) -> None:
        self.console = console
        #: evidence id -> where it points, for every checked id the run sent
        self.pages: dict[str, str] = {}
        #: per section and pass: the sentences printed
        self.printed: dict[tuple[int, int], set[str]] = {}

    def draft_text(self, event: dict[str, Any]) -> None:
        for evidence_id, where in (event.get("citations") or {}).items():
            self.pages[str(evidence_id)] = f"{where['document']} p. {where['page']}"
        key = (int(event["index"]), int(event.get("attempt", 1)))
        printed = self.printed.setdefault(key, set())
        for claim in event.get("claims") or []:
            text = " ".join(str(claim["text"]).split())
            if claim.get("complete") and text and text not in printed:
                printed.add(text)
                self._sentence(str(event["heading"]), text, [str(i) for i in claim.get("evidence_ids", [])])

    def draft_section(self, event: dict[str, Any]) -> None:
        """A section as the model wrote it: its sentences the stream did not show already."""
        claims = event.get("claims") or []
        again = " (rewritten)" if event.get("attempt", 1) > 1 else ""
        cut = ", cut at the output limit" if event.get("truncated") else ""
        heading = str(event["heading"])
        self.console.print(
            f"  [bold]✎ {escape(heading)}[/]{again}: {len(claims)} sentence(s){cut}", highlight=False
        )
        printed = self.printed.get((int(event["index"]), int(event.get("attempt", 1))), set())
        for claim in claims:
            text = " ".join(str(claim["text"]).split())
            if text not in printed:
                self.console.print(f"    [dim]{escape(text)}[/]", highlight=False)

    def _sentence(self, heading: str, text: str, evidence_ids: list[str]) -> None:
        # only an id the run checked is shown with its page; the model never types a source
        pages = [self.pages[i] for i in evidence_ids if i in self.pages]
        cited = f" [{'; '.join(dict.fromkeys(pages))}]" if pages else ""
        self.console.print(f"  [dim]✎ {escape(heading)}:[/] {escape(text)}{escape(cited)}", highlight=False)
