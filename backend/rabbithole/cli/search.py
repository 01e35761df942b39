"""`rabbithole search QUERY --collection NAME`: hybrid search from the command line."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING

import typer
from rich.console import Console

from rabbithole.cli.errors import handle_errors
from rabbithole.cli.services import open_services

if TYPE_CHECKING:
    from rabbithole.core.models import SearchHit
    from rabbithole.retrieval.filters import SearchFilters
    from rabbithole.retrieval.hybrid import SearchMode
    from rabbithole.services import Services


def _search_overlapped(
    services: Services,
    query: str,
    collections: list[str],
    k: int,
    filters: SearchFilters,
    mode: SearchMode,
) -> list[SearchHit]:
    """One search in a fresh process: the embedding model loads and embeds the query on a second thread
    while this one opens the vector store and the search stack (both are mostly loading)."""
    if mode == "bm25":
        return services.searcher.search(query, collections, k=k, filters=filters, mode=mode)
    embedder = services.embedder  # built here (cheap: the model loads on first use), shared by the searcher
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="embed-query") as pool:
        vector = pool.submit(embedder.embed_query, query)
        searcher = services.searcher
        return searcher.search(
            query, collections, k=k, filters=filters, mode=mode, query_vector=vector.result()
        )


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
        from rabbithole.retrieval.hybrid import MODES
        from rabbithole.retrieval.schemas import SearchResultItem

        if mode not in MODES:
            raise typer.BadParameter(f"mode must be one of {', '.join(MODES)}")
        chosen: SearchMode = mode  # type: ignore[assignment]
        filters = SearchFilters.create(
            documents=document or None, sections=section or None, page_from=page_from, page_to=page_to
        )
        with open_services() as services:
            hits = _search_overlapped(services, query, collection, k, filters, chosen)
        items = [SearchResultItem.from_hit(h) for h in hits]
        if as_json:
            typer.echo(json.dumps([i.model_dump() for i in items], ensure_ascii=False, indent=2))
            return
        console = Console()
        if not items:
            console.print("no results")
        for rank, item in enumerate(items, 1):
            where = f"{item.document} p. {item.page}" + (f" {item.section}" if item.section else "")
            console.print(f"[bold]{rank}. {where}[/] {item.heading}  [dim]score {item.score:.3f}[/]")
            console.print(item.text if len(item.text) < 600 else item.text[:600] + " …", highlight=False)
            console.print()
