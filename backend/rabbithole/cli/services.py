"""Services for one CLI command."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from rabbithole.core.config import load_settings
from rabbithole.services import Services


@contextmanager
def open_services() -> Iterator[Services]:
    services = Services(load_settings())
    try:
        yield services
    finally:
        services.close()
