"""`rabbithole search QUERY --collection NAME`: hybrid search from the command line."""

from __future__ import annotations

import contextlib
import json
import threading
from typing import TYPE_CHECKING

import typer

from rabbithole.cli.errors import handle_errors
from rabbithole.cli.services import open_services

if TYPE_CHECKING:
    from rabbithole.embeddings.base import Embedder


def _load_weights_beside(embedder: Embedder) -> threading.Thread | None:
    """Load a local embedding model's weights on a thread while the search opens the vector store (reading
    and unpacking the weights releases the GIL; importing Chroma does not need it back often). The search
    embeds the query once they are loaded; an error there is raised by the search itself."""
    load = getattr(embedder, "load_weights", None)
    if not callable(load):
        return None

    def run() -> None:
        with contextlib.suppress(Exception):  # the search's own embedding call reports it
            load()

    thread = threading.Thread(target=run, name="load-embedder", daemon=True)
    thread.start()
    return thread


def register(app: typer.Typer) -> None:
    @app.command()
    @handle_errors
    def search(
        query: str = typer.Argument(..., help="What to look for, in German or English."),
        collection: list[str] = typer.Option(..., "--collection", "-c", help="Collection(s) to search."),
        document: list[str] = typer.Option([], "--document", "-d", help="Only these documents."),
        section: list[str] = typer.Option([], "--section", "-s", help='Only these sections ("§ 80").'),
        page_from: int | None = typer.Option(None, min=1, help="First page."),
        page_to: int | None = typer.Option(None, min=1, help="Last page."),
        k: int = typer.Option(5, "--k", "-k", min=1, max=200, help="Number of results."),
        mode: str = typer.Option("hybrid", help="hybrid, vector or bm25."),
        as_json: bool = typer.Option(False, "--json", help="JSON output."),
    ) -> None:
        """Search collections (vector + BM25, fused)."""
        from rabbithole.retrieval.filters import SearchFilters
        from rabbithole.retrieval.hybrid import MODES, SearchMode
        from rabbithole.retrieval.schemas import SearchResultItem

        if mode not in MODES:
            raise typer.BadParameter(f"mode must be one of {', '.join(MODES)}")
        chosen: SearchMode = mode  # type: ignore[assignment]
        filters = SearchFilters.create(
            documents=document or None, sections=section or None, page_from=page_from, page_to=page_to
        )
        with open_services() as services:
            loading = _load_weights_beside(services.embedder) if chosen != "bm25" else None
            hits = services.searcher.search(query, collection, k=k, filters=filters, mode=chosen)
            if loading is not None:
                loading.join()
        items = [SearchResultItem.from_hit(h) for h in hits]
        if as_json:
            typer.echo(json.dumps([i.model_dump() for i in items], ensure_ascii=False, indent=2))
            return
        from rich.console import Console  # rich where a command prints: the CLI starts without it

        console = Console()
        if not items:
            console.print("no results")
        for rank, item in enumerate(items, 1):
            where = f"{item.document} p. {item.page}" + (f" {item.section}" if item.section else "")
            console.print(f"[bold]{rank}. {where}[/] {item.heading}  [dim]score {item.score:.3f}[/]")
            console.print(item.text if len(item.text) < 600 else item.text[:600] + " …", highlight=False)
            console.print()
