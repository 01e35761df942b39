"""Services for one CLI command."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from rabbithole.core.config import load_settings

if TYPE_CHECKING:
    from rabbithole.core.config import Settings
    from rabbithole.services import Services


@contextmanager
def open_services(settings: Settings | None = None) -> Iterator[Services]:
    from rabbithole.services import Services

    services = Services(settings or load_settings())
    try:
        # after a process died with the vector store open: its indexes are checked before this one reads
        # any (nothing to do, and nothing loaded, after a clean stop)
        services.check_vector_store()
        yield services
    finally:
        services.close()
