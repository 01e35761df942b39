"""A research run named on the command line (`--resume`) by its whole id or a unique start of it."""

from __future__ import annotations

from collections.abc import Sequence

from rabbithole.core.errors import InvalidRequestError, RunNotFoundError

#: how many of the runs sharing a prefix an ambiguity error names
SHOWN = 5


def pick_run_id(prefix: str, matching: Sequence[str]) -> str:
    """The one run id among ``matching`` (the ids that start with ``prefix``, newest first): the id itself
    when it is whole, else the only one; RunNotFoundError for none, InvalidRequestError for several."""
    if prefix in matching:
        return prefix
    if not matching:
        raise RunNotFoundError(prefix)
    if len(matching) > 1:
        shown = ", ".join(matching[:SHOWN]) + (", ..." if len(matching) > SHOWN else "")
        raise InvalidRequestError(f"'{prefix}' starts several runs' ids ({shown}): give more of it")
    return matching[0]


def resolve_run_id(prefix: str) -> str:
    """The whole id of the local run whose id is or starts with ``prefix``."""
    from rabbithole.core.config import load_settings
    from rabbithole.runs.store import RunStore

    prefix = prefix.strip()
    if not prefix:
        raise InvalidRequestError("--resume needs a run id (list them with `rabbithole runs`)")
    settings = load_settings()
    storage = settings.storage
    store = RunStore(storage.catalog_path, storage.sqlite_busy_timeout_ms, url=settings.database.url)
    try:
        return pick_run_id(prefix, store.ids_starting_with(prefix, limit=SHOWN + 1))
    finally:
        store.close()
