"""The `rabbithole` command line."""

from __future__ import annotations

import logging
import os

import typer

from rabbithole.cli import (
    accounts,
    collections,
    ingest,
    mcp,
    members,
    migrate,
    rebuild,
    references,
    report,
    research,
    search,
    serve,
    transfer,
)

app = typer.Typer(
    name="rabbithole",
    help="Local, privacy-first research over your own PDFs.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
    # click's plain help: typer's rich help shows a type (<bool>) beside flags, which take no value
    rich_markup_mode=None,
)


@app.callback()
def main(
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Log progress details to stderr."),
) -> None:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
    logging.basicConfig(
        level=logging.DEBUG if verbose else logging.WARNING,
        format="%(levelname)s %(name)s: %(message)s",
    )
    if not verbose:  # libraries that log chatter on their own handlers
        for name in ("bm25s", "chromadb", "httpx", "sentence_transformers"):
            logging.getLogger(name).setLevel(logging.WARNING)


ingest.register(app)
search.register(app)
serve.register(app)
collections.register(app)
references.register(app)
research.register(app)
report.register(app)
rebuild.register(app)
migrate.register(app)
transfer.register(app)
mcp.register(app)
accounts.register(app)
members.register(app)
